// DRAM schedulers through their registry: every registered scheduler
// (scheduler_names(), so a new one is tested without a line here) drains
// mixed traffic with the protocol checker on, and decides the same with
// and without idle-cycle skipping; and BLISS's defining behaviour, in
// exact command order on small hand-built queues.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dram/scheduler.h"
#include "dram/traffic.h"
#include "dram_harness.h"

namespace tessera::dram::test {
namespace {

using K = CommandKind;

// Request 2k from a sequential stream, 2k+1 uniformly random: with two
// sources (drive's request k from source k mod 2) source 0 streams and
// source 1 is random.
class StreamAndRandom : public TrafficSource {
 public:
  StreamAndRandom(uint64_t capacity, double read_ratio, uint64_t seed)
      : stream_(capacity, 64, read_ratio, seed), random_(capacity, 64, read_ratio, seed + 1) {}
  bool next(TraceEntry& e) override { return (odd_ = !odd_) ? stream_.next(e) : random_.next(e); }

 private:
  StreamSource stream_;
  RandomSource random_;
  bool odd_ = false;
};

struct MixedRun {
  std::vector<Command> commands;
  uint64_t end = 0, requests = 0, bursts = 0, columns = 0, latency = 0, violations = 0;
  bool idle = false;
};

MixedRun run_mixed(const Settings& settings, uint64_t requests) {
  MemorySystem ms(make_config(settings), nullptr);
  CommandLog log;
  ms.add_observer(&log);
  StreamAndRandom source(ms.capacity(), 0.6, 9);
  const DriveResult r = drive(ms, source, requests, 64, kDefaultSourceWindow, 2);
  ms.finish(r.end_cycle + 5000);
  MixedRun run;
  run.commands = log.commands;
  run.end = r.end_cycle;
  run.requests = ms.stats().requests;
  run.bursts = ms.stats().bursts;
  run.columns = ms.channel_totals().reads + ms.channel_totals().writes;
  run.latency = ms.stats().read_latency_sum;
  run.violations = ms.checker().violation_count();
  run.idle = ms.idle();
  return run;
}

TEST(DramSchedulerRegistry, EveryNameBuildsItsSchedulerAndIsAConfigValue) {
  ASSERT_GE(scheduler_names().size(), 3u);
  for (const std::string& name : scheduler_names()) {
    EXPECT_EQ(make_scheduler(name, SchedulerContext{})->name(), name);
    EXPECT_EQ(make_config({{"scheduler", name}}).controller.scheduler, name);
  }
  try {
    make_scheduler("lifo", SchedulerContext{});
    FAIL() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'lifo' (valid: fr_fcfs, fcfs"), std::string::npos) << e.what();
  }
}

TEST(DramSchedulerRegistry, ParametersAreKeysWithTheirRange) {
  // Every registered parameter reads its default, and a value out of its
  // range is refused naming the key.
  for (const SchedulerInfo* info : schedulers())
    for (const SchedulerParam& p : info->params) {
      EXPECT_EQ(make_config({}).controller.scheduler_params.at(p.key), p.def) << p.key;
      try {
        make_config({{p.key, std::to_string(p.hi + 1)}});
        ADD_FAILURE() << p.key << " above its range accepted";
      } catch (const sim::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("dram.") + p.key), std::string::npos) << e.what();
      }
    }
}

// Write draining with low watermarks (mode switches, rows prepared for the
// other mode) and frequent per-bank refreshes (banks held by a refresh).
const Settings kBusy{
    {"write_high_watermark", "8"}, {"write_low_watermark", "2"}, {"refresh", "per_bank"}, {"timing.tREFISB", "200"}};

class EveryScheduler : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScheduler, DrainsMixedTrafficWithoutAViolation) {
  for (const Settings& extra : {Settings{}, kBusy}) {
    Settings s = extra;
    s.push_back({"scheduler", GetParam()});
    const MixedRun r = run_mixed(s, 3000);
    EXPECT_EQ(r.violations, 0u);
    EXPECT_EQ(r.requests, 3000u);
    EXPECT_EQ(r.bursts, 6000u);  // 64 B requests, 32 B bursts (HBM2)
    EXPECT_EQ(r.columns, r.bursts);
    EXPECT_TRUE(r.idle);
  }
}

TEST_P(EveryScheduler, DecidesTheSameWithAndWithoutIdleSkipping) {
  Settings skip = kBusy, tick = kBusy;
  skip.push_back({"scheduler", GetParam()});
  tick.push_back({"scheduler", GetParam()});
  tick.push_back({"skip_idle", "false"});
  const MixedRun a = run_mixed(skip, 2000), b = run_mixed(tick, 2000);
  EXPECT_GT(a.commands.size(), 4000u);
  EXPECT_TRUE(same_commands(a.commands, b.commands));
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.latency, b.latency);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryScheduler, ::testing::ValuesIn(scheduler_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// ---- BLISS (Subramanian et al., ICCD 2014).

std::vector<uint32_t> columns_in_order(const CommandLog& log) {
  std::vector<uint32_t> out;
  for (const auto& c : log.commands)
    if (is_column_command(c.kind)) out.push_back(c.column);
  return out;
}

void read_by(Harness& h, uint8_t source, uint64_t cycle, unsigned bank, unsigned row, unsigned column) {
  static uint64_t id = 1000;
  const MemRequest r{id++, h.address(0, 0, bank, row, column), h.ms->spec().org.burst_bytes(), false, source};
  ASSERT_TRUE(h.ms->enqueue(r, cycle));
}

// Bank 0 at cycle 0: a streaming source 0 reads column 0 of row 1, a random
// source 1 then reads column 20 of row 2, and source 0 goes on with
// columns 1-9 of row 1.
void stream_and_conflict(Harness& h) {
  read_by(h, 0, 0, 0, 1, 0);
  read_by(h, 1, 0, 0, 2, 20);
  for (unsigned c = 1; c <= 9; ++c) read_by(h, 0, 0, 0, 1, c);
  h.run_until(1000);
}

TEST(DramBliss, FrFcfsLetsTheStreamStarveTheConflict) {
  Harness h(Settings{{"scheduler", "fr_fcfs"}});
  stream_and_conflict(h);
  EXPECT_EQ(columns_in_order(h.log), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20}));
}

// Under BLISS (threshold 4) source 0 is blacklisted by its fourth read in a
// row (column 3), and source 1's conflict then outranks its hits: ACT 0;
// RD 0, 1, 2, 3 at tRCDRD 14, 18, 22, 26 (tCCD_L 4); PRE at max(ACT +
// tRAS 34, RD 26 + tRTP 4) = 34, ACT row 2 at max(PRE + tRP 14, ACT + tRC
// 48) = 48, RD 20 at 48 + 14 = 62; the stream's rest after.
TEST(DramBliss, ASourceServedThresholdTimesInARowLosesToAnother) {
  Harness h(Settings{{"scheduler", "bliss"}, {"bliss_threshold", "4"}});
  stream_and_conflict(h);
  EXPECT_EQ(columns_in_order(h.log), (std::vector<uint32_t>{0, 1, 2, 3, 20, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(h.log.cycles(K::kRd)[4], 62u);
  EXPECT_EQ(h.log.cycles(K::kPre).front(), 34u);
}

TEST(DramBliss, ThresholdTwoBlacklistsAfterTwoReads) {
  Harness h(Settings{{"scheduler", "bliss"}, {"bliss_threshold", "2"}});
  stream_and_conflict(h);
  EXPECT_EQ(columns_in_order(h.log), (std::vector<uint32_t>{0, 1, 20, 2, 3, 4, 5, 6, 7, 8, 9}));
}

// The blacklist lasts until the clearing interval. Source 0 is blacklisted
// by two reads (threshold 2) at cycles 14 and 18. At cycle 40 it reads bank
// 1 (closed) and then source 2 reads bank 2: source 2's ACT goes first
// although younger. At cycle 200 both conflict again in the same order
// (source 0 first); with an interval of 100 the blacklist was cleared at
// cycle 100 and the older request, source 0's, goes first; with one of
// 1000000 source 0 is still blacklisted and loses again.
void blacklist_then_clear(Harness& h) {
  read_by(h, 0, 0, 0, 1, 0);
  read_by(h, 0, 0, 0, 1, 1);
  h.run_until(40);
  read_by(h, 0, 40, 1, 5, 2);
  read_by(h, 2, 40, 2, 6, 3);
  h.run_until(200);
  read_by(h, 0, 200, 1, 7, 4);
  read_by(h, 2, 200, 2, 8, 5);
  h.run_until(1000);
}

TEST(DramBliss, TheBlacklistIsClearedEveryInterval) {
  Harness cleared(Settings{{"scheduler", "bliss"}, {"bliss_threshold", "2"}, {"bliss_clearing_interval", "100"}});
  blacklist_then_clear(cleared);
  EXPECT_EQ(columns_in_order(cleared.log), (std::vector<uint32_t>{0, 1, 3, 2, 4, 5}));
  Harness kept(Settings{{"scheduler", "bliss"}, {"bliss_threshold", "2"}, {"bliss_clearing_interval", "1000000"}});
  blacklist_then_clear(kept);
  EXPECT_EQ(columns_in_order(kept.log), (std::vector<uint32_t>{0, 1, 3, 2, 5, 4}));
}

// With a threshold no source reaches, nothing is blacklisted and BLISS
// ranks as FR-FCFS: the same commands at the same cycles.
TEST(DramBliss, WithoutABlacklistDecidesAsFrFcfs) {
  const MixedRun bliss = run_mixed({{"scheduler", "bliss"}, {"bliss_threshold", "65535"}}, 3000);
  const MixedRun fr_fcfs = run_mixed({{"scheduler", "fr_fcfs"}}, 3000);
  EXPECT_TRUE(same_commands(bliss.commands, fr_fcfs.commands));
  EXPECT_EQ(bliss.latency, fr_fcfs.latency);
}

}  // namespace
}  // namespace tessera::dram::test
