// The SM's and the dispatcher's waveform signals (docs/waveforms.md), read
// back from the FST that `tessera run --vcd` writes (through gtkwave's
// fst2vcd): occupancy against the limits of docs/architecture.md
// ("Occupancy"), barriers, L1 strobes of one SM cycle and the requests they
// cause, the bank array's busy signal, the dispatcher's block counts, and a
// run's statistics that do not depend on tracing.
//
// The numbers come from the programs' launch geometry (firmware/programs/)
// and the default SM parameters: sm.max_warps 64, sm.max_blocks 32,
// sm.max_threads 2048, sm.registers 65536, regs_per_thread 64 (the
// firmware's launches leave it at sm.regs_per_thread_default), granule 256.
// The SM clock is set to 1000 MHz: one SM cycle is 1000 ps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tessera_run.h"
#include "wave_reader.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;

constexpr uint64_t kSmPeriodPs = 1000;  // clock.sm_mhz=1000

std::string elf(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

// A signal's changes, in time order: (time ps, value).
using Changes = std::vector<std::pair<uint64_t, uint64_t>>;

// Every signal of a waveform by its full dotted name.
std::map<std::string, Changes> read_wave(const std::string& path) {
  const tessera::test::WaveFile w = tessera::test::WaveFile::read(path);
  std::map<std::string, Changes> out;
  for (const std::string& name : w.paths()) {
    Changes& c = out[name];
    for (const auto& change : w.changes(name)) c.emplace_back(change.time_ps, change.value);
  }
  return out;
}

// Runs `program` on `platform` with a waveform of `scopes` and returns it.
std::map<std::string, Changes> trace(const std::string& platform, const std::string& program,
                                     const std::vector<std::string>& scopes, std::vector<std::string> extra = {}) {
  const std::string fst = tessera::test::temp_path(program + ".fst");
  std::vector<std::string> args = {"run", platform, elf(program), "-q", "--set", "clock.sm_mhz=1000", "--vcd", fst};
  for (const std::string& s : scopes) {
    args.push_back("--trace-scope");
    args.push_back(s);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_tessera(args);
  EXPECT_EQ(r.status, 0) << r.err;
  auto out = read_wave(fst);
  std::filesystem::remove(fst);
  return out;
}

uint64_t max_of(const Changes& c) {
  uint64_t m = 0;
  for (const auto& [t, v] : c) m = std::max(m, v);
  return m;
}

// The value at time t (the last change at or before it).
uint64_t value_at(const Changes& c, uint64_t t) {
  uint64_t v = 0;
  for (const auto& [ct, cv] : c) {
    if (ct > t) break;
    v = cv;
  }
  return v;
}

// Intervals [rise, fall) in which a 1-bit signal is 1; a last rise without a
// fall ends at ~0.
std::vector<std::pair<uint64_t, uint64_t>> high_intervals(const Changes& c) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  bool high = false;
  uint64_t rise = 0;
  for (const auto& [t, v] : c) {
    if (v && !high) rise = t;
    if (!v && high) out.emplace_back(rise, t);
    high = v != 0;
  }
  if (high) out.emplace_back(rise, ~uint64_t{0});
  return out;
}

const Changes& signal(const std::map<std::string, Changes>& w, const std::string& name) {
  static const Changes none;
  auto it = w.find(name);
  EXPECT_NE(it, w.end()) << "no signal " << name;
  return it == w.end() ? none : it->second;
}

// reduction: a first launch of 32 blocks of 256 threads (8 warps each) with
// __syncthreads between the tree's steps. Its kernel record charges 9
// registers per thread (tessera-cc -v), 9 x 32 = 288 rounded up to the
// 256-register granule = 512 per warp, 4096 per block; with the register
// file cut to 16384 (kRegisterLimited), 16384 / 4096 = 4 blocks fit (threads
// 1024 <= 2048, warps 32 <= 64, blocks 4 <= 32): 32 resident warps at most.
const std::vector<std::string> kRegisterLimited = {"--set", "sm.registers=16384"};

TEST(WavesSm, ReductionFillsTheSmToItsRegisterLimitAndEmptiesIt) {
  const auto w = trace("sm1", "reduction", {"sm0"}, kRegisterLimited);
  const Changes& warps = signal(w, "chip.sm0.resident_warps");
  const Changes& blocks = signal(w, "chip.sm0.resident_blocks");
  EXPECT_EQ(max_of(warps), 32u);
  EXPECT_LE(max_of(warps), 64u);  // sm.max_warps
  EXPECT_EQ(max_of(blocks), 4u);
  ASSERT_FALSE(warps.empty());
  EXPECT_EQ(warps.back().second, 0u);
  EXPECT_EQ(blocks.back().second, 0u);
  // Whole blocks come and go: warps are 8 per resident block at every change.
  for (const auto& [t, v] : warps) EXPECT_EQ(v, 8 * value_at(blocks, t)) << "at " << t << " ps";
}

TEST(WavesSm, ReductionWarpsWaitAtTheBarrier) {
  const auto w = trace("sm1", "reduction", {"sm0"}, kRegisterLimited);
  const Changes& barrier = signal(w, "chip.sm0.barrier_warps");
  const Changes& warps = signal(w, "chip.sm0.resident_warps");
  EXPECT_GT(max_of(barrier), 0u);
  // The last warp of a block to arrive releases the barrier in that cycle:
  // at most all but one warp of each resident block wait.
  for (const auto& [t, v] : barrier) EXPECT_LE(v, value_at(warps, t)) << "at " << t << " ps";
  EXPECT_LE(max_of(barrier), 4u * 7u);
  ASSERT_FALSE(barrier.empty());
  EXPECT_EQ(barrier.back().second, 0u);
}

// Each warp slot's state (empty, active, memory, barrier, exited) and
// active mask: at every instant a slot changes, the slots that hold a warp
// are at most the SM's resident warps (as many at the peak), and those at
// the barrier at most its
// barrier_warps; a warp that waits (barrier, exited) or is gone has no
// active lane, one that runs or waits on memory has some. reduction waits at
// __syncthreads, vecadd on its global loads.
TEST(WavesSm, WarpSlotsShowWhatEachWarpWaitsFor) {
  enum : uint64_t { kEmpty, kActive, kMemory, kBarrier, kExited };
  for (const char* program : {"reduction", "vecadd"}) {
    SCOPED_TRACE(program);
    const auto w = trace("sm1", program, {"sm0"}, kRegisterLimited);
    std::vector<std::string> slots;
    for (unsigned i = 0; w.count("chip.sm0.warp" + std::to_string(i) + ".state"); ++i)
      slots.push_back("chip.sm0.warp" + std::to_string(i));
    ASSERT_EQ(slots.size(), 64u);  // sm.max_warps
    std::set<uint64_t> times;
    std::map<uint64_t, unsigned> seen;  // state -> slots that were ever in it
    for (const std::string& slot : slots) {
      std::set<uint64_t> states;
      for (const auto& [t, v] : signal(w, slot + ".state")) {
        times.insert(t);
        states.insert(v);
        EXPECT_LE(v, kExited) << slot;
      }
      for (const uint64_t v : states) ++seen[v];
      for (const auto& [t, v] : signal(w, slot + ".active_mask")) times.insert(t);
    }
    unsigned most_held = 0;
    for (const uint64_t t : times) {
      unsigned held = 0, at_barrier = 0;
      for (const std::string& slot : slots) {
        const uint64_t state = value_at(signal(w, slot + ".state"), t);
        const uint64_t mask = value_at(signal(w, slot + ".active_mask"), t);
        held += state != kEmpty;
        at_barrier += state == kBarrier;
        if (state == kEmpty || state == kBarrier || state == kExited) {
          EXPECT_EQ(mask, 0u) << slot << " at " << t;
        } else {
          EXPECT_NE(mask, 0u) << slot << " at " << t;
        }
      }
      // resident_warps counts the warps of resident blocks, finished ones too.
      EXPECT_LE(held, value_at(signal(w, "chip.sm0.resident_warps"), t)) << "at " << t;
      most_held = std::max(most_held, held);
      EXPECT_LE(at_barrier, value_at(signal(w, "chip.sm0.barrier_warps"), t)) << "at " << t;
    }
    EXPECT_EQ(most_held, max_of(signal(w, "chip.sm0.resident_warps")));
    EXPECT_GT(seen[program == std::string("reduction") ? kBarrier : kMemory], 0u);
    EXPECT_GT(seen[kActive], 0u);
  }
}

// ldg_lut: __ldgu lookups of a 1 KiB table go through L1 (read-only loads).
TEST(WavesSm, L1StrobesLastWholeCyclesAndEveryMissHasARequestInFlight) {
  const auto w = trace("sm1", "ldg_lut", {"sm0"});
  const Changes& outstanding = signal(w, "chip.sm0.global_outstanding");
  for (unsigned h = 0; h < 2; ++h) {
    const std::string half = "chip.sm0.l1_half" + std::to_string(h) + ".";
    const Changes& req = signal(w, half + "req");
    const Changes& hit = signal(w, half + "hit");
    const Changes& miss = signal(w, half + "miss");
    const auto misses = high_intervals(miss);
    EXPECT_GT(misses.size(), 0u) << half;
    EXPECT_GT(high_intervals(hit).size(), 0u) << half;
    for (const Changes* s : {&req, &hit, &miss}) {
      for (const auto& [rise, fall] : high_intervals(*s)) {
        // 1 for whole SM cycles, and back to 0 afterwards (also when the SM
        // sleeps through the next cycle).
        ASSERT_NE(fall, ~uint64_t{0}) << half << " strobe never returns to 0";
        EXPECT_EQ(rise % kSmPeriodPs, 0u) << half << rise;
        EXPECT_EQ((fall - rise) % kSmPeriodPs, 0u) << half << rise;
        EXPECT_GT(fall, rise);
      }
    }
    // A lookup is a hit or a miss: req is 1 exactly when one of them is.
    for (const auto& [t, v] : req) EXPECT_EQ(v, value_at(hit, t) | value_at(miss, t)) << half << t;
    for (const auto& [rise, fall] : misses) {
      // The miss fetched its sectors (a request queued that cycle) or waits
      // in an MSHR for a fetch not yet applied: a line request outstanding.
      EXPECT_GE(value_at(outstanding, rise), 1u) << half << " miss at " << rise;
      // ... and the MSHR holds the line.
      EXPECT_GE(value_at(signal(w, half + "mshr"), rise), 1u) << half << " miss at " << rise;
      bool increase = false;
      uint64_t before = value_at(outstanding, rise - 1);
      for (const auto& [t, v] : outstanding) {
        if (t < rise) continue;
        if (v > before) {
          increase = true;
          break;
        }
        before = v;
      }
      EXPECT_TRUE(increase) << half << " miss at " << rise << " without a later request";
    }
  }
  EXPECT_EQ(outstanding.back().second, 0u);
}

// sgemm: 16x16 tiles of A and B in shared memory.
TEST(WavesSm, SharedBankArrayIsBusyForWholeCyclesAfterItsPasses) {
  const auto w = trace("sm1", "sgemm", {"sm0"});
  const auto busy = high_intervals(signal(w, "chip.sm0.shared.busy"));
  const Changes& passes = signal(w, "chip.sm0.shared.passes");
  ASSERT_GT(busy.size(), 0u);
  EXPECT_GE(max_of(passes), 1u);
  EXPECT_LE(max_of(passes), 32u);  // at most one pass per lane
  for (const auto& [rise, fall] : busy) {
    ASSERT_NE(fall, ~uint64_t{0}) << "shared.busy never returns to 0";
    EXPECT_EQ((fall - rise) % kSmPeriodPs, 0u) << rise;
    // A request's passes keep the array busy at least that many cycles.
    EXPECT_GE((fall - rise) / kSmPeriodPs, value_at(passes, rise)) << rise;
  }
}

// The SM sleeps through cycles in which no warp can issue; its signals must
// still change at the cycle they would while ticking every cycle
// (sm.skip_idle=false), e.g. shared.busy falling after the passes of a
// conflicting atomic while every warp waits. histogram's shared-memory
// atomics conflict (several lanes add to one bin); ldg_lut's loads hit and
// miss in L1.
TEST(WavesSm, SkippingIdleCyclesGivesTheWaveformOfTicking) {
  for (const char* program : {"histogram", "ldg_lut"}) {
    const auto skipping = trace("sm1", program, {"sm0"});
    const auto ticking = trace("sm1", program, {"sm0"}, {"--set", "sm.skip_idle=false"});
    ASSERT_EQ(skipping.size(), ticking.size()) << program;
    for (const auto& [name, changes] : skipping) {
      const auto it = ticking.find(name);
      ASSERT_NE(it, ticking.end()) << name;
      EXPECT_TRUE(changes == it->second) << program << ": " << name << " differs from the ticking SM's";
    }
    EXPECT_GE(max_of(signal(skipping, "chip.sm0.shared.passes")), program == std::string("histogram") ? 2u : 0u);
  }
}

// The dispatcher on the 4-SM chip: reduction's launches of 32 and 1 blocks.
TEST(WavesDispatcher, BlocksPlacedOnEverySmAddUpToTheGrids) {
  const auto w = trace("chip", "reduction", {"dispatcher", "sm*"}, kRegisterLimited);
  uint64_t placed = 0;
  for (unsigned sm = 0; sm < 4; ++sm) {
    const Changes& blocks = signal(w, "chip.dispatcher.sm" + std::to_string(sm) + ".blocks");
    uint64_t last = 0;
    for (const auto& [t, v] : blocks) {
      if (v > last) placed += v - last;
      last = v;
    }
    EXPECT_LE(max_of(blocks), 4u) << sm;  // the register limit, as on sm1
    EXPECT_EQ(last, 0u) << sm;
    // The SM holds what the dispatcher placed on it: its resident blocks reach the same count.
    EXPECT_EQ(max_of(signal(w, "chip.sm" + std::to_string(sm) + ".resident_blocks")), max_of(blocks)) << sm;
  }
  EXPECT_EQ(placed, 32u + 1u);
  const auto running = high_intervals(signal(w, "chip.dispatcher.kernel_running"));
  // Two launches back to back: the second starts the instant the first ends
  // or later, so one or two intervals; the kernel is done at the end.
  ASSERT_GE(running.size(), 1u);
  EXPECT_LE(running.size(), 2u);
  EXPECT_NE(running.back().second, ~uint64_t{0});
  const Changes& pending = signal(w, "chip.dispatcher.blocks_pending");
  EXPECT_EQ(max_of(pending), 32u);
  EXPECT_EQ(value_at(pending, running.front().first), 32u);
  EXPECT_EQ(pending.back().second, 0u);
}

// The statistics without --vcd and with every signal traced are the same
// (host time and speed aside).
std::string stats_without_host(const std::string& path) {
  std::string text = tessera::test::read_file(path);
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("host_seconds") != std::string::npos || line.find("per_host_second") != std::string::npos) continue;
    out += line + "\n";
  }
  return out;
}

TEST(WavesSm, TracingDoesNotChangeTheStatistics) {
  for (const char* program : {"sgemm", "ldg_lut"}) {
    const std::string plain = tessera::test::temp_path(std::string(program) + "_plain.json");
    const std::string traced = tessera::test::temp_path(std::string(program) + "_traced.json");
    const std::string fst = tessera::test::temp_path(std::string(program) + "_all.fst");
    RunResult r = run_tessera({"run", "chip", elf(program), "-q", "--stats", plain});
    ASSERT_EQ(r.status, 0) << r.err;
    r = run_tessera({"run", "chip", elf(program), "-q", "--stats", traced, "--vcd", fst});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string a = stats_without_host(plain), b = stats_without_host(traced);
    EXPECT_GT(a.size(), 1000u);
    EXPECT_TRUE(a == b) << program << ": statistics differ with --vcd";
    std::filesystem::remove(plain);
    std::filesystem::remove(traced);
    std::filesystem::remove(fst);
  }
}

}  // namespace
