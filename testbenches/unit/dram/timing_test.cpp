// One exact-cycle test per DRAM timing constraint. Each scenario makes the
// constraint under test the only binding one (overriding another parameter
// when two would coincide) and derives the expected cycle by hand from the
// HBM2 preset (models/dram/presets/hbm2.yaml): CL 14, CWL 4, tRCDRD 14,
// tRCDWR 14, tRP 14, tRAS 34, tRC 48, tCCD_S 2, tCCD_L 3, tRRD_S 4,
// tRRD_L 6, tFAW 16, tWTR_S 6, tWTR_L 8, tRTP 5, tWR 16, tRTRS 2, tRFC 350,
// tREFI 3900, tRFCSB 160, tREFISB 243, tRREFD 8, tACT_BUS 2; a BL4 burst
// takes 2 cycles. Every harness ends with a clean protocol check.
#include <gtest/gtest.h>

#include "dram_harness.h"

namespace tessera::dram::test {
namespace {

using K = CommandKind;

TEST(DramTiming, ReadWaitsTRcdRdAfterActivate) {
  Harness h;
  h.read(0, 0, 0, 0, 5);
  h.run_until(100);
  ASSERT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0}));
  EXPECT_EQ(h.log.cycles(K::kRd), (std::vector<uint64_t>{14}));  // ACT 0 + tRCDRD 14
}

TEST(DramTiming, WriteWaitsTRcdWrAfterActivate) {
  Harness h(Settings{{"timing.tRCDWR", "10"}});  // differs from tRCDRD (14)
  h.write(0, 0, 0, 0, 5);
  h.run_until(100);
  EXPECT_EQ(h.log.cycles(K::kWr), (std::vector<uint64_t>{10}));  // ACT 0 + tRCDWR 10
}

TEST(DramTiming, PrechargeWaitsTRasAfterActivate) {
  Harness h;
  h.read(0, 0, 0, 0, 1);  // opens row 1
  h.read(0, 0, 0, 0, 2);  // conflicts: needs PRE
  h.run_until(200);
  // RD row 1 at 14; PRE at max(ACT 0 + tRAS 34, RD 14 + tRTP 5) = 34.
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{34}));
}

TEST(DramTiming, PrechargeWaitsTRtpAfterRead) {
  Harness h(Settings{{"timing.tRTP", "30"}});
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 0, 0, 2);
  h.run_until(200);
  // RD at 14; PRE at max(tRAS 34, 14 + tRTP 30 = 44) = 44.
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{44}));
}

TEST(DramTiming, ActivateWaitsTRpAfterPrecharge) {
  Harness h(Settings{{"timing.tRTP", "30"}});  // pushes PRE past tRAS so tRC does not coincide
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 0, 0, 2);
  h.run_until(200);
  // PRE at 44 (above); ACT row 2 at max(PRE 44 + tRP 14 = 58, ACT 0 + tRC 48) = 58.
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 58}));
}

TEST(DramTiming, ActivateWaitsTRcAfterActivateOfSameBank) {
  Harness h(Settings{{"timing.tRC", "60"}});  // above tRAS + tRP = 48
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 0, 0, 2);
  h.run_until(200);
  // PRE at tRAS 34; ACT at max(34 + tRP 14 = 48, 0 + tRC 60) = 60.
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 60}));
}

TEST(DramTiming, PrechargeWaitsWriteRecovery) {
  Harness h;
  h.write(0, 0, 0, 0, 1);
  h.write(0, 0, 0, 0, 2);
  h.run_until(200);
  // WR at tRCDWR 14; PRE at max(tRAS 34, 14 + CWL 4 + burst 2 + tWR 16 = 36) = 36.
  EXPECT_EQ(h.log.cycles(K::kWr).front(), 14u);
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{36}));
}

TEST(DramTiming, ActivatesInDifferentBankGroupsWaitTRrdS) {
  Harness h;
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 1, 0, 1);
  h.run_until(100);
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 4}));  // tRRD_S 4 (> ACT bus 2)
}

TEST(DramTiming, ActivatesInOneBankGroupWaitTRrdL) {
  Harness h;
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 0, 1, 1);
  h.run_until(100);
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 6}));  // tRRD_L 6
}

TEST(DramTiming, FifthActivateWaitsTFaw) {
  Harness h(Settings{{"timing.tRRD_S", "2"}});  // else tRRD_S (4 x 4 = 16) coincides with tFAW 16
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 1, 0, 1);
  h.read(0, 0, 2, 0, 1);
  h.read(0, 0, 3, 0, 1);
  h.read(0, 0, 0, 1, 1);
  h.run_until(200);
  // Four ACTs tRRD_S 2 apart: 0, 2, 4, 6. The fifth: max(tRRD_L from 0 = 6,
  // tRRD_S from 6 = 8, tFAW from the first = 0 + 16) = 16.
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 2, 4, 6, 16}));
}

TEST(DramTiming, ActivateHoldsTheRowBusTwoCycles) {
  Harness h(Settings{{"timing.tRRD_S", "1"}});
  h.read(0, 0, 0, 0, 1);
  h.read(0, 0, 1, 0, 1);
  h.run_until(100);
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 2}));  // tACT_BUS 2 > tRRD_S 1
}

// Opens row 0 of bank 0 in bank groups 0 and 1 of PC 0; both rows are open
// and idle by cycle 100.
void open_two_rows(Harness& h) {
  h.read(0, 0, 0, 0, 0, 0);
  h.read(0, 0, 1, 0, 0, 0);
  h.run_until(100);
  ASSERT_EQ(h.log.cycles(K::kRd).size(), 2u);
}

TEST(DramTiming, ReadsInOneBankGroupWaitTCcdL) {
  Harness h;
  open_two_rows(h);
  h.read(100, 0, 0, 0, 0, 1);
  h.read(100, 0, 0, 0, 0, 2);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kRd), (std::vector<uint64_t>{14, 18, 100, 103}));  // tCCD_L 3
}

TEST(DramTiming, WritesInOneBankGroupWaitTCcdL) {
  Harness h;
  open_two_rows(h);
  h.write(100, 0, 0, 0, 0, 1);
  h.write(100, 0, 0, 0, 0, 2);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kWr), (std::vector<uint64_t>{100, 103}));  // tCCD_L 3
}

TEST(DramTiming, ReadsInDifferentBankGroupsWaitTCcdS) {
  Harness h(Settings{{"timing.tCCD_S", "3"}});  // above the 2-cycle burst
  open_two_rows(h);
  h.read(100, 0, 0, 0, 0, 1);
  h.read(100, 0, 1, 0, 0, 1);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kRd).back(), 103u);  // RD 100 + tCCD_S 3
}

TEST(DramTiming, ReadsShareTheDataBusOneBurstApart) {
  Harness h(Settings{{"timing.tCCD_S", "1"}});  // below the 2-cycle burst
  open_two_rows(h);
  h.read(100, 0, 0, 0, 0, 1);
  h.read(100, 0, 1, 0, 0, 1);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kRd).back(), 102u);  // RD 100 + burst 2
}

TEST(DramTiming, ReadsInDifferentPseudoChannelsShareOnlyTheColumnBus) {
  Harness h;
  h.read(0, 0, 0, 0, 0, 0);
  h.read(0, 1, 0, 0, 0, 0);
  h.run_until(100);
  h.read(100, 0, 0, 0, 0, 1);
  h.read(100, 1, 0, 0, 0, 1);
  h.run_until(200);
  // Separate data buses; the shared column bus takes one command a cycle.
  EXPECT_EQ(h.log.cycles(K::kRd, 0, 0).back(), 100u);
  EXPECT_EQ(h.log.cycles(K::kRd, 0, 1).back(), 101u);
}

TEST(DramTiming, ReadAfterWriteInOtherBankGroupWaitsTWtrS) {
  Harness h;
  open_two_rows(h);
  h.write(100, 0, 0, 0, 0, 1);
  h.read(101, 0, 1, 0, 0, 1);
  h.run_until(200);
  ASSERT_EQ(h.log.cycles(K::kWr), (std::vector<uint64_t>{100}));
  EXPECT_EQ(h.log.cycles(K::kRd).back(), 112u);  // WR 100 + CWL 4 + burst 2 + tWTR_S 6
}

TEST(DramTiming, ReadAfterWriteInSameBankGroupWaitsTWtrL) {
  Harness h;
  open_two_rows(h);
  h.write(100, 0, 0, 0, 0, 1);
  h.read(101, 0, 0, 0, 0, 2);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kRd).back(), 114u);  // WR 100 + CWL 4 + burst 2 + tWTR_L 8
}

TEST(DramTiming, WriteAfterReadWaitsBusTurnaround) {
  Harness h;
  open_two_rows(h);
  h.read(100, 0, 0, 0, 0, 1);
  h.write(101, 0, 1, 0, 0, 1);
  h.run_until(200);
  ASSERT_EQ(h.log.cycles(K::kRd).back(), 100u);
  // RD 100 + CL 14 + burst 2 + tRTRS 2 - CWL 4 = 114.
  EXPECT_EQ(h.log.cycles(K::kWr), (std::vector<uint64_t>{114}));
}

TEST(DramTiming, RowAndColumnCommandsIssueInTheSameCycle) {
  Harness h;
  h.read(0, 0, 0, 0, 0, 0);
  h.run_until(100);
  h.read(100, 0, 0, 0, 0, 1);  // row hit: RD
  h.read(100, 0, 1, 0, 0, 0);  // closed bank: ACT
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kRd)[1], 100u);
  EXPECT_EQ(h.log.cycles(K::kAct)[1], 100u);
}

// refresh_postpone=1: the due refresh is forced although a read is queued.
TEST(DramTiming, ActivateWaitsTRfcAfterAllBankRefresh) {
  Harness h(Settings{{"timing.tREFI", "1000"}, {"refresh_postpone", "1"}});
  h.read(1000, 0, 0, 0, 1);
  h.run_until(2000);
  // The refresh falls due at tREFI 1000 with all banks closed: REFab at 1000.
  ASSERT_EQ(h.log.cycles(K::kRefAb, 0, 0), (std::vector<uint64_t>{1000}));
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{1350}));  // 1000 + tRFC 350
}

// Synchronized refresh, so both pseudo channels fall due at 1000.
TEST(DramTiming, RefreshWaitsTRpAfterItsPrecharge) {
  Harness h(Settings{{"timing.tREFI", "1000"}, {"refresh_stagger", "none"}});
  h.read(0, 0, 0, 0, 1);  // leaves row 1 open (open page)
  h.run_until(2000);
  EXPECT_EQ(h.log.cycles(K::kPre, 0, 0), (std::vector<uint64_t>{1000}));
  EXPECT_EQ(h.log.cycles(K::kRefAb, 0, 0), (std::vector<uint64_t>{1014}));  // PRE 1000 + tRP 14
  EXPECT_EQ(h.log.cycles(K::kRefAb, 0, 1), (std::vector<uint64_t>{1001}));  // PC 1: row bus after the PRE
}

TEST(DramTiming, ActivateWaitsTRfcSbAfterPerBankRefreshOfItsBank) {
  Harness h(Settings{{"refresh", "per_bank"}, {"refresh_postpone", "1"}});
  h.read(243, 0, 0, 0, 1);  // bank 0: the first REFsb target, due at tREFISB 243
  h.run_until(1000);
  ASSERT_EQ(h.log.cycles(K::kRefSb, 0, 0).front(), 243u);
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{403}));  // 243 + tRFCSB 160
}

TEST(DramTiming, ActivateOfAnotherBankWaitsTRrefdAfterPerBankRefresh) {
  Harness h(Settings{{"refresh", "per_bank"}, {"refresh_postpone", "1"}});
  h.read(243, 0, 0, 1, 1);  // bank 1 of PC 0, not being refreshed
  h.run_until(1000);
  ASSERT_EQ(h.log.cycles(K::kRefSb, 0, 0).front(), 243u);
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{251}));  // 243 + tRREFD 8
}

// The idle controller (acceptance): a row hit returns in CL + burst, a miss
// to a precharged bank in tRCD + CL + burst, a conflict in tRP + tRCD + CL +
// burst, for every speed bin.
class IdleLatency : public ::testing::TestWithParam<std::string> {};

TEST_P(IdleLatency, HitMissAndConflict) {
  Harness h({}, GetParam());
  const Timing& t = h.ms->spec().timing;
  const uint64_t burst = h.ms->spec().org.burst_cycles();
  const uint64_t miss = h.read(0, 0, 0, 0, 1, 0);
  h.run_until(200);
  const uint64_t hit = h.read(200, 0, 0, 0, 1, 1);
  h.run_until(400);
  const uint64_t conflict = h.read(400, 0, 0, 0, 2, 0);
  h.run_until(600);
  EXPECT_EQ(h.done_at.at(miss) - 0, t.tRCDRD + t.CL + burst);
  EXPECT_EQ(h.done_at.at(hit) - 200, t.CL + burst);
  EXPECT_EQ(h.done_at.at(conflict) - 400, t.tRP + t.tRCDRD + t.CL + burst);
}

// Hand-derived values for HBM2: miss 14 + 14 + 2 = 30, hit 14 + 2 = 16,
// conflict 14 + 14 + 14 + 2 = 44 cycles of 1 ns.
TEST(DramTiming, IdleLatenciesOfHbm2InCycles) {
  Harness h;
  const uint64_t miss = h.read(0, 0, 0, 0, 1, 0);
  h.run_until(200);
  const uint64_t hit = h.read(200, 0, 0, 0, 1, 1);
  h.run_until(400);
  const uint64_t conflict = h.read(400, 0, 0, 0, 2, 0);
  h.run_until(600);
  EXPECT_EQ(h.done_at.at(miss), 30u);
  EXPECT_EQ(h.done_at.at(hit), 216u);
  EXPECT_EQ(h.done_at.at(conflict), 444u);
}

// HBM3 at 6.4 Gb/s: tCK 0.625 ns, CL = tRCD = tRP = 23, BL8 in 2 cycles:
// miss 23 + 23 + 2 = 48 cycles (30 ns).
TEST(DramTiming, IdleMissOfHbm3InCycles) {
  Harness h({}, "hbm3");
  const uint64_t miss = h.read(0, 0, 0, 0, 1, 0);
  h.run_until(200);
  EXPECT_EQ(h.done_at.at(miss), 48u);
}

// The base die's crossing adds to every access: hit CL 14 + burst 2 + 10.
TEST(DramTiming, LogicLayerCyclesAddToEveryAccess) {
  Harness h(Settings{{"logic_layer_cycles", "10"}});
  h.read(0, 0, 0, 0, 1, 0);
  h.run_until(200);
  const uint64_t hit = h.read(200, 0, 0, 0, 1, 1);
  h.run_until(400);
  EXPECT_EQ(h.done_at.at(hit) - 200, 26u);
}

INSTANTIATE_TEST_SUITE_P(Specs, IdleLatency, ::testing::Values("hbm2", "hbm2e", "hbm3"));

}  // namespace
}  // namespace tessera::dram::test
