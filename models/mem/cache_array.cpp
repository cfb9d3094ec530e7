#include "mem/cache_array.h"

#include <fmt/format.h>

#include "sim/config.h"

namespace tessera::mem {

namespace {
bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

CacheGeometry CacheGeometry::make(const std::string& key_prefix, uint32_t size_bytes, uint32_t ways,
                                  uint32_t line_bytes) {
  using sim::ConfigError;
  if (!is_pow2(line_bytes) || line_bytes < 4)
    throw ConfigError(
        fmt::format("{}.line_bytes: {} is not a power of two of at least 4 bytes", key_prefix, line_bytes));
  if (ways == 0) throw ConfigError(fmt::format("{}.ways: must be at least 1", key_prefix));
  const uint64_t way_bytes = static_cast<uint64_t>(ways) * line_bytes;
  if (size_bytes % way_bytes != 0 || !is_pow2(size_bytes / way_bytes))
    throw ConfigError(fmt::format(
        "{}.size_kb: {} bytes do not divide into {} ways of {}-byte lines with a power-of-two number of sets",
        key_prefix, size_bytes, ways, line_bytes));
  return CacheGeometry{size_bytes, ways, line_bytes, static_cast<uint32_t>(size_bytes / way_bytes)};
}

CacheArray::CacheArray(const CacheGeometry& geometry)
    : geometry_(geometry),
      lines_(static_cast<size_t>(geometry.sets) * geometry.ways),
      data_(static_cast<size_t>(geometry.sets) * geometry.ways * geometry.line_bytes, 0) {}

int CacheArray::find(uint64_t line_addr) const {
  const size_t base = static_cast<size_t>(set_of(line_addr)) * geometry_.ways;
  for (size_t w = 0; w < geometry_.ways; ++w) {
    const Line& l = lines_[base + w];
    if ((l.state != State::kI || l.reserved) && l.line_addr == line_addr) return static_cast<int>(base + w);
  }
  return -1;
}

State CacheArray::state_of(uint64_t line_addr) const {
  const int i = find(line_addr);
  return i < 0 ? State::kI : lines_[static_cast<size_t>(i)].state;
}

int CacheArray::victim(uint64_t line_addr) const {
  const size_t base = static_cast<size_t>(set_of(line_addr)) * geometry_.ways;
  int best = -1;
  for (size_t w = 0; w < geometry_.ways; ++w) {
    const Line& l = lines_[base + w];
    if (l.reserved || l.pinned) continue;
    if (l.state == State::kI) return static_cast<int>(base + w);
    if (best < 0 || l.last_use < lines_[static_cast<size_t>(best)].last_use) best = static_cast<int>(base + w);
  }
  return best;
}

bool CacheArray::pinned_set(uint64_t line_addr) const {
  const size_t base = static_cast<size_t>(set_of(line_addr)) * geometry_.ways;
  for (size_t w = 0; w < geometry_.ways; ++w)
    if (!lines_[base + w].pinned) return false;
  return true;
}

}  // namespace tessera::mem
