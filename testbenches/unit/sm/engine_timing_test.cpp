// The SM engine's timing, in-process: expected cycles derived by hand from
// the rules of docs/architecture.md ("The SM", "Memory system") with the
// default parameters: a block placed in cycle c issues from c + 1; SP
// latency 6 and occupancy 32/32 = 1 cycle; SFU occupancy 32/8 = 4; LD/ST
// occupancy 32/8 = 4; shared-memory latency 28 plus one cycle per extra
// bank pass; L1 hit latency 82; a line answered in cycle t is readable from
// t + 1. The memory port of the harness sends a request the cycle after it
// is queued and answers it 100 cycles later.
#include <gtest/gtest.h>

#include "isa/encoding.h"
#include "unit/sm/sm_harness.h"

using namespace tessera::sm;
using namespace tessera::sm::test;
namespace csr = tessera::isa::csr;

// addi x5 at +0 and an independent addi x6 at +4, then exit. Placed in cycle
// 0, the warp issues +0 in cycle 1; +4 needs the SP unit, busy for 1 cycle,
// so cycle 2; exit (control, no unit) in cycle 3.
TEST(SmEngineTiming, IndependentInstructionIssuesTheNextCycle) {
  SmHarness h({addi(5, 0, 1), addi(6, 0, 2), kExit});
  h.launch(32, 0);
  h.run(1, 10);
  EXPECT_EQ(h.issue_cycle(0), 1u);
  EXPECT_EQ(h.issue_cycle(4), 2u);
  EXPECT_EQ(h.issue_cycle(8), 3u);
  EXPECT_EQ(h.blocks_finished(), 1u);
}

// addi x6, x5 reads x5, written by the addi issued in cycle 1: readable at
// 1 + alu_latency 6 = 7, so it issues in cycle 7; stalls 2..6 are scoreboard
// stalls (5 cycles).
TEST(SmEngineTiming, DependentInstructionWaitsForTheUnitLatency) {
  SmHarness h({addi(5, 0, 1), addi(6, 5, 2), kExit});
  h.launch(32, 0);
  h.run(1, 20);
  EXPECT_EQ(h.issue_cycle(0), 1u);
  EXPECT_EQ(h.issue_cycle(4), 7u);
  EXPECT_EQ(h.sm().partitions()[0].stalls(Stall::kScoreboard), 5u);
  EXPECT_EQ(h.sm().warps()[0].threads[0].x[6], 3u);
}

// addi (SP) then an independent sfu.sin (SFU): both issue in cycle 1, two
// warp instructions in one cycle; exit follows in cycle 2.
TEST(SmEngineTiming, SpAndSfuInstructionsDualIssue) {
  SmHarness h({addi(5, 0, 1), sfu_sin(10, 11), kExit});
  h.launch(32, 0);
  h.run(1, 1);
  EXPECT_EQ(h.sm().warp_insts(), 2u);
  EXPECT_EQ(h.sm().partitions()[0].dual_issued(), 1u);
  h.run(2, 10);
  EXPECT_EQ(h.issue_cycle(8), 2u);
}

TEST(SmEngineTiming, DualIssueOffIssuesTheSfuInstructionNextCycle) {
  SmHarness h({addi(5, 0, 1), sfu_sin(10, 11), kExit}, {"sm.dual_issue=false"});
  h.launch(32, 0);
  h.run(1, 10);
  EXPECT_EQ(h.issue_cycle(4), 2u);
  EXPECT_EQ(h.sm().partitions()[0].dual_issued(), 0u);
}

namespace {
// Each lane loads the shared word at tid.x * stride words, then a dependent
// addi. csrr x5 in cycle 1 (x5 at 7), lui x6 in cycle 2 (x6 at 8), slli x5
// in cycle 7 (x5 at 13), add x6 in cycle 13 (x6 at 19), lw in cycle 19: the
// bank array starts at 19, the result is readable at 19 + 28 + the default
// conflict curve at its passes (2 (passes - 1)).
std::vector<uint32_t> shared_load(unsigned stride_shift) {
  return {csrr(5, csr::kTidX),
          lui(6, 0x20000),
          enc::opimm(1, 5, 5, static_cast<int32_t>(stride_shift)),
          enc::op(0, 0, 6, 6, 5),
          lw(7, 6, 0),
          addi(8, 7, 0),
          kExit};
}
}  // namespace

// Stride 1 word: 32 banks, one pass: the dependent addi issues at 19 + 28 = 47.
TEST(SmEngineTiming, ConflictFreeSharedLoadTakesOnePass) {
  SmHarness h(shared_load(2));
  h.launch(32, 0, 256);
  h.run(1, 60);
  EXPECT_EQ(h.issue_cycle(16), 19u);
  EXPECT_EQ(h.issue_cycle(20), 47u);
}

// Stride 2 words: lanes i and i + 16 meet in bank 2i mod 32 on different
// words, two passes: readable at 19 + 28 + 2 = 49.
TEST(SmEngineTiming, SharedTwoWayBankConflictTakesTwoPasses) {
  SmHarness h(shared_load(3));
  h.launch(32, 0, 256);
  h.run(1, 60);
  EXPECT_EQ(h.issue_cycle(16), 19u);
  EXPECT_EQ(h.issue_cycle(20), 49u);
}

// Two ldg.w of the same word by all 32 lanes: one line, one sector.
// lui x6 in cycle 1 (x6 at 7). The first ldg issues in cycle 7 and misses:
// its fill request leaves in cycle 8, is answered in 108, applied from 109,
// so the dependent addi issues in cycle 109. The second ldg dual-issues with
// it (SP + LD/ST, independent) in 109 and hits: readable hit_latency 82
// cycles after issue, so its dependent addi issues in 109 + 82 = 191.
TEST(SmEngineTiming, L1HitTakesHitLatencyMissWaitsForTheAnswer) {
  SmHarness h({lui(6, kData >> 12), ldg_w(7, 6, 0), addi(8, 7, 0), ldg_w(9, 6, 0), addi(10, 9, 0), kExit});
  h.global().store(kData, 4, 41);
  h.launch(32, 0);
  h.run(1, 250);
  EXPECT_EQ(h.issue_cycle(4), 7u);
  ASSERT_EQ(h.sent().size(), 1u);  // the hit sends nothing
  EXPECT_EQ(h.sent()[0].first, 8u);
  EXPECT_EQ(h.sent()[0].second.sectors, 0x1u);
  EXPECT_EQ(h.issue_cycle(8), 109u);
  EXPECT_EQ(h.sm().partitions()[0].dual_issued(), 1u);
  EXPECT_EQ(h.issue_cycle(16), 191u);
  EXPECT_EQ(h.sm().l1_sector_totals(), (std::pair<uint64_t, uint64_t>{1, 1}));
  EXPECT_EQ(h.sm().warps()[0].threads[3].x[10], 41u);
}

// Two warps (slots 0 and 1, partitions 0 and 1). csrr x5, warpid in cycle 1;
// beq in 7 (x5 at 7). Warp 0 jumps to bar.sync and arrives in cycle 8. Warp
// 1 runs addi x6 in 8 and addi x6, x6 in 14 (x6 at 14), then bar.sync in 15:
// every thread has arrived, both warps run on. Partition 0 ran before
// partition 1 in cycle 15, so warp 0's next instruction issues in 16, and it
// stalled on the barrier in cycles 9..15 (7 cycles).
TEST(SmEngineTiming, BarrierReleasesOnlyWhenEveryWarpArrived) {
  SmHarness h(
      {csrr(5, csr::kWarpid), enc::b(0, 5, 0, 12), addi(6, 0, 1), addi(6, 6, 1), kBarSync, addi(7, 0, 1), kExit});
  h.launch(64, 0);
  h.run(1, 30);
  EXPECT_EQ(h.issue_cycle(16, 0), 8u);
  EXPECT_EQ(h.issue_cycle(16, 1), 15u);
  EXPECT_EQ(h.issue_cycle(20, 0), 16u);
  EXPECT_EQ(h.issue_cycle(20, 1), 16u);
  EXPECT_EQ(h.sm().partitions()[0].stalls(Stall::kBarrier), 7u);
}

// The same two warps, but warp 1 exits where it arrived before: warp 0
// waits at bar.sync (pc 20) from cycle 8 until warp 1's exit in 15 leaves
// only arrived threads (exited threads drop out of the barrier, PTX ISA
// "bar, barrier"), then runs on in 16, after the same 7 stall cycles. Before,
// an exited thread was waited for and the block never finished.
TEST(SmEngineTiming, BarrierReleasesWhenTheOtherWarpExits) {
  SmHarness h({csrr(5, csr::kWarpid), enc::b(0, 5, 0, 16), addi(6, 0, 1), addi(6, 6, 1), kExit, kBarSync, addi(7, 0, 1),
               kExit});
  h.launch(64, 0);
  h.run(1, 30);
  EXPECT_EQ(h.issue_cycle(20, 0), 8u);
  EXPECT_EQ(h.issue_cycle(16, 1), 15u);
  EXPECT_EQ(h.issue_cycle(24, 0), 16u);
  EXPECT_EQ(h.sm().partitions()[0].stalls(Stall::kBarrier), 7u);
  EXPECT_EQ(h.sm().warps()[0].threads[0].x[7], 1u);
  EXPECT_FALSE(h.run_control().stopped());
}

// Even lanes take +12..+16 (addi x7, then jal to +24), odd lanes +20 (addi
// x7); all meet at +24. csrr in 1 (x5 at 7), andi in 7 (x6 at 13), bne in 13.
// The lowest PC runs first: +12 for the 16 even lanes in 14 (x7 at 20), jal
// in 15; then +20 for the 16 odd lanes, whose addi writes x7 too and waits
// for it: cycle 20; then +24 for all 32 lanes in 21.
TEST(SmEngineTiming, DivergentWarpReconvergesAtTheMinimumPc) {
  SmHarness h({csrr(5, csr::kTidX), enc::opimm(7, 6, 5, 1), enc::b(1, 6, 0, 12), addi(7, 0, 1), enc::j(0, 8),
               addi(7, 0, 2), addi(8, 0, 3), kExit});
  h.launch(32, 0);
  h.run(1, 30);
  const std::vector<Issue> expected{{1, 0, 0, 0, 32},   {7, 0, 0, 4, 32},   {13, 0, 0, 8, 32},  {14, 0, 0, 12, 16},
                                    {15, 0, 0, 16, 16}, {20, 0, 0, 20, 16}, {21, 0, 0, 24, 32}, {22, 0, 0, 28, 32}};
  EXPECT_EQ(h.issues(), expected);
  EXPECT_EQ(h.sm().warps()[0].threads[0].x[7], 1u);
  EXPECT_EQ(h.sm().warps()[0].threads[1].x[7], 2u);
}

// An engine without blocks never needs to run; a block placed in cycle 5
// makes it run in 6. addi in 6, the dependent addi waits for 12: after the
// stall in 7, the next event is 12, not 8 (the cycles between are skipped
// and their stalls added in bulk). exit issues in 13, so 14 runs; it finds
// no warp and nothing in flight: never.
TEST(SmEngineTiming, NextEventOfAnIdleEngineIsNever) {
  SmHarness h({addi(5, 0, 1), addi(6, 5, 2), kExit});
  EXPECT_EQ(h.sm().next_event(), SmEngine::kNever);
  h.launch(32, 5);
  EXPECT_EQ(h.sm().next_event(), 6u);
  h.step(6);
  EXPECT_EQ(h.sm().next_event(), 7u);  // it issued: the next cycle may issue again
  h.step(7);
  EXPECT_EQ(h.sm().next_event(), 12u);
  h.step(12);
  EXPECT_EQ(h.issue_cycle(4), 12u);
  EXPECT_EQ(h.sm().partitions()[0].stalls(Stall::kScoreboard), 5u);  // 7 run, 8..11 skipped
  h.step(13);
  EXPECT_TRUE(h.sm().idle());
  EXPECT_EQ(h.sm().next_event(), 14u);
  h.step(14);
  EXPECT_EQ(h.sm().next_event(), SmEngine::kNever);
}

// While the ldg's miss is out (sent in 8, answered in 108), the SM reports
// its warp and the L1 miss; once everything is back and the warp exited,
// nothing.
TEST(SmEngineInFlight, ListsResidentWarpsAndOutstandingMisses) {
  SmHarness h({lui(6, kData >> 12), ldg_w(7, 6, 0), addi(8, 7, 0), kExit});
  h.launch(32, 0);
  h.run(1, 50);
  const std::string s = h.sm().describe_in_flight();
  // The warp waits at the addi for the load's register (ldg at 0x80000004).
  EXPECT_NE(s.find("chip.sm0 warp slot  0: block (0,0,0) warp 0, lanes 0xffffffff, exited 0x00000000; lanes "
                   "0xffffffff run next at 0x80000008: addi\ts0,t2,0; memory groups in flight 1\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("chip.sm0: l1_half0 miss on line 0x80008000: sectors 0x1 requested, 0x0 arrived, 1 waiting\n"),
            std::string::npos)
      << s;
  h.run(51, 200);
  EXPECT_EQ(h.sm().describe_in_flight(), "");
}

// Four warps, one per partition, each dual-issuing addi + sfu.sin in cycle 1
// and exiting in 2: every partition issued 3 instructions, so the
// partitions' issued_warp_insts add up to the SM's 12 warp instructions.
TEST(SmEngineStatistics, PartitionsIssuedInstructionsSumToWarpInstructions) {
  SmHarness h({addi(5, 0, 1), sfu_sin(10, 11), kExit});
  h.launch(128, 0);
  h.run(1, 10);
  uint64_t issued = 0, dual = 0;
  for (const IssueStage& part : h.sm().partitions()) {
    EXPECT_EQ(part.issued(), 3u);
    issued += part.issued();
    dual += part.dual_issued();
  }
  EXPECT_EQ(dual, 4u);
  EXPECT_EQ(h.sm().warp_insts(), 12u);
  EXPECT_EQ(issued, h.sm().warp_insts());
}
