// The RTL blocks `tessera rtl-test` drives alone (docs/cosim.md, "Block-level
// random testing"): each block's constrained-random stimulus against its C++
// model in lockstep. --impl selects any implementation registered for the
// block's kind (rtl/common/impl_registry.h: the shipped block, and those of
// the plugins loaded); a new implementation is a tessera_add_rtl_block(...
// IMPLEMENTS kind NAME name), not a row here.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config.h"

namespace tessera::platform {

struct RtlTestRun {
  uint64_t cycles = 0;
  uint64_t seed = 0;
  // Called now and then with the cycles done (for progress lines).
  std::function<void(uint64_t done)> progress;
};

// What a run did besides agreeing with the model, for its last line
// ("30,215 requests", "98,342 flits").
struct RtlTestResult {
  std::string stimulus;
};

struct RtlBlockTest {
  std::string name;
  std::string description;
  std::string impl_key;  // the co-simulation key the run sets to lockstep[:NAME]
  std::string kind;      // its implementations' kind in the registry
  // Builds the block in lockstep from `cfg` (the user's --set and the
  // implementation's settings applied) and drives it for run.cycles cycles;
  // throws rtl::LockstepMismatch at the first difference.
  RtlTestResult (*run)(sim::Config& cfg, const RtlTestRun& run);
};

const std::vector<RtlBlockTest>& rtl_block_tests();

}  // namespace tessera::platform
