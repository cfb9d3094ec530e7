// The RTL blocks `tessera rtl-test` drives alone (docs/cosim.md, "Block-level
// random testing"): each block's constrained-random stimulus against its C++
// model in lockstep, and the implementations of the block that --impl
// selects. This table is the one place that maps an implementation name to
// what builds it (today: the shipped block and the planted mutants of
// rtl.mutation); a new implementation is a row in rtl_blocks.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config.h"

namespace tessera::platform {

// One implementation of a block: the settings that select it.
struct RtlImplementation {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> settings;  // key, value
};

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
  std::string impl_key;                            // the co-simulation key the run sets to lockstep
  std::vector<RtlImplementation> implementations;  // the first one is the default
  // Builds the block in lockstep from `cfg` (the user's --set and the
  // implementation's settings applied) and drives it for run.cycles cycles;
  // throws rtl::LockstepMismatch at the first difference.
  RtlTestResult (*run)(sim::Config& cfg, const RtlTestRun& run);
};

const std::vector<RtlBlockTest>& rtl_block_tests();

}  // namespace tessera::platform
