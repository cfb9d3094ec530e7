// The wide loads and stores and the 64-bit atomics in the whole simulator,
// with cycle numbers derived by hand from docs/firmware-abi.md ("Wide memory
// instructions") and the SM timing rules of docs/architecture.md: shared
// latency 28 plus one cycle per bank pass after the first; shared atomics 36
// plus 2 per extra pass; 32 banks of 4 bytes, a 64-bit access served as two
// half-warps and a 128-bit one as four quarter-warps, at least one pass each
// (CUDA C Programming Guide, "Shared Memory", 64-bit and 128-bit accesses).
//
// Each timed sequence of wide_timing.c is `csrr t0; access; add (reads the
// group's last register); csrr t1`: the access dual-issues with the first
// clock read, the add issues when the group is readable and the second
// clock read the cycle after: t1 - t0 = latency + 1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tessera_run.h"

using tessera::test::parse_results;
using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

struct SimRun {
  int status = 0;
  std::string out, err;
  std::map<std::string, std::vector<long long>> results;
  nlohmann::json stats;
};

SimRun run(const std::string& plat, const std::string& program, std::vector<std::string> extra = {}) {
  const std::string stats = temp_path(program + "_" + plat + ".json");
  std::vector<std::string> args{"run", platform(plat), fw(program), "--stats", stats};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_tessera(args);
  SimRun out{r.status, r.out, r.err, parse_results(r.out), nlohmann::json()};
  if (r.status == 0) out.stats = nlohmann::json::parse(read_file(stats));
  return out;
}

long long value(const SimRun& r, const std::string& key) {
  auto it = r.results.find(key);
  if (it == r.results.end() || it->second.empty()) {
    ADD_FAILURE() << "missing RESULT " << key << "\n" << r.out << r.err;
    return -1;
  }
  return it->second[0];
}

const SimRun& timing() {
  static const SimRun r = run("sm1", "wide_timing");
  return r;
}

// A shared load of `passes` bank passes as timed: sm.shared_latency 28, plus
// the default conflict curve (2,6,14,30,62: two cycles per further pass), plus 1.
long long shared_load(unsigned passes) { return 28 + 2 * (passes - 1) + 1; }

}  // namespace

TEST(WideMemTiming, ScalarBaselineTakesOnePass) {
  ASSERT_EQ(timing().status, 0) << timing().out << timing().err;
  EXPECT_EQ(value(timing(), "shared_lw"), shared_load(1));
}

// 16 lanes x 8 bytes fill the 32 banks once: one pass per half-warp.
TEST(WideMemTiming, SharedLdV2TakesTwoHalfWarpPasses) { EXPECT_EQ(value(timing(), "shared_ld_v2"), shared_load(2)); }

// 8 lanes x 16 bytes fill the banks once: one pass per quarter-warp.
TEST(WideMemTiming, SharedLdV4AndFldV4TakeFourQuarterWarpPasses) {
  EXPECT_EQ(value(timing(), "shared_ld_v4"), shared_load(4));
  EXPECT_EQ(value(timing(), "shared_fld_v4"), shared_load(4));
}

// 16-byte stride with ld.v2: lanes i and i + 8 of each half-warp meet in two
// banks on different words, 2 passes per half-warp. 32-byte stride with
// ld.v4: lanes i and i + 4 of each quarter-warp meet, 2 per quarter.
TEST(WideMemTiming, StridedWideAccessesCountConflictsWithinEachPassGroup) {
  EXPECT_EQ(value(timing(), "shared_ld_v2_stride16"), shared_load(4));
  EXPECT_EQ(value(timing(), "shared_ld_v4_stride32"), shared_load(8));
}

// Every lane the same 8 bytes: a broadcast, but one per half-warp.
TEST(WideMemTiming, SameAddressIsOneBroadcastPassPerHalfWarp) {
  EXPECT_EQ(value(timing(), "shared_ld_v2_same"), shared_load(2));
}

// Consecutive 64-bit counters: two half-warp passes of 2 cycles.
TEST(WideMemTiming, SharedAtomAdd64OnConsecutiveCountersTakesTwoAtomicPasses) {
  EXPECT_EQ(value(timing(), "shared_atom_add64"), 36 + 2 * (2 - 1) + 1);
}

// global_coalescing: ld.v4 of 32 consecutive float4 = 512 bytes = 4 lines
// of 4 sectors; st.v4 of them = 4 lines, 16 sectors written; ld.v2 of 32
// uint2 = 256 bytes = 2 lines, 8 sectors. shared_timing adds lane 0's 8
// result stores (8 lines, 8 sectors written).
TEST(WideMemTiming, WideGlobalAccessesCoalesceIntoFullLines) {
  ASSERT_EQ(timing().status, 0);
  EXPECT_EQ(value(timing(), "global_copy_errors"), 0);
  const auto& sm = timing().stats["chip"]["sm0"];
  EXPECT_EQ(sm["global_sector_reads"].get<uint64_t>(), 16u + 8u);
  EXPECT_EQ(sm["global_sector_writes"].get<uint64_t>(), 16u + 8u);
  EXPECT_EQ(sm["global_line_requests"].get<uint64_t>(), 4u + 4u + 2u + 8u);
}

TEST(WideMemPrograms, Float4VectorAddCopiesAndSharedRoundTripOnSm1AndChip) {
  for (const char* plat : {"sm1", "chip"}) {
    SCOPED_TRACE(plat);
    const SimRun r = run(plat, "wide_vec");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(value(r, "vec_add_checked"), 4096);
    EXPECT_EQ(value(r, "vec_add_errors"), 0);
    EXPECT_EQ(value(r, "copy_errors"), 0);
    EXPECT_EQ(value(r, "shared_errors"), 0);
  }
}

// 512 threads add 0x9000_0000 + g * 0x1_0001 each: 512 * 0x9000_0000 +
// 0x1_0001 * (511 * 512 / 2) = 0x120_0000_0000 + 0x1_0001 * 0x1_FF00
// = 0x120_0000_0000 + 0x1_FF01_FF00 = 0x121_FF01_FF00.
TEST(WideMemPrograms, SixtyFourBitCounterPassesTwoToThe32OnSm1AndChip) {
  for (const char* plat : {"sm1", "chip"}) {
    SCOPED_TRACE(plat);
    const SimRun r = run(plat, "wide_atomic64");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(value(r, "sum_high"), 0x121);
    EXPECT_EQ(value(r, "sum_low"), 0xFF01FF00LL);
    EXPECT_EQ(value(r, "block_sum_ok"), 1);
    EXPECT_EQ(value(r, "max_ok"), 1);
    EXPECT_EQ(value(r, "exch_errors"), 0);
  }
}

TEST(WideMemErrors, ControlCoreWideLoadIsAnIllegalInstruction) {
  const SimRun r = run("sm1", "wide_on_core");
  EXPECT_NE(r.status, 0);
  EXPECT_NE((r.out + r.err).find("illegal instruction"), std::string::npos) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("ld.v2"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("RESULT unreachable"), std::string::npos);
}

// The RTL bank unit's lanes are 32 bits wide: a wide shared access stops the
// run with a guest fault that names the instruction and the setting.
TEST(WideMemErrors, RtlSharedBankUnitRefusesWideSharedAccesses) {
  const auto r = run_tessera({"run", platform("sm1"), fw("wide_vec"), "--set", "sm.shared_impl=rtl"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  const std::string text = r.out + r.err;
  EXPECT_NE(text.find("128-bit shared-memory access at 0x20000"), std::string::npos) << text;
  EXPECT_NE(text.find("fst.v4"), std::string::npos) << text;
  EXPECT_NE(text.find("sm.shared_impl rtl) takes 32-bit lanes only"), std::string::npos) << text;
}
