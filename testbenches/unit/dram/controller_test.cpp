// Controller policies (schedulers, page policies, write draining), refresh
// over long runs, idle-cycle skipping, and the bandwidth acceptance figures.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "dram/traffic.h"
#include "dram_harness.h"

namespace tessera::dram::test {
namespace {

using K = CommandKind;

std::vector<uint32_t> column_order(const CommandLog& log) {
  std::vector<uint32_t> out;
  for (const auto& c : log.commands)
    if (is_column_command(c.kind)) out.push_back(c.column);
  return out;
}

// Three reads to bank 0 queued together: column 1 of row 1, column 2 of
// row 2, column 3 of row 1.
void three_reads(Harness& h) {
  h.read(0, 0, 0, 0, 1, 1);
  h.read(0, 0, 0, 0, 2, 2);
  h.read(0, 0, 0, 0, 1, 3);
  h.run_until(400);
}

TEST(DramScheduler, FrFcfsServesRowHitsBeforeAnOlderConflict) {
  Harness h(Settings{{"scheduler", "fr_fcfs"}});
  three_reads(h);
  EXPECT_EQ(column_order(h.log), (std::vector<uint32_t>{1, 3, 2}));
  EXPECT_EQ(h.log.cycles(K::kAct).size(), 2u);
}

// Bank 0: column 1 of row 1 (opens it), then an older conflict (column 2 of
// row 2), then eight younger hits on row 1 (columns 3-10), all at cycle 0.
void conflict_behind_hits(Harness& h) {
  h.read(0, 0, 0, 0, 1, 1);
  h.read(0, 0, 0, 0, 2, 2);
  for (unsigned c = 3; c <= 10; ++c) h.read(0, 0, 0, 0, 1, c);
  h.run_until(1000);
}

TEST(DramScheduler, FrFcfsWithoutCapServesEveryYoungerHitFirst) {
  Harness h(Settings{{"scheduler", "fr_fcfs"}});
  conflict_behind_hits(h);
  EXPECT_EQ(column_order(h.log), (std::vector<uint32_t>{1, 3, 4, 5, 6, 7, 8, 9, 10, 2}));
}

// With dram.row_hit_cap=2 only columns 3 and 4 pass the older conflict.
// ACT 0; RD 1 at tRCDRD 14, RD 3 at 18, RD 4 at 22 (tCCD_L 4); then the
// conflict may close the row: PRE at max(ACT + tRAS 34, RD 22 + tRTP 4) =
// 34, ACT row 2 at max(PRE + tRP 14, ACT + tRC 48) = 48, its RD at 62; the
// remaining hits of row 1 come after, with the row opened again.
TEST(DramScheduler, FrFcfsRowHitCapBoundsHowManyYoungerHitsPassAConflict) {
  Harness h(Settings{{"scheduler", "fr_fcfs"}, {"row_hit_cap", "2"}});
  conflict_behind_hits(h);
  EXPECT_EQ(column_order(h.log), (std::vector<uint32_t>{1, 3, 4, 2, 5, 6, 7, 8, 9, 10}));
  ASSERT_GE(h.log.cycles(K::kPre).size(), 1u);
  EXPECT_EQ(h.log.cycles(K::kPre)[0], 34u);
  EXPECT_EQ(h.log.cycles(K::kAct)[1], 48u);
  EXPECT_EQ(h.log.cycles(K::kRd)[3], 62u);
  EXPECT_EQ(h.log.cycles(K::kAct).size(), 3u);
}

TEST(DramScheduler, FcfsServesInArrivalOrder) {
  Harness h(Settings{{"scheduler", "fcfs"}});
  three_reads(h);
  EXPECT_EQ(column_order(h.log), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(h.log.cycles(K::kAct).size(), 3u);
}

TEST(DramPagePolicy, OpenPageKeepsTheRowOpen) {
  Harness h(Settings{{"page_policy", "open"}});
  h.read(0, 0, 0, 0, 1);
  h.run_until(1000);
  EXPECT_TRUE(h.log.cycles(K::kPre).empty());
}

TEST(DramPagePolicy, ClosedPagePrechargesAsSoonAsLegal) {
  Harness h(Settings{{"page_policy", "closed"}});
  h.read(0, 0, 0, 0, 1);
  h.run_until(1000);
  // RD at 14; PRE at max(tRAS 34, 14 + tRTP 4) = 34.
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{34}));
}

TEST(DramPagePolicy, ClosedPageKeepsARowThatQueuedRequestsHit) {
  Harness h(Settings{{"page_policy", "closed"}});
  h.read(0, 0, 0, 0, 1, 0);
  h.read(0, 0, 0, 0, 1, 1);
  h.run_until(1000);
  // Both reads hit one ACT (RD 14, RD 18 after tCCD_L); PRE at max(34, 18 + 4) = 34.
  EXPECT_EQ(h.log.cycles(K::kAct).size(), 1u);
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{34}));
}

TEST(DramPagePolicy, AdaptivePageClosesAfterItsTimeout) {
  Harness h(Settings{{"page_policy", "adaptive"}, {"adaptive_timeout", "100"}});
  h.read(0, 0, 0, 0, 1);
  h.run_until(1000);
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{114}));  // last access 14 + 100
}

TEST(DramWriteDrain, WritesDrainBetweenTheWatermarks) {
  Harness h(Settings{{"write_high_watermark", "4"}, {"write_low_watermark", "2"}});
  for (unsigned c = 0; c < 4; ++c) h.write(0, 0, 0, 0, 1, c);
  h.read(0, 0, 0, 0, 1, 9);
  h.run_until(400);
  // 4 writes reach the high watermark: drain 2 down to the low watermark,
  // then the read, then (no reads left) the last two writes.
  EXPECT_EQ(column_order(h.log), (std::vector<uint32_t>{0, 1, 9, 2, 3}));
}

TEST(DramWriteDrain, ReadsGoFirstBelowTheHighWatermark) {
  Harness h(Settings{{"write_high_watermark", "4"}, {"write_low_watermark", "2"}});
  for (unsigned c = 0; c < 3; ++c) h.write(0, 0, 0, 0, 1, c);
  h.read(0, 0, 0, 0, 1, 9);
  h.run_until(400);
  EXPECT_EQ(column_order(h.log), (std::vector<uint32_t>{9, 0, 1, 2}));
}

// Read/write mode per pseudo channel: PC 0 has only writes queued (so it
// drains them) while PC 1 reads. Both target bank group 0, bank 0, row 1.
// Row bus: ACT PC 1 at 0 (the read wins the tie), ACT PC 0 at 2 (tACT_BUS 2;
// tRRD counts per pseudo channel). PC 1: RD at 0 + tRCDRD 14 = 14, then
// tCCD_L 3 apart: 14 17 20 23, exactly as if PC 0 were idle. PC 0: WR at
// 2 + tRCDWR 14 = 16, then 19 22 25. One column command per cycle: no clash.
TEST(DramWriteDrain, PseudoChannelDrainsWritesWhileTheOtherKeepsReading) {
  Harness h;
  for (unsigned c = 0; c < 4; ++c) h.write(0, 0, 0, 0, 1, c);
  for (unsigned c = 0; c < 4; ++c) h.read(0, 1, 0, 0, 1, c);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kAct, 0, 1), (std::vector<uint64_t>{0}));
  EXPECT_EQ(h.log.cycles(K::kAct, 0, 0), (std::vector<uint64_t>{2}));
  EXPECT_EQ(h.log.cycles(K::kRd, 0, 1), (std::vector<uint64_t>{14, 17, 20, 23}));
  EXPECT_EQ(h.log.cycles(K::kWr, 0, 0), (std::vector<uint64_t>{16, 19, 22, 25}));
  EXPECT_TRUE(h.log.cycles(K::kRd, 0, 0).empty());
}

// The same pseudo channel still pays its own turnaround: PC 0 reads row 1
// of bank group 0 and has one write queued (below the high watermark, so it
// waits for the reads); PC 1 reads meanwhile. PC 0: ACT 0, RD 14 17
// (tCCD_L 3); then no reads are left, PC 0 drains: WR at RD 17 + CL 14 +
// BL 2 + tRTRS 2 - CWL 4 = 31. PC 1 (ACT at 2, tACT_BUS): RD 16 19 22 25,
// untouched.
TEST(DramWriteDrain, TurnaroundOfOnePseudoChannelDoesNotDelayTheOther) {
  Harness h;
  h.read(0, 0, 0, 0, 1, 0);
  h.read(0, 0, 0, 0, 1, 1);
  h.write(0, 0, 0, 0, 1, 2);
  for (unsigned c = 0; c < 4; ++c) h.read(0, 1, 0, 0, 1, c);
  h.run_until(200);
  EXPECT_EQ(h.log.cycles(K::kRd, 0, 0), (std::vector<uint64_t>{14, 17}));
  EXPECT_EQ(h.log.cycles(K::kWr, 0, 0), (std::vector<uint64_t>{31}));
  EXPECT_EQ(h.log.cycles(K::kRd, 0, 1), (std::vector<uint64_t>{16, 19, 22, 25}));
}

// Row commands for the other direction. Row 1 of PC 0, bank group 0, bank 0
// (bank A) is opened by a read at cycle 0 (ACT 0, RD 14). At 100: four reads
// hitting row 1 of A, six reads to row 1 of bank group 1, bank 0 (bank C),
// and one write to row 2 of A (one write: PC 0 stays in read mode while its
// reads last).
//   reads of A: RD 100 103 106 109 (tCCD_L 3); C: ACT 100, RD at 100 +
//   tRCDRD 14 = 114, then 117 120 123 126 129 (tCCD_L 3).
//   The write's PRE of A waits for the last read that hits row 1: RD 109 +
//   tRTP 5 = 114 (tRAS long past); its ACT at PRE + tRP 14 = 128, while C
//   is still being read.
//   After RD 129 no reads are left: PC 0 drains; WR at max(ACT 128 +
//   tRCDWR 14 = 142, RD 129 + CL 14 + BL 2 + tRTRS 2 - CWL 4 = 143) = 143.
TEST(DramScheduler, RowForAQueuedWriteIsPreparedWhileReadsAreServed) {
  Harness h;
  h.read(0, 0, 0, 0, 1, 0);
  h.run_until(100);
  for (unsigned c = 1; c <= 4; ++c) h.read(100, 0, 0, 0, 1, c);
  for (unsigned c = 0; c < 6; ++c) h.read(100, 0, 1, 0, 1, c);
  h.write(100, 0, 0, 0, 2, 0);
  h.run_until(400);
  EXPECT_EQ(h.log.cycles(K::kRd), (std::vector<uint64_t>{14, 100, 103, 106, 109, 114, 117, 120, 123, 126, 129}));
  EXPECT_EQ(h.log.cycles(K::kPre), (std::vector<uint64_t>{114}));
  EXPECT_EQ(h.log.cycles(K::kAct), (std::vector<uint64_t>{0, 100, 128}));
  EXPECT_EQ(h.log.cycles(K::kWr), (std::vector<uint64_t>{143}));
}

TEST(DramController, FullQueueRefusesRequests) {
  Harness h(Settings{{"read_queue", "2"}});
  h.read(0, 0, 0, 0, 1, 0);
  h.read(0, 0, 0, 0, 1, 1);
  MemRequest r{99, h.address(0, 0, 0, 1, 2), 32, false};
  EXPECT_FALSE(h.ms->enqueue(r, 0));
  h.run_until(20);  // the first RD (cycle 14) frees an entry
  EXPECT_TRUE(h.ms->enqueue(r, 20));
}

TEST(DramController, RequestsSpanBurstsAndChannels) {
  Harness h;
  // 128 B from 0: four 32 B bursts on channels 0..3 (map ro-ba-co-bg-pc-ch).
  ASSERT_TRUE(h.ms->enqueue(MemRequest{7, 0, 128, false}, 0));
  h.run_until(100);
  for (unsigned ch = 0; ch < 4; ++ch) EXPECT_EQ(h.log.cycles(K::kRd, ch).size(), 1u) << ch;
  EXPECT_EQ(h.done_at.at(7), 30u);  // all four in parallel: tRCD 14 + CL 14 + burst 2
}

// Runs `requests` random 64 B requests (read ratio 0.7) and returns a digest
// of every command and the statistics.
struct RunDigest {
  std::vector<Command> commands;
  uint64_t end = 0, bytes = 0, latency = 0, refreshes = 0, violations = 0;
  double energy = 0;
};

RunDigest run_random(const Settings& settings, uint64_t requests, uint64_t seed, const std::string& spec = "hbm2") {
  DramConfig config = make_config(settings, spec);
  MemorySystem ms(config, nullptr);
  CommandLog log;
  ms.add_observer(&log);
  RandomSource source(ms.capacity(), 64, 0.7, seed);
  const DriveResult r = drive(ms, source, requests, 64);
  ms.finish(r.end_cycle + 5000);
  RunDigest d;
  d.commands = log.commands;
  d.end = r.end_cycle;
  d.bytes = ms.stats().bytes;
  d.latency = ms.stats().read_latency_sum;
  d.refreshes = ms.channel_totals().refab + ms.channel_totals().refsb;
  d.violations = ms.checker().violation_count();
  d.energy = ms.energy().energy().total_pj();
  return d;
}

class SkipIdle : public ::testing::TestWithParam<Settings> {};

TEST_P(SkipIdle, GivesIdenticalResultsToTickingEveryCycle) {
  Settings skip = GetParam(), tick = GetParam();
  skip.push_back({"skip_idle", "true"});
  tick.push_back({"skip_idle", "false"});
  const RunDigest a = run_random(skip, 3000, 11), b = run_random(tick, 3000, 11);
  EXPECT_EQ(a.violations, 0u);
  EXPECT_EQ(b.violations, 0u);
  EXPECT_GT(a.commands.size(), 6000u);
  EXPECT_TRUE(same_commands(a.commands, b.commands));
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.latency, b.latency);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.energy, b.energy);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, SkipIdle,
    ::testing::Values(Settings{}, Settings{{"scheduler", "fcfs"}, {"page_policy", "closed"}, {"refresh", "per_bank"}},
                      Settings{{"page_policy", "adaptive"}, {"refresh", "per_bank"}, {"timing.tREFI", "1000"}},
                      Settings{
                          {"xor_bank_hash", "true"}, {"write_high_watermark", "8"}, {"write_low_watermark", "2"}}));

// FR-FCFS without a cap has its own search (the column command from an
// index of the row hits, the row command from an index of each bank's
// oldest miss, kept up to date as requests come and go and rows open and
// close); a cap no bank reaches in the run makes the controller take the
// loop that walks every transaction as the policy is defined. Both must
// issue the same commands at the same cycles.
class FrFcfsSearch : public ::testing::TestWithParam<Settings> {};

TEST_P(FrFcfsSearch, DecidesAsTheWalkOfEveryTransaction) {
  Settings fast = GetParam(), walk = GetParam();
  walk.push_back({"row_hit_cap", "65535"});
  const RunDigest a = run_random(fast, 4000, 17), b = run_random(walk, 4000, 17);
  EXPECT_EQ(a.violations, 0u);
  EXPECT_GT(a.commands.size(), 8000u);
  EXPECT_TRUE(same_commands(a.commands, b.commands));
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.latency, b.latency);
}

INSTANTIATE_TEST_SUITE_P(Policies, FrFcfsSearch,
                         ::testing::Values(Settings{}, Settings{{"page_policy", "adaptive"}, {"refresh", "per_bank"}},
                                           Settings{{"page_policy", "closed"}, {"timing.tREFI", "1000"}},
                                           Settings{{"write_high_watermark", "8"},
                                                    {"write_low_watermark", "2"},
                                                    {"refresh_postpone", "1"}}));

// Refresh (acceptance): over a long run every pseudo channel refreshes at
// each of its due times, postponed ones included. Pseudo channel pc of
// channel ch of an HBM2 stack falls due at interval + offset, then every
// interval, so by `end` it has refreshed (end - 1 - offset) / interval
// times (integer division: due times before `end`); the offset is 0
// without stagger, pc x interval / 2 with `pseudo_channels` and
// (ch x 2 + pc) x interval / 16 with `all`. The run ends half an interval
// after a due time with an idle tail, so the owed refreshes have had time
// to issue.
void expect_refreshes_match_elapsed_time(const Settings& settings, K kind, uint64_t interval, RefreshStagger stagger) {
  DramConfig config = make_config(settings);
  MemorySystem ms(config, nullptr);
  CommandLog log;
  ms.add_observer(&log);
  RandomSource source(ms.capacity(), 64, 0.8, 5);
  const DriveResult r = drive(ms, source, 20000, 64);
  const uint64_t end = (r.end_cycle / interval + 3) * interval + interval / 2;  // idle tail included
  ms.finish(end);
  EXPECT_EQ(ms.checker().violation_count(), 0u);
  for (unsigned ch = 0; ch < ms.channels(); ++ch)
    for (unsigned pc = 0; pc < 2; ++pc) {
      const uint64_t offset = stagger == RefreshStagger::kAll              ? (ch * 2 + pc) * interval / 16
                              : stagger == RefreshStagger::kPseudoChannels ? pc * interval / 2
                                                                           : 0;
      EXPECT_EQ(log.count(kind, ch, pc), (end - 1 - offset) / interval) << "ch" << ch << " pc" << pc;
    }
}

TEST(DramRefresh, AllBankRefreshesEqualElapsedOverTRefi) {  // tREFI 3900
  expect_refreshes_match_elapsed_time(Settings{{"refresh_stagger", "none"}}, K::kRefAb, 3900, RefreshStagger::kNone);
  expect_refreshes_match_elapsed_time({}, K::kRefAb, 3900, RefreshStagger::kPseudoChannels);  // the default
  expect_refreshes_match_elapsed_time(Settings{{"refresh_stagger", "all"}}, K::kRefAb, 3900, RefreshStagger::kAll);
}

TEST(DramRefresh, PerBankRefreshesEqualElapsedOverTRefiSb) {  // tREFISB 243
  expect_refreshes_match_elapsed_time(Settings{{"refresh", "per_bank"}, {"refresh_stagger", "none"}}, K::kRefSb, 243,
                                      RefreshStagger::kNone);
  expect_refreshes_match_elapsed_time(Settings{{"refresh", "per_bank"}}, K::kRefSb, 243,
                                      RefreshStagger::kPseudoChannels);
  expect_refreshes_match_elapsed_time(Settings{{"refresh", "per_bank"}, {"refresh_stagger", "all"}}, K::kRefSb, 243,
                                      RefreshStagger::kAll);
}

// The default stagger on an idle HBM2 stack: pseudo channel 0 of every
// channel first refreshes at tREFI 3900, pseudo channel 1 half an interval
// later, 3900 + 3900 / 2 = 5850; then every 3900. The eight channels'
// controllers are independent, so the same pseudo channel of each refreshes
// in the same cycle.
TEST(DramRefresh, StaggeredPseudoChannelsOfAChannelRefreshHalfAnIntervalApart) {
  Harness h(Settings{});
  h.run_until(3 * 3900);
  for (unsigned ch = 0; ch < 8; ++ch) {
    EXPECT_EQ(h.log.cycles(K::kRefAb, ch, 0), (std::vector<uint64_t>{3900, 7800})) << "ch" << ch;
    EXPECT_EQ(h.log.cycles(K::kRefAb, ch, 1), (std::vector<uint64_t>{5850, 9750})) << "ch" << ch;
  }
}

// `all` on an idle HBM2 stack: pseudo channel k = channel x 2 + pc first
// refreshes at tREFI 3900 + floor(k x 3900 / 16), k x 243.75 rounded down:
// 0 243 487 731 975 1218 1462 1706 1950 2193 2437 2681 2925 3168 3412 3656;
// then every 3900.
TEST(DramRefresh, StaggeredAllBankRefreshSpreadsPseudoChannelsOverTRefi) {
  Harness h(Settings{{"refresh_stagger", "all"}});
  h.run_until(3 * 3900);
  const uint64_t offsets[16] = {0,    243,  487,  731,  975,  1218, 1462, 1706,
                                1950, 2193, 2437, 2681, 2925, 3168, 3412, 3656};
  for (unsigned ch = 0; ch < 8; ++ch)
    for (unsigned pc = 0; pc < 2; ++pc) {
      const uint64_t o = offsets[ch * 2 + pc];
      EXPECT_EQ(h.log.cycles(K::kRefAb, ch, static_cast<int>(pc)), (std::vector<uint64_t>{3900 + o, 7800 + o}))
          << "ch" << ch << " pc" << pc;
    }
}

// Synchronized (refresh_stagger=none): every pseudo channel falls due at
// 3900; the two of a channel share its row bus, so PC 1 refreshes a cycle
// after PC 0 (3901, 7801).
TEST(DramRefresh, SynchronizedRefreshKeepsPseudoChannelsAligned) {
  Harness h(Settings{{"refresh_stagger", "none"}});
  h.run_until(3 * 3900);
  for (unsigned ch = 0; ch < 8; ++ch) {
    EXPECT_EQ(h.log.cycles(K::kRefAb, ch, 0), (std::vector<uint64_t>{3900, 7800})) << "ch" << ch;
    EXPECT_EQ(h.log.cycles(K::kRefAb, ch, 1), (std::vector<uint64_t>{3901, 7801})) << "ch" << ch;
  }
}

// Elastic refresh (tREFI 1000, synchronized): a read of PC 0 arrives at
// 990 (ACT 990, RD 990 + tRCDRD 14 = 1004). The refresh due at 1000 waits
// while PC 0 has the read queued; from 1005 it has none: PRE at max(ACT +
// tRAS 34 = 1024, RD + tRTP 5 = 1009) = 1024, REFab at PRE + tRP 14 = 1038.
// PC 1, idle, refreshes at 1000. With refresh_postpone=1 the due refresh
// stops the read: the same PRE 1024 and REFab 1038, then ACT at REFab +
// tRFC 350 = 1388 and RD at 1388 + 14 = 1402.
TEST(DramRefresh, DueRefreshWaitsForABusyPseudoChannelUnlessForced) {
  for (const char* postpone : {"8", "1"}) {
    Harness h(Settings{{"timing.tREFI", "1000"}, {"refresh_stagger", "none"}, {"refresh_postpone", postpone}});
    h.read(990, 0, 0, 0, 1);
    h.run_until(1500);
    const bool elastic = std::string(postpone) == "8";
    EXPECT_EQ(h.log.cycles(K::kRefAb, 0, 0), (std::vector<uint64_t>{1038})) << postpone;
    EXPECT_EQ(h.log.cycles(K::kRefAb, 0, 1), (std::vector<uint64_t>{1000})) << postpone;
    EXPECT_EQ(h.log.cycles(K::kPre, 0, 0), (std::vector<uint64_t>{1024})) << postpone;
    EXPECT_EQ(h.log.cycles(K::kRd, 0, 0), (std::vector<uint64_t>{elastic ? 1004u : 1402u})) << postpone;
  }
}

// Per-bank refresh staggers the same way over tREFISB 243: k x 243 / 16,
// i.e. 15.1875 k rounded down (PC 1 of channel 0: 15; PC 0 of channel 4:
// 121), first due at 243 + that.
TEST(DramRefresh, StaggeredPerBankRefreshSpreadsOverTRefiSb) {
  Harness h(Settings{{"refresh", "per_bank"}, {"refresh_stagger", "all"}});
  h.run_until(600);
  EXPECT_EQ(h.log.cycles(K::kRefSb, 0, 0), (std::vector<uint64_t>{243, 486}));
  EXPECT_EQ(h.log.cycles(K::kRefSb, 0, 1), (std::vector<uint64_t>{258, 501}));
  EXPECT_EQ(h.log.cycles(K::kRefSb, 4, 0), (std::vector<uint64_t>{364}));
}

// Acceptance: sequential reads on HBM2 reach at least 90% of the peak.
// Peak = 8 channels x 2 PCs x 32 B per 2-cycle burst / 1 ns = 256 GB/s.
TEST(DramBandwidth, SequentialReadsOnHbm2ReachNinetyPercentOfPeak) {
  DramConfig config = make_config({});
  MemorySystem ms(config, nullptr);
  ASSERT_DOUBLE_EQ(ms.spec().peak_bandwidth_gbps(), 256.0);
  StreamSource source(ms.capacity(), 64, 1.0, 1);
  const DriveResult r = drive(ms, source, 50000, 64);
  ms.finish(r.end_cycle);
  const double gbps = static_cast<double>(ms.stats().bytes) / static_cast<double>(r.end_cycle);  // B/ns
  std::printf("[ figure ] HBM2 stream: %.1f GB/s of 256 GB/s (%.1f%%)\n", gbps, 100.0 * gbps / 256.0);
  EXPECT_GE(gbps, 0.90 * 256.0);
  EXPECT_EQ(ms.checker().violation_count(), 0u);
}

// Acceptance: a 2:1 read:write stream on HBM2 keeps at least 80% of the
// peak with the default queues and watermarks (write drains long enough to
// amortise the write-to-read and read-to-write turnarounds).
TEST(DramBandwidth, TwoToOneStreamOnHbm2ReachesEightyPercentOfPeak) {
  DramConfig config = make_config({});
  MemorySystem ms(config, nullptr);
  StreamSource source(ms.capacity(), 64, 2.0 / 3.0, 1);
  // 400,000 requests, about 32 tREFI: long enough that postponed
  // refreshes are forced and counted.
  const DriveResult r = drive(ms, source, 400000, 64);
  ms.finish(r.end_cycle);
  const double gbps = static_cast<double>(ms.stats().bytes) / static_cast<double>(r.end_cycle);
  std::printf("[ figure ] HBM2 stream 2:1: %.1f GB/s of 256 GB/s (%.1f%%)\n", gbps, 100.0 * gbps / 256.0);
  EXPECT_GE(gbps, 0.80 * 256.0);
  EXPECT_EQ(ms.checker().violation_count(), 0u);
}

// Random reads need an ACT and a PRE per burst. Per PC at most 4 ACTs per
// tFAW (16) and one per tRRD_S (4): 16 PCs x 32 B x 4 / 16 ns = 128 GB/s.
// The row bus both PCs of a channel share takes ACT (tACT_BUS 2) + PRE (1)
// per burst: 8 channels x 32 B / 3 ns = 85.3 GB/s, the tighter bound.
TEST(DramBandwidth, RandomReadsAreActivateBound) {
  DramConfig config = make_config({});
  MemorySystem ms(config, nullptr);
  RandomSource source(ms.capacity(), 64, 1.0, 3);
  const DriveResult r = drive(ms, source, 20000, 64);
  ms.finish(r.end_cycle);
  const double gbps = static_cast<double>(ms.stats().bytes) / static_cast<double>(r.end_cycle);
  const double bound = 8 * 32 / 3.0;
  const ChannelStats s = ms.channel_totals();
  std::printf("[ figure ] HBM2 random: %.1f GB/s, activate bound %.1f GB/s, %.3f ACT per burst\n", gbps, bound,
              static_cast<double>(s.acts) / static_cast<double>(s.reads));
  EXPECT_LE(gbps, bound);
  EXPECT_GE(gbps, 0.6 * bound);
  EXPECT_GE(static_cast<double>(s.acts) / static_cast<double>(s.reads), 0.95);
  EXPECT_EQ(ms.checker().violation_count(), 0u);
}

TEST(DramEnergy, CommandEnergiesFollowTheIddMethod) {
  const DramSpec spec = load_preset("hbm2");
  EnergyModel e(spec);
  // Per PC (half the channel's currents), VDD 1.2 V, tCK 1 ns:
  // ACT+PRE (65 x 48 - 55 x 34 - 40 x 14) x 1.2 / 2 = 690 x 0.6 = 414 pJ;
  // RD (390 - 55) x 1.2 x 2 ns / 2 = 402 pJ; WR (500 - 55) x 1.2 x 2 / 2 = 534 pJ;
  // REFab (250 - 55) x 1.2 x 350 / 2 = 40950 pJ.
  EXPECT_NEAR(e.act_pre_pj(), 414.0, 1e-9);
  EXPECT_NEAR(e.read_burst_pj(), 402.0, 1e-9);
  EXPECT_NEAR(e.write_burst_pj(), 534.0, 1e-9);
  EXPECT_NEAR(e.refab_pj(), 40950.0, 1e-9);
  // Background: one bank open for cycles [10, 60) of a 100-cycle run in
  // PC 0, the other 15 PCs precharged throughout:
  // 50 x 55 x 1.2 / 2 + 50 x 40 x 1.2 / 2 + 15 x 100 x 40 x 1.2 / 2.
  Command act;
  act.cycle = 10;
  act.kind = CommandKind::kAct;
  Command pre = act;
  pre.cycle = 60;
  pre.kind = CommandKind::kPre;
  e.on_command(act);
  e.on_command(pre);
  e.finish(100);
  EXPECT_NEAR(e.energy().background_pj, 50 * 55 * 0.6 + 50 * 40 * 0.6 + 15 * 100 * 40 * 0.6, 1e-6);
  EXPECT_NEAR(e.energy().act_pj, 414.0, 1e-9);
}

}  // namespace
}  // namespace tessera::dram::test
