// Controller policies (schedulers, page policies, write draining), refresh
// over long runs, idle-cycle skipping, and the bandwidth acceptance figures.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

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

bool same_commands(const std::vector<Command>& a, const std::vector<Command>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Command &x = a[i], &y = b[i];
    if (x.cycle != y.cycle || x.kind != y.kind || x.channel != y.channel || x.pc != y.pc ||
        x.bank_group != y.bank_group || x.bank != y.bank || x.row != y.row || x.column != y.column)
      return false;
  }
  return true;
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

// Refresh (acceptance): over a long run the REF commands per pseudo
// channel equal the elapsed time / tREFI. The run ends half an interval
// after a due time, so the last due refresh has had time to issue.
void expect_refreshes_match_elapsed_time(const Settings& settings, K kind, uint64_t interval) {
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
    for (unsigned pc = 0; pc < 2; ++pc) EXPECT_EQ(log.count(kind, ch, pc), end / interval) << "ch" << ch << " pc" << pc;
}

TEST(DramRefresh, AllBankRefreshesEqualElapsedOverTRefi) {
  expect_refreshes_match_elapsed_time({}, K::kRefAb, 3900);  // tREFI of HBM2
}

TEST(DramRefresh, PerBankRefreshesEqualElapsedOverTRefiSb) {
  expect_refreshes_match_elapsed_time(Settings{{"refresh", "per_bank"}}, K::kRefSb, 243);  // tREFISB
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
