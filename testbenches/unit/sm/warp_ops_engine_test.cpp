// The warp-level instructions in the SM engine, in-process: timing derived
// by hand from docs/architecture.md ("The SM", "Warp-level instructions")
// with the default parameters (a block placed in cycle c issues from c + 1;
// SP latency 6 and occupancy 1; LD/ST occupancy 32/8 = 4; shuffles occupy
// the LD/ST slot and, like votes, write their result alu_latency 6 cycles
// after issue; bar.red's result is readable 6 cycles after the cycle the
// barrier releases), and the SIMT rules: __syncwarp under divergence and
// exit, the block reductions, and the *_sync member-mask contract.
#include <gtest/gtest.h>

#include "isa/encoding.h"
#include "unit/sm/sm_harness.h"

using namespace tessera::sm;
using namespace tessera::sm::test;
namespace csr = tessera::isa::csr;

namespace {
// .insn r4 0x0B, 2, mode, rd, rs1, rs2, rs3 and .insn r 0x0B, 3, f7, rd, rs1, rs2.
uint32_t shfl(uint32_t mode, uint32_t rd, uint32_t v, uint32_t c, uint32_t m) {
  return m << 27 | mode << 25 | c << 20 | v << 15 | 2u << 12 | rd << 7 | 0x0B;
}
uint32_t warp_r(uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) { return enc::r(0x0B, 3, f7, rd, rs1, rs2); }
uint32_t ballot(uint32_t rd, uint32_t pred, uint32_t mask) { return warp_r(0, rd, pred, mask); }
uint32_t syncwarp(uint32_t mask) { return warp_r(4, 0, mask, 0); }
uint32_t slti(uint32_t rd, uint32_t rs1, int32_t imm) { return enc::opimm(2, rd, rs1, imm); }
uint32_t beq(uint32_t a, uint32_t b, int32_t off) { return enc::b(0, a, b, off); }
uint32_t jal0(int32_t off) { return enc::j(0, off); }
constexpr uint32_t kShflIdx = 0, kShflDown = 2;
}  // namespace

// csrr x5 (laneid) in cycle 1 (x5 at 7), addi x12 = 1 in 2 (at 8), addi x13
// = -1 in 3 (at 9); shfl.down x10 reads all three: cycle 9; the dependent
// addi x11, x10 waits for 9 + 6 = 15.
TEST(WarpOpsTiming, ShuffleResultReadableAfterAluLatency) {
  SmHarness h(
      {csrr(5, csr::kLaneid), addi(12, 0, 1), addi(13, 0, -1), shfl(kShflDown, 10, 5, 12, 13), addi(11, 10, 0), kExit});
  h.launch(32, 0);
  h.run(1, 40);
  EXPECT_EQ(h.issue_cycle(12), 9u);
  EXPECT_EQ(h.issue_cycle(16), 15u);
  EXPECT_EQ(h.blocks_finished(), 1u);
  const auto& t = h.sm().warps()[0].threads;
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(t[l].x[11], l < 31 ? l + 1 : 31u) << l;
}

// Two independent shuffles: the second waits for the LD/ST slot, 32 / 8 = 4
// cycles: 9 and 13. A vote (SP) right after a shuffle dual-issues with it.
TEST(WarpOpsTiming, ShufflesOccupyTheLdstSlotAndDualIssueWithVotes) {
  SmHarness h({csrr(5, csr::kLaneid), addi(12, 0, 1), addi(13, 0, -1), shfl(kShflIdx, 10, 5, 12, 13),
               shfl(kShflIdx, 11, 5, 12, 13), ballot(14, 5, 13), kExit});
  h.launch(32, 0);
  h.run(1, 40);
  EXPECT_EQ(h.issue_cycle(12), 9u);
  EXPECT_EQ(h.issue_cycle(16), 13u);
  EXPECT_EQ(h.sm().partitions()[0].dual_issued(), 1u);  // shfl at +16 with the ballot
  const auto& t = h.sm().warps()[0].threads;
  EXPECT_EQ(t[7].x[10], 1u);           // lane 1's laneid
  EXPECT_EQ(t[7].x[14], 0xFFFFFFFEu);  // every lane but 0 has laneid != 0
}

// if (lane < 16) { syncwarp } else { x7 = 5; syncwarp (another pc) }; then
// both halves read the cycle. Minimum-PC: lanes 0..15 reach +16 first and
// wait; lanes 16..31 run +24, +28, +32; their syncwarp releases all; the
// next cycle the low half's jal (+20) issues; then all 32 lanes at +36.
TEST(WarpOpsSimt, SyncwarpWaitsForTheOtherHalfAtAnotherPc) {
  SmHarness h({csrr(5, csr::kLaneid), slti(6, 5, 16), beq(6, 0, 16), addi(13, 0, -1), syncwarp(13), jal0(16),
               addi(13, 0, -1), addi(7, 0, 5), syncwarp(13), csrr(8, csr::kCycle), kExit});
  h.launch(32, 0);
  h.run(1, 80);
  ASSERT_EQ(h.blocks_finished(), 1u);
  const uint64_t wait = h.issue_cycle(16), release = h.issue_cycle(32);
  EXPECT_LT(wait, h.issue_cycle(24));
  EXPECT_EQ(h.issue_cycle(20), release + 1);
  EXPECT_EQ(h.issue_cycle(36), release + 2);
  for (const Issue& i : h.issues()) {
    if (i.pc == 16 || i.pc == 20) {
      EXPECT_EQ(i.lanes, 16u) << i;
    }
    if (i.pc == 36) {
      EXPECT_EQ(i.lanes, 32u) << i;
    }
  }
  const auto& t = h.sm().warps()[0].threads;
  EXPECT_EQ(t[3].x[7], 0u);
  EXPECT_EQ(t[20].x[7], 5u);
  EXPECT_EQ(t[3].x[8], t[20].x[8]);                               // reconverged: one csrr for all 32
  EXPECT_EQ(h.sm().partitions()[0].stalls(Stall::kBarrier), 0u);  // the other half always had work
}

// if (lane < 16) { syncwarp(all); exit } else exit: lanes 0..15 wait until
// lanes 16..31 exit, which releases them (an exited lane is not waited for).
TEST(WarpOpsSimt, SyncwarpReleasedWhenTheOthersExit) {
  SmHarness h({csrr(5, csr::kLaneid), slti(6, 5, 16), beq(6, 0, 16), addi(13, 0, -1), syncwarp(13), kExit, kExit});
  h.launch(32, 0);
  h.run(1, 60);
  EXPECT_FALSE(h.run_control().stopped()) << h.run_control().message();
  EXPECT_EQ(h.blocks_finished(), 1u);
  EXPECT_LT(h.issue_cycle(24), h.issue_cycle(20));
}

// 64 threads (warps in partitions 0 and 1), predicate tid.x < 40:
// __syncthreads_count = 40, _and = 0, _or = 1. Both warps: csrr in 1 (x5 at
// 7), slti in 7 (x6 at 13), bar.red.popc in 13 (warp 1, in partition 1,
// completes the barrier in cycle 13: x10 readable at 19), bar.red.and in
// 14, bar.red.or in 15, the addi reading x10 in 19.
TEST(WarpOpsTiming, BlockReductionsReturnCountAndOr) {
  SmHarness h({csrr(5, csr::kTidX), slti(6, 5, 40), warp_r(5, 10, 6, 0), warp_r(6, 11, 6, 0), warp_r(7, 12, 6, 0),
               addi(13, 10, 0), kExit});
  h.launch(64, 0);
  h.run(1, 60);
  ASSERT_EQ(h.blocks_finished(), 1u);
  for (int w = 0; w < 2; ++w) {
    SCOPED_TRACE(w);
    EXPECT_EQ(h.issue_cycle(8, w), 13u);
    EXPECT_EQ(h.issue_cycle(12, w), 14u);
    EXPECT_EQ(h.issue_cycle(16, w), 15u);
    EXPECT_EQ(h.issue_cycle(20, w), 19u);
    for (unsigned l = 0; l < 32; ++l) {
      const auto& t = h.sm().warps()[static_cast<unsigned>(w)].threads[l];
      EXPECT_EQ(t.x[10], 40u);
      EXPECT_EQ(t.x[11], 0u);
      EXPECT_EQ(t.x[12], 1u);
      EXPECT_EQ(t.x[13], 40u);
    }
  }
}

// if (lane < 16) shfl(0xffffffff) else exit: lanes 0..15 reach the shuffle
// first (lower pc) and park, since lanes 16..31 are named and can still run;
// those exit, and an exited lane is not waited for: the shuffle runs for
// lanes 0..15 (source lane 0).
TEST(WarpOpsSimt, ShuffleWaitsUntilNamedLanesExit) {
  SmHarness h(
      {csrr(5, csr::kLaneid), slti(6, 5, 16), addi(13, 0, -1), beq(6, 0, 8), shfl(kShflIdx, 10, 5, 0, 13), kExit});
  h.launch(32, 0);
  h.run(1, 60);
  EXPECT_FALSE(h.run_control().stopped()) << h.run_control().message();
  EXPECT_EQ(h.blocks_finished(), 1u);
  EXPECT_LT(h.issue_cycle(20), h.sm().last_cycle());
}

// if (lane >= 16) { x7 = 9; jump back to the shuffle } shfl: lanes 0..15
// reach the shuffle first and park; lanes 16..31 come back to the same pc,
// and all 32 execute it together: every lane reads lane 0's laneid.
TEST(WarpOpsSimt, ShuffleConvergesLanesArrivingFromAnotherPath) {
  SmHarness h({csrr(5, csr::kLaneid), addi(13, 0, -1), slti(6, 5, 16), beq(6, 0, 16), shfl(kShflIdx, 10, 5, 0, 13),
               addi(11, 10, 1), kExit, addi(7, 0, 9), jal0(-16)});
  h.launch(32, 0);
  for (unsigned l = 0; l < 32; ++l) h.sm().warp(0).threads[l].x[10] = 1000;
  h.run(1, 80);
  ASSERT_FALSE(h.run_control().stopped()) << h.run_control().message();
  ASSERT_EQ(h.blocks_finished(), 1u);
  std::vector<unsigned> lanes_at_shfl;
  for (const Issue& i : h.issues())
    if (i.pc == 16) lanes_at_shfl.push_back(i.lanes);
  EXPECT_EQ(lanes_at_shfl, (std::vector<unsigned>{16, 32}));  // the parked attempt, then all together
  const auto& t = h.sm().warps()[0].threads;
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(t[l].x[11], 1u) << l;
    EXPECT_EQ(t[l].x[7], l >= 16 ? 9u : 0u) << l;
  }
  EXPECT_EQ(h.sm().warp_insts(), 4u + 2 + 1 + 1 + 1);  // csrr addi slti beq; addi jal; shfl; addi; exit
}

// if (lane < 16) shfl(0xffffffff) else bar.sync: lanes 16..31 wait at the
// block barrier, which needs lanes 0..15 too: CUDA leaves it undefined (a
// hang); Tessera stops with the lanes named.
TEST(WarpOpsSimt, ShuffleWhoseLanesWaitAtABarrierIsReported) {
  SmHarness h({csrr(5, csr::kLaneid), slti(6, 5, 16), addi(13, 0, -1), beq(6, 0, 12), shfl(kShflIdx, 10, 5, 0, 13),
               kExit, kBarSync, kExit});
  h.launch(32, 0);
  h.run(1, 60);
  ASSERT_TRUE(h.run_control().stopped());
  const std::string& m = h.run_control().message();
  EXPECT_NE(m.find("shfl.idx"), std::string::npos) << m;
  EXPECT_NE(m.find("0xffff0000"), std::string::npos) << m;
  EXPECT_NE(m.find("pc 0x80000010"), std::string::npos) << m;
}

// if (lane < 16) { ballot at +16 } else { ballot at +24 (another register) }:
// two copies of one call, as a compiler may make them. Lanes 0..15 park at
// +16; lanes 16..31 reach +24 and, no other lane being able to run, the
// lanes parked at the same op join them: one ballot for all 32 lanes, each
// copy writing its own destination.
TEST(WarpOpsSimt, CopiesOfOneVoteAtTwoPcsRunTogether) {
  SmHarness h({csrr(5, csr::kLaneid), addi(13, 0, -1), slti(6, 5, 16), beq(6, 0, 12), ballot(10, 6, 13), jal0(8),
               ballot(11, 6, 13), kExit});
  h.launch(32, 0);
  h.run(1, 80);
  ASSERT_FALSE(h.run_control().stopped()) << h.run_control().message();
  ASSERT_EQ(h.blocks_finished(), 1u);
  const auto& t = h.sm().warps()[0].threads;
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(t[l].x[l < 16 ? 10 : 11], 0x0000FFFFu) << l;
  unsigned ballots = 0;
  for (const Issue& i : h.issues()) ballots += (i.pc == 16 || i.pc == 24) ? 1 : 0;
  EXPECT_EQ(ballots, 2u);  // the parked attempt at +16, then the joint one at +24
}
