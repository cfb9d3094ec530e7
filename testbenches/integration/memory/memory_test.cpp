// The SM memory system with cycle numbers derived by hand from the timing
// rules in docs/architecture.md ("Memory system") and the default
// parameters: shared-memory latency 28 (+1 cycle per extra bank pass),
// shared atomics 36 (+2 per extra pass), L1 hit 82, crossbar 48 cycles per
// direction at 32 bytes/cycle, L2 hit 123, memory 200 cycles + 1 transfer
// cycle for a 32-byte sector (64 bytes/cycle).
//
// Each timed sequence is `csrr t0; load; add (uses the load); csrr t1`: the
// load dual-issues with the first clock read (another unit, independent), the
// add issues when the loaded value is readable, and the second clock read
// issues the cycle after the add (same SP unit): t1 - t0 = latency + 1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tessera_run.h"

using tessera::test::parse_results;
using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

struct TimingRun {
  std::map<std::string, std::vector<long long>> results;
  nlohmann::json stats;
};

TimingRun run_timing(std::vector<std::string> extra = {}) {
  const std::string stats = temp_path("mem_timing.json");
  std::vector<std::string> args{"run", platform("sm1"), fw("mem_timing"), "--stats", stats};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_tessera(args);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  return TimingRun{parse_results(r.out), nlohmann::json::parse(read_file(stats))};
}

// The i-th RESULT line with this name.
long long value(const TimingRun& run, const std::string& key, size_t i = 0) {
  auto it = run.results.find(key);
  if (it == run.results.end() || it->second.size() <= i) {
    ADD_FAILURE() << "missing RESULT " << key << " #" << i;
    return -1;
  }
  return it->second[i];
}

const TimingRun& defaults() {
  static const TimingRun run = run_timing();
  return run;
}

// Latency of a shared-memory load that needs `passes` bank passes, as seen
// by the timed sequence: sm.shared_latency 28, plus the default conflict
// curve (2,6,14,30,62: two cycles per further pass), plus 1.
long long shared_load(unsigned passes) { return 28 + 2 * (passes - 1) + 1; }

}  // namespace

TEST(SharedBanks, StrideOneAndThreeAreConflictFree) {
  EXPECT_EQ(value(defaults(), "shared_stride1"), shared_load(1));
  EXPECT_EQ(value(defaults(), "shared_stride3"), shared_load(1));
}

TEST(SharedBanks, StrideTwoIsATwoWayConflict) { EXPECT_EQ(value(defaults(), "shared_stride2"), shared_load(2)); }

TEST(SharedBanks, PowerOfTwoStridesTakeOnePassPerWay) {
  EXPECT_EQ(value(defaults(), "shared_stride4"), shared_load(4));
  EXPECT_EQ(value(defaults(), "shared_stride8"), shared_load(8));
  EXPECT_EQ(value(defaults(), "shared_stride16"), shared_load(16));
  EXPECT_EQ(value(defaults(), "shared_stride32"), shared_load(32));
}

TEST(SharedBanks, PermutationIsConflictFreeAndOneWordIsABroadcast) {
  EXPECT_EQ(value(defaults(), "shared_permutation"), shared_load(1));
  EXPECT_EQ(value(defaults(), "shared_broadcast"), shared_load(1));
}

// Atomics: every lane's read-modify-write is a pass of 2 cycles at its bank.
// One word: 32 passes, 36 + 2 * 31 + 1 = 99. Distinct banks: 36 + 1 = 37.
TEST(SharedBanks, AtomicsToOneWordSerializeAtTheBank) {
  EXPECT_EQ(value(defaults(), "shared_atomic_one_word"), 36 + 2 * 31 + 1);
  EXPECT_EQ(value(defaults(), "shared_atomic_stride1"), 36 + 1);
}

TEST(SharedBanks, StatisticsCountPassesBroadcastsAndAtomics) {
  const auto& sm = defaults().stats["chip"]["sm0"];
  // Two timed accesses per launch; the atomic launches also count theirs.
  const auto& passes = sm["shared_passes"];
  EXPECT_EQ(passes[32].get<uint64_t>(), 2u * 2u);  // stride 32 and the one-word atomic
  EXPECT_EQ(passes[16].get<uint64_t>(), 2u);
  EXPECT_EQ(sm["shared_atomic_warp_insts"].get<uint64_t>(), 4u);
  EXPECT_EQ(sm["shared_atomic_ops"].get<uint64_t>(), 4u * 32u);
  EXPECT_GE(sm["shared_broadcasts"].get<uint64_t>(), 2u);
}

// The chains: 8 dependent loads, each in its own line.
// L1 hit: 82 each: 8 * 82 + 1.
// Memory (L1 and L2 miss): the request leaves the SM the cycle after issue
// (t+1), the crossbar admits it at t+2, carries its 8 bytes in one cycle and
// 48 of latency (slice at t+51), the slice misses and sends the sector to
// memory the same cycle; memory answers after 1 transfer + 200 cycles
// (t+252), the slice sees it at t+253 and answers at t+376, the crossbar
// carries 40 bytes in 2 cycles + 48 (t+426), the value is readable at t+427.
// L2 hit: the slice answers at t+51+123 = t+174, readable at t+225.
TEST(L1, LdgMissesToMemoryThenHits) {
  EXPECT_EQ(value(defaults(), "chase_ldg_cold"), 8 * 427 + 1);
  EXPECT_EQ(value(defaults(), "chase_ldg_warm"), 8 * 82 + 1);
}

TEST(L1, OrdinaryLoadsBypassL1AndHitInL2) {
  EXPECT_EQ(value(defaults(), "chase_plain_cold"), 8 * 427 + 1);
  EXPECT_EQ(value(defaults(), "chase_plain_warm"), 8 * 225 + 1);
}

TEST(L1, OrdinaryLoadsHitInL1WhenCachingIsOn) {
  const TimingRun run = run_timing({"--set", "l1.cache_global_loads=true"});
  EXPECT_EQ(value(run, "chase_plain_cold"), 8 * 427 + 1);
  EXPECT_EQ(value(run, "chase_plain_warm"), 8 * 82 + 1);
}

// The second launch of the chase kernel: L1 starts empty again, so the first
// ldg chain misses L1, but hits in L2 (225 per link); then L1 hits.
TEST(L1, IsInvalidatedAtEachKernelLaunch) {
  EXPECT_EQ(value(defaults(), "chase_ldg_cold", 1), 8 * 225 + 1);
  EXPECT_EQ(value(defaults(), "chase_ldg_warm", 1), 8 * 82 + 1);
  EXPECT_EQ(value(defaults(), "chase_plain_warm", 1), 8 * 225 + 1);
}

// The unbalanced kernel loads only from partitions 0 and 1 (16 ldg each, one
// line per warp load); the two chase launches add 32 ldg from warp 0. Half 0
// serves all 64, half 1 none.
TEST(L1, PerHalfStatisticsExposeImbalance) {
  const auto& sm = defaults().stats["chip"]["sm0"];
  EXPECT_EQ(sm["l1_half0"]["requests"].get<uint64_t>(), 64u);
  EXPECT_EQ(sm["l1_half1"]["requests"].get<uint64_t>(), 0u);
}

// Shared and global atomics of atomic_counter on four SMs: one ticket per
// thread from the global counter (executed in the L2 slices' atomic units)
// and one count per thread in shared memory (beside the banks).
TEST(Atomics, GlobalAtomicsRunAtL2AndSharedOnesBesideTheBanks) {
  const std::string stats = temp_path("atomics.json");
  const auto r =
      run_tessera({"run", platform("chip"), std::string(PROGRAMS_DIR) + "/atomic_counter.elf", "--stats", stats});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(read_file(stats));
  uint64_t l2_ops = 0, shared_ops = 0, sp = 0, ldst = 0, shared_atomic_insts = 0;
  for (const auto& [name, group] : j["chip"]["l2"].items())
    if (name.rfind("slice", 0) == 0) l2_ops += group["atomic_ops"].get<uint64_t>();
  for (const auto& [name, group] : j["chip"].items()) {
    if (name.rfind("sm", 0) != 0) continue;
    shared_ops += group["shared_atomic_ops"].get<uint64_t>();
    shared_atomic_insts += group["shared_atomic_warp_insts"].get<uint64_t>();
    sp += group["sp_warp_insts"].get<uint64_t>();
    ldst += group["ldst_warp_insts"].get<uint64_t>();
  }
  EXPECT_EQ(l2_ops, 32u * 128u);
  EXPECT_EQ(shared_ops, 32u * 128u);
  EXPECT_EQ(shared_atomic_insts, 32u * 4u);  // one per warp
  EXPECT_GE(ldst, shared_atomic_insts);      // they issue on the LD/ST path
  EXPECT_GT(sp, 0u);
}

// The latency microbenchmarks (firmware/microbench, Mei and Chu's pointer
// chasing) against the figures published for Maxwell: conflict-free shared
// memory 28 cycles, 2, 4, 8, 16 and 32-way conflicts 30.02, 34.02, 42.03,
// 58.03 and 90.03, L1 hit 82, L2 hit 225; the calibration must stay within
// 10% (docs/validation.md).
double microbench(const std::string& out, const std::string& name) {
  const std::string key = "RESULT " + name + " ";
  const auto at = out.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << "missing " << key << " in " << out;
    return -1;
  }
  return std::stod(out.substr(at + key.size()));
}

TEST(Calibration, MicrobenchmarksMatchPublishedMaxwellLatencies) {
  const std::string dir = PROGRAMS_DIR;
  const auto smem = run_tessera({"run", platform("sm1"), dir + "/smem_latency.elf", "-q"});
  const auto mem = run_tessera({"run", platform("sm1"), dir + "/mem_latency.elf", "-q"});
  ASSERT_EQ(smem.status, 0) << smem.err;
  ASSERT_EQ(mem.status, 0) << mem.err;
  EXPECT_NEAR(microbench(smem.out, "smem_conflict_1"), 28.0, 2.8);
  EXPECT_NEAR(microbench(mem.out, "l1_hit"), 82.0, 8.2);
  EXPECT_NEAR(microbench(mem.out, "l2_hit"), 225.0, 22.5);
  const std::pair<const char*, double> conflicts[] = {{"smem_conflict_2", 30.015625},
                                                      {"smem_conflict_4", 34.015625},
                                                      {"smem_conflict_8", 42.025},
                                                      {"smem_conflict_16", 58.025},
                                                      {"smem_conflict_32", 90.025}};
  for (const auto& [name, published] : conflicts)
    EXPECT_NEAR(microbench(smem.out, name), published, 0.1 * published) << name;
  // Two cycles per further pass: 32-way costs 62 more cycles than none.
  EXPECT_NEAR(microbench(smem.out, "smem_conflict_32") - microbench(smem.out, "smem_conflict_1"), 62.0, 0.5);
}

TEST(BadInput, SharedAccessOutsideTheAllocationFaults) {
  const auto r = run_tessera({"run", platform("sm1"), fw("shared_oob")});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("0x20000040"), std::string::npos) << r.err;  // thread 16's word
  EXPECT_NE(r.err.find("64 bytes of shared memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("block (0,0,0)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("thread (16,0,0)"), std::string::npos) << r.err;
}

TEST(BadInput, BlockAskingForMoreSharedMemoryThanAnSmHasIsRefusedAtLaunch) {
  const auto r = run_tessera({"run", platform("sm1"), fw("shared_too_big")});
  EXPECT_EQ(r.status, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("70000 bytes of shared memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sm.shared_bytes=65536"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("should have been refused"), std::string::npos) << r.out;
}

TEST(BadInput, NetworkTooSmallForTheSmsAndSlicesIsAConfigurationError) {
  const auto r = run_tessera({"run", platform("chip_noc"), fw("mem_timing"), "--set", "noc.k=2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("noc.k"), std::string::npos) << r.err;
}

TEST(BadInput, CacheGeometryThatDoesNotDivideIsAConfigurationError) {
  const auto l1 = run_tessera({"run", platform("sm1"), fw("mem_timing"), "--set", "l1.ways=5"});
  EXPECT_EQ(l1.status, 2);
  EXPECT_NE(l1.err.find("l1.size_kb"), std::string::npos) << l1.err;
  const auto l2 = run_tessera({"run", platform("sm1"), fw("mem_timing"), "--set", "l2.ways=7"});
  EXPECT_EQ(l2.status, 2);
  EXPECT_NE(l2.err.find("l2.size_kb"), std::string::npos) << l2.err;
}
