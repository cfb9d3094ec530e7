// The SM's unified L1/texture cache (Maxwell: 24 KiB in two halves, each
// serving two of the four partitions): per half a sectored tag array, its
// MSHRs and its statistics. It caches read-only (__ldg) loads, and every
// global load with l1.cache_global_loads; stores and atomics go through to
// L2 and drop the L1's stale copies. L1 is not coherent: a kernel launch
// starts with it empty. Tags only, no SystemC: the SM engine asks it what a
// cached line needs and hands it the fills.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "mem/sector_cache.h"
#include "sim/config.h"
#include "sim/stats.h"

namespace tessera::sm {

struct L1Params {
  unsigned bytes = 0;   // all halves
  unsigned halves = 0;  // partition p uses half p * halves / partitions
  unsigned ways = 0, hit_latency = 0, mshrs = 0;
  bool cache_global_loads = false;

  // The l1.* keys.
  static L1Params from_config(sim::Config& cfg);
};

class L1Cache {
 public:
  struct Half {
    mem::SectorCache cache;
    mem::MshrTable<unsigned> mshr;  // waiters: the SM's memory groups
    uint64_t requests = 0, hit_sectors = 0, miss_sectors = 0, merged_sectors = 0, bypassed = 0;
    std::unique_ptr<sim::StatGroup> stats;
    Half(const mem::SectorGeometry& g, unsigned mshrs) : cache(g), mshr(mshrs) {}
  };

  // What a cached load's line needs.
  struct Lookup {
    enum Kind : uint8_t { kHit, kMiss, kBypass } kind = kHit;
    uint8_t fetch = 0;  // kMiss: sectors to fetch now (0: all already being fetched)
  };

  // Statistics go under `parent` as <prefix><h> (l1_half0, l1_half1...);
  // `cached` says what its requests are.
  L1Cache(const L1Params& p, sim::StatGroup& parent, const char* prefix = "l1_half",
          const char* cached = "Line requests of cached loads (__ldg, or all with l1.cache_global_loads)");

  const L1Params& params() const { return p_; }
  unsigned half_of(unsigned partition, unsigned partitions) const { return partition * p_.halves / partitions; }

  // A cached load of `sectors` of `line` by memory group `group` in half `h`:
  // a hit, a miss waiting in an MSHR (fetching what is not yet in flight), or
  // a bypass when every MSHR is busy.
  Lookup load(unsigned h, uint32_t line, uint8_t sectors, unsigned group);
  // Sectors of `line` arrived for half `h`: calls done(group) for every
  // memory group whose sectors are all back.
  template <typename Done>
  void fill(unsigned h, uint32_t line, uint8_t sectors, Done&& done) {
    Half& half = halves_[h];
    half.cache.fill(line, sectors, false);
    half.mshr.arrive(line, sectors, done);
  }
  // A store or atomic went to L2: every half drops its copies.
  void invalidate(uint32_t line, uint8_t sectors) {
    for (Half& h : halves_) h.cache.invalidate(line, sectors);
  }
  void invalidate_all() {
    for (Half& h : halves_) h.cache.invalidate_all();
  }

  size_t halves() const { return halves_.size(); }
  const Half& half(unsigned h) const { return halves_[h]; }
  // Requested sectors of cached loads over every half: hits, misses.
  std::pair<uint64_t, uint64_t> sector_totals() const;

 private:
  L1Params p_;
  std::vector<Half> halves_;
};

}  // namespace tessera::sm
