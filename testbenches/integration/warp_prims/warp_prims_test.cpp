// Warp-level primitives on the whole simulator. Cycle numbers are derived by
// hand from the documented SM timing (docs/architecture.md, "The SM" and
// "Warp-level instructions"): one warp instruction per cycle per partition;
// SP latency 6 and occupancy 1; a shuffle occupies the LD/ST slot for
// 32 / 8 = 4 cycles and its result, like a vote's, is readable 6 cycles
// after issue; dual issue of the warp's next instruction when it needs
// another unit and is independent (never after a control instruction:
// syncwarp, bar.red); bar.red's result is readable 6 cycles after the cycle
// the barrier releases; a CSR read of cycle returns its issue cycle.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tessera_run.h"

using tessera::test::parse_results;
using tessera::test::run_tessera;

namespace {

// The programs of firmware/programs are built there; the others here.
std::string fw(const std::string& name) {
  if (name == "warp_reduce" || name == "ballot_compact") return std::string(PROGRAMS_DIR) + "/" + name + ".elf";
  return std::string(FW_DIR) + "/wp_" + name + ".elf";
}
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

std::map<std::string, std::vector<long long>> timing(std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"run", platform("sm1"), fw("warp_timing")};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_tessera(args);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  return parse_results(r.out);
}

long long value(const std::map<std::string, std::vector<long long>>& m, const std::string& key) {
  const auto it = m.find(key);
  if (it == m.end() || it->second.empty()) {
    ADD_FAILURE() << "missing RESULT " << key;
    return -1;
  }
  return it->second[0];
}

const std::vector<std::string> kNoDual{"--set", "sm.dual_issue=false"};

}  // namespace

// 32 dependent shuffles: csrr t0 at C with the first shuffle dual-issued
// (SP + LD/ST); shuffle k at C + 6(k-1); csrr t1 pairs with the last:
// 6 * 31 = 186. Without dual issue: 1 + 186 + 1 = 188.
TEST(WarpPrimsTiming, DependentShufflesTakeTheAluLatencyEach) {
  EXPECT_EQ(value(timing(), "shfl_chain_32"), 186);
  EXPECT_EQ(value(timing(kNoDual), "shfl_chain_32"), 188);
}

// 16 independent shuffles, 4 cycles apart (the LD/ST slot), the first and
// the last paired with the clock reads: 4 * 15 = 60; without dual issue 62.
TEST(WarpPrimsTiming, IndependentShufflesIssueEveryFourCycles) {
  EXPECT_EQ(value(timing(), "shfl_stream_16"), 60);
  EXPECT_EQ(value(timing(kNoDual), "shfl_stream_16"), 62);
}

// 32 dependent votes on the SP unit: no pairing with the SP clock reads:
// vote k at C + 1 + 6(k-1), csrr t1 at C + 1 + 186 + 1 = C + 188.
TEST(WarpPrimsTiming, DependentVotesTakeTheAluLatencyEach) {
  EXPECT_EQ(value(timing(), "vote_chain_32"), 188);
  EXPECT_EQ(value(timing(kNoDual), "vote_chain_32"), 188);
}

// Shuffle/ballot pairs: shuffle 1 pairs with csrr t0 at C, ballot 1 at C+1;
// shuffle k (k >= 2) at C + 4(k-1) with ballot k dual-issued; csrr t1 after
// the last ballot: C + 61. The votes cost nothing beyond the shuffles' 60.
// Without dual issue: shuffle k at C + 1 + 4(k-1), ballot k a cycle later,
// csrr t1 at C + 63.
TEST(WarpPrimsTiming, VotesDualIssueWithShuffles) {
  EXPECT_EQ(value(timing(), "shfl_vote_pairs_16"), 61);
  EXPECT_EQ(value(timing(kNoDual), "shfl_vote_pairs_16"), 63);
}

// A one-warp block: bar.red.popc at C+1 (a control instruction never pairs)
// releases at once, its result readable at C+7; the add at C+7, csrr t1 at
// C+8.
TEST(WarpPrimsTiming, SyncthreadsCountResultAfterReleasePlusAluLatency) {
  EXPECT_EQ(value(timing(), "bar_red_then_add"), 8);
}

// A converged __syncwarp: issued at C+1 (control), csrr t1 at C+2.
TEST(WarpPrimsTiming, ConvergedSyncwarpCostsOneIssueCycle) { EXPECT_EQ(value(timing(), "syncwarp"), 2); }

class WarpPrograms : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(WarpPrograms, PassItsOwnCheck) {
  const auto [program, plat] = GetParam();
  const auto r = run_tessera({"run", platform(plat), fw(program), "--max-cycles", "50000000"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(SmOneAndChip, WarpPrograms,
                         ::testing::Combine(::testing::Values("warp_semantics", "warp_semantics_O0", "warp_reduce",
                                                              "ballot_compact"),
                                            ::testing::Values("sm1", "chip")),
                         [](const ::testing::TestParamInfo<WarpPrograms::ParamType>& p) {
                           return std::string(std::get<0>(p.param)) + "_on_" + std::get<1>(p.param);
                         });

// Lanes 16..31 call __shfl_sync with mask 0x0000ffff: the run stops as a
// guest fault naming the instruction, the lane, the mask and the pc.
TEST(WarpPrimsBadInput, LaneOutsideItsOwnMaskIsReported) {
  const auto r = run_tessera({"run", platform("sm1"), fw("warp_bad_mask")});
  EXPECT_NE(r.status, 0);
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("shfl.idx (lane 16 is not in its own member mask 0x0000ffff)"), std::string::npos) << all;
  EXPECT_EQ(all.find("ran to the end"), std::string::npos) << all;
}
