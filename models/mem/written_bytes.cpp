#include "mem/written_bytes.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessera::mem {

WrittenBytes::WrittenBytes(uint32_t line_bytes) : line_bytes_(line_bytes), words_((line_bytes + 63) / 64) {
  if (line_bytes < 4 || (line_bytes & (line_bytes - 1)) != 0)
    throw std::invalid_argument(
        fmt::format("WrittenBytes: line size {} is not a power of two of at least 4", line_bytes));
}

void WrittenBytes::mark(uint64_t addr, uint32_t size) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  const uint32_t offset = static_cast<uint32_t>(addr - line);
  if (size == 0 || offset + size > line_bytes_)
    throw std::logic_error(fmt::format("WrittenBytes: a {}-byte store at {:#x} crosses its line", size, addr));
  auto& mask = masks_[line];
  if (mask.empty()) mask.assign(words_, 0);
  for (uint32_t b = offset; b < offset + size; ++b) mask[b / 64] |= uint64_t{1} << (b % 64);
}

bool WrittenBytes::written(uint64_t line, uint32_t offset) const {
  const auto it = masks_.find(line);
  return it != masks_.end() && offset < line_bytes_ && (it->second[offset / 64] >> (offset % 64) & 1);
}

uint32_t WrittenBytes::merge_and_forget(uint64_t line, const uint8_t* data, uint8_t* memory_line) {
  const auto it = masks_.find(line);
  if (it == masks_.end()) return 0;
  uint32_t copied = 0;
  for (uint32_t b = 0; b < line_bytes_; ++b)
    if (it->second[b / 64] >> (b % 64) & 1) {
      memory_line[b] = data[b];
      ++copied;
    }
  masks_.erase(it);
  return copied;
}

}  // namespace tessera::mem
