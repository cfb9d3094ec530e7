#include "bus/litmus.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tessera::bus {

namespace {

struct Step {
  bool load;
  int location;    // index into the test's locations
  uint32_t value;  // store value
  int result;      // load result register (0 = r1, 1 = r2)
};

struct Script {
  std::vector<Step> core[2];
  std::string sc_forbidden;
  bool tso_allows;
};

Script script_of(const std::string& test) {
  if (test == "sb")
    return {{{{false, 0, 1, -1}, {true, 1, 0, 0}}, {{false, 1, 1, -1}, {true, 0, 0, 1}}}, "r1=0 r2=0", true};
  if (test == "mp")
    return {{{{false, 0, 1, -1}, {false, 1, 1, -1}}, {{true, 1, 0, 0}, {true, 0, 0, 1}}}, "r1=1 r2=0", false};
  if (test == "lb")
    return {{{{true, 0, 0, 0}, {false, 1, 1, -1}}, {{true, 1, 0, 1}, {false, 0, 1, -1}}}, "r1=1 r2=1", false};
  throw std::invalid_argument(fmt::format("unknown litmus test '{}' (valid: sb|mp|lb)", test));
}

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

const std::vector<std::string>& litmus_names() {
  static const std::vector<std::string> kNames{"sb", "mp", "lb"};
  return kNames;
}

uint64_t LitmusResult::forbidden_count() const {
  auto it = outcomes.find(sc_forbidden);
  return it == outcomes.end() ? 0 : it->second;
}

LitmusResult run_litmus(const ClusterParams& params, const std::string& test, uint64_t iterations, uint64_t seed) {
  const Script script = script_of(test);
  if (params.cores < 2) throw std::invalid_argument("litmus tests need at least 2 cores");
  // Two locations on different lines, in different sets.
  const uint64_t line = params.l1d.line_bytes;
  const uint64_t locations[2] = {0, 3 * line};
  mem::SimpleMemory memory(0, 8 * line, 20);
  Cluster cluster(params, memory);
  LitmusResult result;
  result.test = test;
  result.sc_forbidden = script.sc_forbidden;
  result.tso_allows_forbidden = script.tso_allows;
  uint64_t rng = seed * 0x2545F4914F6CDD1Dull + 7;

  for (uint64_t it = 0; it < iterations && !cluster.failed(); ++it) {
    for (uint64_t loc : locations) cluster.debug_write(loc, 4, 0);
    // Random warm-up: each core reads neither, one or both locations first,
    // so the runs start from a mix of I, S and E copies.
    for (uint32_t core = 0; core < 2; ++core) {
      const uint64_t subset = splitmix(rng) % 4;
      for (int loc = 0; loc < 2; ++loc) {
        if (!(subset & (1u << loc))) continue;
        cluster.issue(core, Op{OpKind::kLoad, locations[loc], 4, 0, AmoKind::kAdd}, nullptr);
        while (!cluster.idle() && !cluster.failed()) cluster.advance_to(cluster.next_event_cycle());
      }
    }

    uint32_t regs[2] = {0, 0};
    size_t next_step[2] = {0, 0};
    uint64_t start_at[2];
    for (uint32_t core = 0; core < 2; ++core) start_at[core] = cluster.now() + 1 + splitmix(rng) % 16;
    bool fenced[2] = {false, false};
    while (!cluster.failed()) {
      bool all_done = true;
      uint64_t wake = Cluster::kNever;
      for (uint32_t core = 0; core < 2; ++core) {
        const auto& steps = script.core[core];
        if (fenced[core] && cluster.port_free(core, false)) continue;
        all_done = false;
        if (!cluster.port_free(core, false)) continue;
        if (start_at[core] > cluster.now()) {
          wake = std::min(wake, start_at[core]);
          continue;
        }
        if (next_step[core] == steps.size()) {
          // Drain the store buffer so the next iteration starts clean.
          fenced[core] = true;
          cluster.issue(core, Op{OpKind::kFence, 0, 4, 0, AmoKind::kAdd}, nullptr);
          continue;
        }
        const Step& s = steps[next_step[core]++];
        const Op op{s.load ? OpKind::kLoad : OpKind::kStore, locations[s.location], 4, s.value, AmoKind::kAdd};
        const int reg = s.result;
        uint64_t* start = &start_at[core];
        const uint64_t gap = splitmix(rng) % 4;
        cluster.issue(core, op, [&regs, reg, start, gap, &cluster](uint32_t v) {
          if (reg >= 0) regs[reg] = v;
          *start = cluster.now() + gap;
        });
      }
      if (all_done && cluster.idle()) break;
      const uint64_t next = std::min(wake, cluster.next_event_cycle());
      if (next == Cluster::kNever) {
        result.failure = "litmus run stalled with work pending";
        result.failure_kind = mem::CoherenceFailure::Kind::kStalled;
        return result;
      }
      cluster.advance_to(next);
    }
    ++result.outcomes[fmt::format("r1={} r2={}", regs[0], regs[1])];
  }
  if (cluster.failed()) {
    result.failure = cluster.failure();
    result.failure_kind = cluster.failure_info().kind;
  }
  return result;
}

}  // namespace tessera::bus
