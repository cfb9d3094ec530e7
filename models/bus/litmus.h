// Litmus tests run as scripted operation sequences on two cores of the
// cluster with randomized timing (Sewell et al., "x86-TSO", CACM 2010;
// Sorin, Hill & Wood, "A Primer on Memory Consistency and Cache Coherence",
// ch. 4). Each iteration resets the locations, optionally warms the
// caches at random, starts each core after a random delay and records the
// loaded values; the counts of every outcome are the result.
//   sb  store buffering   c0: x=1; r1=y     c1: y=1; r2=x   forbidden under SC: r1=0,r2=0 (TSO allows it)
//   mp  message passing   c0: d=1; f=1      c1: r1=f; r2=d  forbidden under SC and TSO: r1=1,r2=0
//   lb  load buffering    c0: r1=x; y=1     c1: r2=y; x=1   forbidden under SC and TSO: r1=1,r2=1
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bus/cluster.h"

namespace tessera::bus {

struct LitmusResult {
  std::string test;
  std::map<std::string, uint64_t> outcomes;  // "r1=0 r2=1" -> count
  std::string sc_forbidden;                  // the outcome sequential consistency forbids
  bool tso_allows_forbidden = false;         // whether TSO permits that outcome (sb only)
  uint64_t forbidden_count() const;
  std::string failure;  // a checker violation or deadlock, if any
  mem::CoherenceFailure::Kind failure_kind = mem::CoherenceFailure::Kind::kNone;
};

const std::vector<std::string>& litmus_names();
// Throws std::invalid_argument naming the valid tests.
LitmusResult run_litmus(const ClusterParams& params, const std::string& test, uint64_t iterations, uint64_t seed);

}  // namespace tessera::bus
