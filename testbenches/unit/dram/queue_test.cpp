// Per-pseudo-channel queues and the source window: one pseudo channel's
// full queue holds back only requests to that pseudo channel. Expected
// cycles derived by hand from the HBM2 preset (tCK 1 ns): tRCDRD 14, CL 14,
// a BL4 burst 2 cycles, tRAS 34, tRP 14, tRC 48.
#include <gtest/gtest.h>

#include <map>

#include "dram/traffic.h"
#include "dram_harness.h"

namespace tessera::dram::test {
namespace {

// The map ro-ba-co-bg-pc-ch puts the channel right above the 32 B burst
// offset and the pseudo channel above it: ch0 pc0, ch0 pc1 and ch1 pc0 are
// three different queues.
TEST(DramQueues, AFullPseudoChannelQueueDoesNotBlockTheOther) {
  Harness h(Settings{{"read_queue", "2"}});
  const uint32_t burst = h.ms->spec().org.burst_bytes();
  EXPECT_TRUE(h.ms->enqueue(MemRequest{0, h.address(0, 0, 0, 1, 0), burst, false}, 0));
  EXPECT_TRUE(h.ms->enqueue(MemRequest{1, h.address(0, 0, 1, 1, 0), burst, false}, 0));
  EXPECT_FALSE(h.ms->enqueue(MemRequest{2, h.address(0, 0, 2, 1, 0), burst, false}, 0)) << "pc0 holds 2 of 2";
  EXPECT_TRUE(h.ms->enqueue(MemRequest{3, h.address(1, 0, 0, 1, 0), burst, false}, 0)) << "pc1 has its own queue";
  EXPECT_TRUE(h.ms->enqueue(MemRequest{4, h.address(1, 0, 1, 1, 0), burst, false}, 0));
  EXPECT_EQ(h.ms->channel(0).queued(0, false), 2u);
  EXPECT_EQ(h.ms->channel(0).queued(1, false), 2u);
  EXPECT_EQ(h.ms->stats().rejected, 1u);
}

// A refused request closes its pseudo channel to younger requests of the
// same cycle, even to the other direction's queue that has room (a write
// behind a waiting read of the same address must not overtake it); other
// pseudo channels stay open, and the next cycle opens it again.
TEST(DramQueues, ARefusedRequestClosesItsPseudoChannelForTheRestOfTheCycle) {
  Harness h(Settings{{"read_queue", "1"}});
  const uint32_t burst = h.ms->spec().org.burst_bytes();
  const uint64_t a = h.address(0, 0, 0, 1, 0), b = h.address(0, 0, 0, 2, 0);
  EXPECT_TRUE(h.ms->enqueue(MemRequest{0, a, burst, false}, 0));
  EXPECT_FALSE(h.ms->enqueue(MemRequest{1, b, burst, false}, 0));
  EXPECT_FALSE(h.ms->enqueue(MemRequest{2, b, burst, true}, 0)) << "pc0 is closed for cycle 0";
  EXPECT_TRUE(h.ms->enqueue(MemRequest{3, h.address(1, 0, 0, 1, 0), burst, true}, 0)) << "pc1 is open";
  EXPECT_TRUE(h.ms->enqueue(MemRequest{2, b, burst, true}, 1)) << "a new cycle opens pc0 again";
  EXPECT_EQ(h.ms->stats().rejected, 2u);
}

// Three one-burst reads at cycle 0 with one read entry per pseudo channel:
// A (ch0 pc0, bank 0, row 1), B (the same bank, row 2) and C (ch1).
//   A: ACT 0, RD 14 (tRCDRD), data ends 14 + CL 14 + 2 = 30; its entry
//      leaves the queue with the RD, so B is accepted at 15.
//   B: PRE at max(ACT 0 + tRAS 34, RD 14 + tRTP 5) = 34, ACT at
//      max(34 + tRP 14, 0 + tRC 48) = 48, RD 62, data ends 78.
//   C, window 1: waits behind B, accepted at 15: ACT 15, RD 29, ends 45.
//   C, window 2: passes B, accepted at 0: ACT 0 on ch1, RD 14, ends 30.
std::map<uint64_t, uint64_t> three_reads_done(unsigned window) {
  DramConfig config = make_config(Settings{{"read_queue", "1"}});
  std::map<uint64_t, uint64_t> done;
  MemorySystem ms(config, [&](uint64_t id, uint64_t cycle) { done[id] = cycle; });
  DramAddress a;
  const auto at = [&](unsigned channel, unsigned row) {
    a.channel = channel;
    a.row = row;
    return ms.address_map().encode(a);
  };
  TraceSource source(
      {TraceEntry{0, false, at(0, 1), 1}, TraceEntry{0, false, at(0, 2), 2}, TraceEntry{0, false, at(1, 0), 3}});
  const DriveResult r = drive(ms, source, 3, ms.spec().org.burst_bytes(), window);
  ms.finish(r.end_cycle + 1);
  EXPECT_EQ(ms.checker().violation_count(), 0u);
  EXPECT_EQ(r.requests, 3u);
  return done;
}

TEST(DramSource, InOrderSourceStallsOnTheFirstFullQueue) {
  EXPECT_EQ(three_reads_done(1), (std::map<uint64_t, uint64_t>{{0, 30}, {1, 78}, {2, 45}}));
}

TEST(DramSource, WindowLetsAYoungerRequestPassOneWaitingForAFullQueue) {
  EXPECT_EQ(three_reads_done(2), (std::map<uint64_t, uint64_t>{{0, 30}, {1, 78}, {2, 30}}));
  EXPECT_EQ(three_reads_done(kDefaultSourceWindow), three_reads_done(2));
}

// drive() offers only the requests at the head of every pseudo channel
// they use; the reference below offers every waiting request each cycle,
// oldest first, and lets MemorySystem::enqueue refuse the rest. Both must
// accept the same requests at the same cycles: random 100-byte requests
// (each spans 4 or 5 bursts over several channels) into 2-entry queues.
DriveResult drive_by_scanning(MemorySystem& ms, TrafficSource& source, uint64_t max_requests, uint32_t bytes,
                              unsigned window) {
  DriveResult result;
  uint64_t generated = 0;
  TraceEntry e;
  bool have = source.next(e);
  std::vector<MemRequest> waiting;
  uint64_t t = 0;
  while (have || !waiting.empty() || !ms.idle()) {
    std::vector<MemRequest> kept;
    for (const MemRequest& r : waiting)
      if (ms.enqueue(r, t)) {
        ++result.requests;
      } else {
        kept.push_back(r);
      }
    while (have && kept.size() < window) {
      const MemRequest r{generated++, e.address, bytes, e.is_write};
      have = generated < max_requests && source.next(e);
      if (ms.enqueue(r, t)) {
        ++result.requests;
      } else {
        kept.push_back(r);
      }
    }
    waiting = kept;
    ms.advance_to(t + 1);
    t = std::max(ms.next_event_cycle(), t + 1);
  }
  result.end_cycle = std::max(ms.stats().last_done, ms.now());
  return result;
}

TEST(DramSource, OfferingOnlyQueueHeadsAcceptsWhatScanningEveryWaitingRequestDoes) {
  const DramConfig config = make_config(
      Settings{{"read_queue", "2"}, {"write_queue", "2"}, {"write_high_watermark", "2"}, {"write_low_watermark", "1"}});
  std::map<uint64_t, uint64_t> done[2];
  CommandLog logs[2];
  for (int scan = 0; scan < 2; ++scan) {
    MemorySystem ms(config, [&](uint64_t id, uint64_t cycle) { done[scan][id] = cycle; });
    ms.add_observer(&logs[scan]);
    RandomSource source(ms.capacity(), 100, 0.7, 11);
    const DriveResult r = scan ? drive_by_scanning(ms, source, 3000, 100, 16) : drive(ms, source, 3000, 100, 16);
    EXPECT_EQ(r.requests, 3000u);
    ms.finish(r.end_cycle + 1);
    EXPECT_EQ(ms.checker().violation_count(), 0u);
  }
  EXPECT_EQ(done[0], done[1]);
  ASSERT_EQ(logs[0].commands.size(), logs[1].commands.size());
  EXPECT_GT(logs[0].commands.size(), 20000u);
  for (size_t i = 0; i < logs[0].commands.size(); ++i) {
    const Command &x = logs[0].commands[i], &y = logs[1].commands[i];
    ASSERT_TRUE(x.cycle == y.cycle && x.kind == y.kind && x.channel == y.channel && x.pc == y.pc &&
                x.bank_group == y.bank_group && x.bank == y.bank && x.row == y.row && x.column == y.column)
        << "command " << i << " at cycle " << x.cycle << " differs";
  }
}

TEST(DramSource, ZeroWindowIsRefused) {
  DramConfig config = make_config({});
  MemorySystem ms(config, nullptr);
  TraceSource source({});
  EXPECT_THROW(drive(ms, source, 1, 32, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::dram::test
