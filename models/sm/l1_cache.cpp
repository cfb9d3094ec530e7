#include "sm/l1_cache.h"

#include <fmt/format.h>

#include <string>

#include "sim/hit_rate.h"

namespace tessera::sm {

L1Params L1Params::from_config(sim::Config& cfg) {
  L1Params p;
  const auto kb = cfg.get_int("l1.size_kb", 24, 1, 1024, "Unified L1/texture cache per SM, KiB (all halves)");
  p.halves = static_cast<unsigned>(
      cfg.get_int("l1.halves", 2, 1, 8, "L1 halves; partition p uses half p * halves / partitions"));
  p.bytes = static_cast<unsigned>(kb * 1024);
  p.ways = static_cast<unsigned>(cfg.get_int("l1.ways", 4, 1, 64, "L1 associativity"));
  p.hit_latency = static_cast<unsigned>(cfg.get_int(
      "l1.hit_latency", 82, 1, 10000, "Cycles from issue to result for a load whose sectors all hit in L1"));
  p.mshrs =
      static_cast<unsigned>(cfg.get_int("l1.mshrs", 32, 1, 4096, "MSHRs per L1 half (lines with misses in flight)"));
  p.cache_global_loads = cfg.get_bool(
      "l1.cache_global_loads", false,
      "Cache ordinary global loads in L1 (the -dlcm=ca behaviour); read-only __ldg loads are always cached");
  if (p.bytes % p.halves != 0)
    throw sim::ConfigError("l1.size_kb: " + std::to_string(kb) +
                           " KiB does not split into l1.halves=" + std::to_string(p.halves) + " halves");
  mem::SectorGeometry{p.bytes / p.halves, p.ways, mem::kLineBytes}.validate("l1.size_kb", "l1.ways");
  return p;
}

L1Cache::L1Cache(const L1Params& p, sim::StatGroup& parent, const char* prefix, const char* cached) : p_(p) {
  const mem::SectorGeometry half{p_.bytes / p_.halves, p_.ways, mem::kLineBytes};
  halves_.reserve(p_.halves);  // the formulas below hold references into it
  for (unsigned h = 0; h < p_.halves; ++h) {
    halves_.emplace_back(half, p_.mshrs);
    Half& l1 = halves_.back();
    l1.stats = std::make_unique<sim::StatGroup>(fmt::format("{}{}", prefix, h), &parent);
    l1.stats->add_counter("requests", &l1.requests, cached);
    l1.stats->add_counter("hit_sectors", &l1.hit_sectors, "Requested sectors present");
    l1.stats->add_counter("miss_sectors", &l1.miss_sectors, "Requested sectors absent");
    l1.stats->add_counter("mshr_merged_sectors", &l1.merged_sectors, "Missing sectors already being fetched");
    l1.stats->add_counter("mshr_full_bypasses", &l1.bypassed, "Misses sent on uncached because every MSHR was busy");
    l1.stats->add_formula(
        "sector_hit_rate", [&l1] { return sim::hit_rate(l1.hit_sectors, l1.miss_sectors); },
        "Hit sectors / requested sectors");
  }
}

L1Cache::Lookup L1Cache::load(unsigned h, uint32_t line, uint8_t sectors, unsigned group) {
  Half& l1 = halves_[h];
  ++l1.requests;
  const uint8_t hit = l1.cache.lookup(line, sectors);
  const auto miss = static_cast<uint8_t>(sectors & ~hit);
  l1.hit_sectors += static_cast<unsigned>(__builtin_popcount(hit));
  l1.miss_sectors += static_cast<unsigned>(__builtin_popcount(miss));
  if (!miss) return Lookup{Lookup::kHit, 0};
  auto* entry = l1.mshr.find(line);
  if (!entry && l1.mshr.full()) {
    ++l1.bypassed;
    return Lookup{Lookup::kBypass, 0};
  }
  if (!entry) entry = &l1.mshr.allocate(line);
  const auto fetch = static_cast<uint8_t>(miss & ~entry->requested);
  l1.merged_sectors += static_cast<unsigned>(__builtin_popcount(miss & entry->requested));
  entry->requested = static_cast<uint8_t>(entry->requested | fetch);
  entry->waiters.push_back({group, miss});
  return Lookup{Lookup::kMiss, fetch};
}

std::pair<uint64_t, uint64_t> L1Cache::sector_totals() const {
  std::pair<uint64_t, uint64_t> t{0, 0};
  for (const Half& h : halves_) {
    t.first += h.hit_sectors;
    t.second += h.miss_sectors;
  }
  return t;
}

}  // namespace tessera::sm
