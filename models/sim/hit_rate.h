// The hit rate of a cache: hits / (hits + misses), 0 when nothing was asked.
// One definition for every cache's statistics and for the run summary.
#pragma once

#include <cstdint>

namespace tessera::sim {

// `scale` 100 gives a percentage; it multiplies the hits before the division
// (scale * hits / all), so a percentage is the same double as computed
// directly, not 100 times a rounded fraction.
inline double hit_rate(uint64_t hits, uint64_t misses, double scale = 1.0) {
  const uint64_t all = hits + misses;
  return all ? scale * static_cast<double>(hits) / static_cast<double>(all) : 0.0;
}

}  // namespace tessera::sim
