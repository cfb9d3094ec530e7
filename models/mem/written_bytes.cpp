#include "mem/written_bytes.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessera::mem {

WrittenBytes::WrittenBytes(uint32_t line_bytes) : line_bytes_(line_bytes) {
  if (line_bytes < 4 || line_bytes > kMaxLineBytes || (line_bytes & (line_bytes - 1)) != 0)
    throw std::invalid_argument(
        fmt::format("WrittenBytes: line size {} is not a power of two from 4 to {}", line_bytes, kMaxLineBytes));
}

void WrittenBytes::mark(uint64_t addr, uint32_t size) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  const uint32_t offset = static_cast<uint32_t>(addr - line);
  if (size == 0 || offset + size > line_bytes_)
    throw std::logic_error(fmt::format("WrittenBytes: a {}-byte store at {:#x} crosses its line", size, addr));
  if (line != last_line_) {
    last_mask_ = &masks_[line];  // a new line's mask starts empty
    last_line_ = line;
  }
  for (uint32_t b = offset; b < offset + size; ++b) (*last_mask_)[b / 64] |= uint64_t{1} << (b % 64);
}

bool WrittenBytes::written(uint64_t line, uint32_t offset) const {
  const auto it = masks_.find(line);
  return it != masks_.end() && offset < line_bytes_ && (it->second[offset / 64] >> (offset % 64) & 1);
}

bool WrittenBytes::take(uint64_t line, Mask& mask) {
  const auto it = masks_.find(line);
  if (it == masks_.end()) return false;
  mask = it->second;
  masks_.erase(it);
  if (line == last_line_) {
    last_line_ = ~uint64_t{0};
    last_mask_ = nullptr;
  }
  return true;
}

uint32_t WrittenBytes::count(const Mask& mask) {
  uint32_t n = 0;
  for (uint64_t word : mask) n += static_cast<uint32_t>(__builtin_popcountll(word));
  return n;
}

void WrittenBytes::merge(const Mask& mask, const uint8_t* data, uint8_t* memory_line) const {
  for (uint32_t b = 0; b < line_bytes_; ++b)
    if (mask[b / 64] >> (b % 64) & 1) memory_line[b] = data[b];
}

}  // namespace tessera::mem
