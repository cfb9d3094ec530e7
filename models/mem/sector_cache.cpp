#include "mem/sector_cache.h"

#include <fmt/format.h>

#include "sim/config.h"

namespace tessera::mem {

void SectorGeometry::validate(const std::string& size_key, const std::string& ways_key) const {
  const uint64_t set_bytes = uint64_t{ways} * line_bytes;
  if (ways == 0 || size_bytes == 0 || size_bytes % set_bytes != 0)
    throw sim::ConfigError(fmt::format("{}: {} bytes is not sets x ways x line ({} ways of {}-byte lines, {})",
                                       size_key, size_bytes, ways, line_bytes, ways_key));
}

SectorCache::SectorCache(const SectorGeometry& g)
    : sets_(g.sets()),
      ways_per_set_(g.ways),
      line_bytes_(g.line_bytes),
      index_stride_(g.index_stride),
      ways_(size_t{g.sets()} * g.ways) {}

int SectorCache::find(uint32_t line) const {
  const unsigned base = set_of(line) * ways_per_set_;
  for (unsigned w = 0; w < ways_per_set_; ++w) {
    const Way& way = ways_[base + w];
    if (way.valid && way.tag == line) return static_cast<int>(base + w);
  }
  return -1;
}

uint8_t SectorCache::lookup(uint32_t line, uint8_t mask) {
  const int i = find(line);
  if (i < 0) return 0;
  Way& way = ways_[static_cast<size_t>(i)];
  const uint8_t hit = way.valid & mask;
  if (hit) way.last_use = ++use_clock_;
  return hit;
}

SectorCache::Victim SectorCache::fill(uint32_t line, uint8_t mask, bool dirty) {
  Victim victim;
  int i = find(line);
  if (i < 0) {
    // An invalid way, else the least recently used one.
    const unsigned base = set_of(line) * ways_per_set_;
    unsigned pick = base;
    for (unsigned w = 0; w < ways_per_set_; ++w) {
      const Way& way = ways_[base + w];
      if (!way.valid) {
        pick = base + w;
        break;
      }
      if (way.last_use < ways_[pick].last_use) pick = base + w;
    }
    Way& way = ways_[pick];
    if (way.valid && way.dirty) victim = Victim{way.tag, way.dirty};
    way = Way{line, 0, 0, 0};
    i = static_cast<int>(pick);
  }
  Way& way = ways_[static_cast<size_t>(i)];
  way.valid = static_cast<uint8_t>(way.valid | mask);
  if (dirty) way.dirty = static_cast<uint8_t>(way.dirty | mask);
  way.last_use = ++use_clock_;
  return victim;
}

void SectorCache::invalidate(uint32_t line, uint8_t mask) {
  const int i = find(line);
  if (i < 0) return;
  Way& way = ways_[static_cast<size_t>(i)];
  way.valid = static_cast<uint8_t>(way.valid & ~mask);
  way.dirty = static_cast<uint8_t>(way.dirty & ~mask);
}

void SectorCache::invalidate_all() {
  for (Way& w : ways_) w = Way{};
}

uint8_t SectorCache::dirty_sectors(uint32_t line) const {
  const int i = find(line);
  return i < 0 ? 0 : ways_[static_cast<size_t>(i)].dirty;
}

}  // namespace tessera::mem
