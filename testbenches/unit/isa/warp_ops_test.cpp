// Semantics of the warp-level instructions over a warp's lanes
// (isa/warp_ops.h): PTX shfl.sync's lane rule with width segments and the
// caller's own value outside them, inactive sources, the member-mask
// contract, votes and activemask under divergence. Expected values are
// derived by hand from the CUDA/PTX rules quoted in each test.
#include <gtest/gtest.h>

#include <array>

#include "isa/isa.h"
#include "isa/warp_ops.h"

namespace tessera::isa {
namespace {

constexpr uint32_t kAll = 0xFFFFFFFFu;
// Registers used below: a0 = 10 (rd), a1 = 11 (value/predicate), a2 = 12
// (lane operand or mask), a3 = 13 (mask).
constexpr uint32_t shfl(uint32_t mode, uint32_t rd = 10, uint32_t rs1 = 11) {
  return 13u << 27 | mode << 25 | 12u << 20 | rs1 << 15 | 2u << 12 | rd << 7 | 0x0B;
}
constexpr uint32_t vote(uint32_t f7) { return f7 << 25 | 12u << 20 | 11u << 15 | 3u << 12 | 10u << 7 | 0x0B; }
// PTX c operand: lane/delta/xor mask in bits 4:0, 32 - width in bits 12:8.
constexpr uint32_t r_activemask() { return 3u << 25 | 3u << 12 | 10u << 7 | 0x0B; }
constexpr uint32_t operand(uint32_t b, uint32_t width) { return (b & 31) | ((32 - width) & 31) << 8; }

struct Lanes {
  std::array<ThreadState, kWarpLanes> t{};
  Lanes(uint32_t b, uint32_t mask) {
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      t[l].x[11] = 100 + l;
      t[l].x[12] = b;
      t[l].x[13] = mask;
      t[l].pc = 0x1000;
    }
  }
  uint32_t run(uint32_t word, uint32_t active, unsigned lane) {
    execute_warp_collective(decode(word), t.data(), active);
    return t[lane].x[10];
  }
};

TEST(WarpOps, ShflIdxReadsSourceLaneModuloWidth) {
  // width 16, srcLane 20: 20 mod 16 = 4 within each 16-lane segment.
  Lanes w(operand(20, 16), kAll);
  execute_warp_collective(decode(shfl(0)), w.t.data(), kAll);
  for (unsigned l = 0; l < 32; ++l) {
    SCOPED_TRACE(l);
    EXPECT_EQ(w.t[l].x[10], 100 + (l < 16 ? 4u : 20u));
    EXPECT_EQ(w.t[l].pc, 0x1004u);
  }
}

TEST(WarpOps, ShflIdxNegativeLaneWrapsModuloWidth) {
  // srcLane -1 with width 8: -1 mod 8 = 7, the segment's last lane.
  Lanes w(operand(static_cast<uint32_t>(-1), 8), kAll);
  execute_warp_collective(decode(shfl(0)), w.t.data(), kAll);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(w.t[l].x[10], 100 + (l & ~7u) + 7) << l;
}

TEST(WarpOps, ShflUpKeepsOwnValueBelowSegmentStart) {
  // width 8, delta 3: lanes 0..2 of each segment keep their own value.
  Lanes w(operand(3, 8), kAll);
  execute_warp_collective(decode(shfl(1)), w.t.data(), kAll);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(w.t[l].x[10], 100 + ((l % 8) >= 3 ? l - 3 : l)) << l;
}

TEST(WarpOps, ShflDownKeepsOwnValuePastSegmentEnd) {
  // width 32, delta 5: lanes 27..31 keep their own value.
  Lanes w(operand(5, 32), kAll);
  execute_warp_collective(decode(shfl(2)), w.t.data(), kAll);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(w.t[l].x[10], 100 + (l + 5 <= 31 ? l + 5 : l)) << l;
}

TEST(WarpOps, ShflDownUsesTheLowFiveBitsOfDelta) {
  // PTX uses b[4:0]: delta 33 moves by 1.
  Lanes w(33, kAll);
  execute_warp_collective(decode(shfl(2)), w.t.data(), kAll);
  EXPECT_EQ(w.t[0].x[10], 101u);
  EXPECT_EQ(w.t[31].x[10], 131u);
}

TEST(WarpOps, ShflXorReachesEarlierSegmentsOnly) {
  // width 16, laneMask 16: lane l reads l ^ 16 when that is at most its
  // segment's last lane: lanes 16..31 read lanes 0..15, lanes 0..15 keep
  // their own value (CUDA: "attempt to access elements from later groups").
  Lanes w(operand(16, 16), kAll);
  execute_warp_collective(decode(shfl(3)), w.t.data(), kAll);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(w.t[l].x[10], 100 + (l < 16 ? l : l - 16)) << l;
  // laneMask 1 at full width: pairs swap.
  Lanes v(operand(1, 32), kAll);
  execute_warp_collective(decode(shfl(3)), v.t.data(), kAll);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(v.t[l].x[10], 100 + (l ^ 1)) << l;
}

TEST(WarpOps, SourceOnlyLanesReportRange) {
  EXPECT_EQ(shfl_source(Op::kShflUp, 2, operand(3, 32)).in_range, false);
  EXPECT_EQ(shfl_source(Op::kShflUp, 2, operand(3, 32)).lane, 2u);
  EXPECT_EQ(shfl_source(Op::kShflDown, 30, operand(1, 32)).lane, 31u);
  EXPECT_EQ(shfl_source(Op::kShflIdx, 9, operand(3, 4)).lane, 11u);  // segment 8..11, lane 3
}

TEST(WarpOps, InactiveOrUnnamedSourceGivesTheCallersOwnValue) {
  // Lanes 0..15 active (an if on lane < 16), all reading lane 20: inactive,
  // so each keeps its own value; inactive lanes' registers are untouched.
  Lanes w(operand(20, 32), 0x0000FFFFu);
  execute_warp_collective(decode(shfl(0)), w.t.data(), 0x0000FFFFu);
  for (unsigned l = 0; l < 16; ++l) EXPECT_EQ(w.t[l].x[10], 100 + l) << l;
  for (unsigned l = 16; l < 32; ++l) {
    EXPECT_EQ(w.t[l].x[10], 0u) << l;
    EXPECT_EQ(w.t[l].pc, 0x1000u) << l;
  }
  // Every lane active, but lane 5's mask leaves out its source lane 7.
  Lanes v(operand(7, 32), kAll);
  v.t[5].x[13] = ~(1u << 7);
  execute_warp_collective(decode(shfl(0)), v.t.data(), kAll);
  EXPECT_EQ(v.t[5].x[10], 105u);
  EXPECT_EQ(v.t[6].x[10], 107u);
}

TEST(WarpOps, ShflReadsEveryValueBeforeWritingAny) {
  // shfl.down a1,a1: each lane reads its neighbour's old a1.
  Lanes w(operand(1, 32), kAll);
  execute_warp_collective(decode(shfl(2, 11, 11)), w.t.data(), kAll);
  for (unsigned l = 0; l < 31; ++l) EXPECT_EQ(w.t[l].x[11], 101 + l) << l;
  EXPECT_EQ(w.t[31].x[11], 131u);
}

TEST(WarpOps, VotesCombineTheActiveLanesOfTheMask) {
  // Active lanes 0..7 (divergence); predicate: odd lanes.
  Lanes w(0, 0);
  const uint32_t active = 0xFFu;
  for (unsigned l = 0; l < 32; ++l) {
    w.t[l].x[11] = l & 1;
    w.t[l].x[12] = active;  // mask: the lanes that take part
  }
  EXPECT_EQ(w.run(vote(0), active, 3), 0xAAu);  // ballot
  EXPECT_EQ(w.run(vote(1), active, 3), 1u);     // any
  EXPECT_EQ(w.run(vote(2), active, 3), 0u);     // all
  // all over the odd lanes only: every one of them votes 1.
  for (unsigned l = 0; l < 32; ++l) w.t[l].x[11] = 1;
  EXPECT_EQ(w.run(vote(2), active, 0), 1u);
  // A mask naming inactive lanes 8..31 does not add them.
  for (unsigned l = 0; l < 32; ++l) w.t[l].x[12] = kAll;
  EXPECT_EQ(w.run(vote(0), active, 0), 0xFFu);
  // activemask: the active lanes whatever the operands.
  EXPECT_EQ(w.run(r_activemask(), 0x00F0000Fu, 2), 0x00F0000Fu);
}

TEST(WarpOps, MemberContractNamesTheOffendingLane) {
  Lanes w(0, kAll);
  const Inst ballot = decode(vote(0));
  for (unsigned l = 0; l < 32; ++l) w.t[l].x[12] = kAll;
  // All 32 live and active: fine.
  EXPECT_TRUE(check_members(ballot, w.t.data(), kAll, kAll).ok);
  // Lanes 16..31 diverged away (live, not active) but named by the mask.
  MemberCheck c = check_members(ballot, w.t.data(), 0x0000FFFFu, kAll);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.lane, 0u);
  EXPECT_FALSE(c.self_missing);
  EXPECT_EQ(c.not_converged, 0xFFFF0000u);
  // The same lanes exited (or never existed): not waited for, fine.
  EXPECT_TRUE(check_members(ballot, w.t.data(), 0x0000FFFFu, 0x0000FFFFu).ok);
  // Lane 3 leaves itself out of its mask.
  w.t[3].x[12] = ~(1u << 3);
  c = check_members(ballot, w.t.data(), kAll, kAll);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.lane, 3u);
  EXPECT_TRUE(c.self_missing);
  // Shuffles take their mask from rs3.
  Lanes v(0, 0x0000FFFFu);
  EXPECT_TRUE(check_members(decode(shfl(0)), v.t.data(), 0x0000FFFFu, kAll).ok);
  EXPECT_FALSE(check_members(decode(shfl(0)), v.t.data(), 0x0001FFFFu, kAll).ok);  // lane 16 not in its mask
}

}  // namespace
}  // namespace tessera::isa
