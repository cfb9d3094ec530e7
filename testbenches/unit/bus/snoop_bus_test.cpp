// The snoop bus's bookkeeping: tags in the request table, one transaction
// per line, snoops resolved in grant order, the request and response buses'
// occupancy.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bus/snoop_bus.h"

namespace tessera::bus::test {
namespace {

std::string name(uint32_t agent) { return "agent" + std::to_string(agent); }

SnoopBus::Txn& take(SnoopBus& bus, uint32_t tag, uint64_t line, uint64_t resolve_at) {
  SnoopBus::Txn& t = bus.txn(tag);
  t = SnoopBus::Txn{};
  t.valid = true;
  t.line = line;
  t.op = mem::BusOp::kBusRd;
  t.resolve_at = resolve_at;
  return t;
}

TEST(SnoopBus, TagsAreTheLowestFreeEntries) {
  SnoopBus bus("round_robin", 4, 2);
  EXPECT_TRUE(bus.table_empty());
  EXPECT_EQ(bus.free_tag(), 0);
  take(bus, 0, 0x40, 2);
  EXPECT_EQ(bus.free_tag(), 1);
  take(bus, 1, 0x80, 3);
  EXPECT_TRUE(bus.table_full());
  EXPECT_EQ(bus.free_tag(), -1);
  bus.free(0);
  EXPECT_FALSE(bus.table_full());
  EXPECT_EQ(bus.free_tag(), 0);
}

TEST(SnoopBus, ALineWithATransactionInFlightIsNotFree) {
  SnoopBus bus("round_robin", 4, 4);
  EXPECT_TRUE(bus.line_free(0x40));
  take(bus, 2, 0x40, 5);
  EXPECT_FALSE(bus.line_free(0x40));
  EXPECT_TRUE(bus.line_free(0x80));
  bus.free(2);
  EXPECT_TRUE(bus.line_free(0x40));
}

TEST(SnoopBus, SnoopsResolveInGrantOrder) {
  SnoopBus bus("round_robin", 4, 4);
  EXPECT_FALSE(bus.snooping());
  EXPECT_EQ(bus.next_snoop(), SnoopBus::kNever);
  // Granted at cycles 10 (a BusUpd: two bus cycles) and 12, snoop latency 2.
  take(bus, 3, 0x40, 12);
  bus.granted(3, 12);
  EXPECT_EQ(bus.request_free_at(), 12u);
  take(bus, 1, 0x80, 14);
  bus.granted(1, 13);
  EXPECT_EQ(bus.request_free_at(), 13u);
  EXPECT_EQ(bus.next_snoop(), 12u);
  EXPECT_EQ(bus.pop_snoop(), 3u);
  EXPECT_EQ(bus.next_snoop(), 14u);
  EXPECT_EQ(bus.pop_snoop(), 1u);
  EXPECT_FALSE(bus.snooping());
}

TEST(SnoopBus, TheResponseBusCarriesOneLineAtATime) {
  SnoopBus bus("round_robin", 4, 4);
  EXPECT_FALSE(bus.responding());
  auto r = std::make_unique<BusResponse>(BusResponse{2, 1, 20, true, false, {}});
  bus.start_response(std::move(r), 22);  // 2 beats from cycle 20
  EXPECT_TRUE(bus.responding());
  EXPECT_EQ(bus.response_free_at(), 22u);
  EXPECT_EQ(bus.on_bus().tag, 2u);
  auto done = bus.finish_response();
  EXPECT_EQ(done->source, 1);
  EXPECT_FALSE(bus.responding());
}

TEST(SnoopBus, RoundRobinRequestArbitrationStartsAfterTheLastWinner) {
  SnoopBus bus("round_robin", 4, 4);
  const std::vector<Candidate> all{{0, 0}, {1, 0}, {2, 0}, {3, 0}};
  const uint32_t first = bus.pick_request(all);
  EXPECT_EQ(bus.pick_request(all), (first + 1) % 4);
  EXPECT_EQ(bus.pick_request(all), (first + 2) % 4);
  // The response arbiter has one more input, the bridge (index 4).
  EXPECT_EQ(bus.pick_response({{4, 0}}), 4u);
}

TEST(SnoopBus, DescribesTransactionsAndTheDataBus) {
  SnoopBus bus("round_robin", 4, 4);
  EXPECT_EQ(bus.describe_in_flight(name), "");
  auto& t = take(bus, 1, 0x40, 3);
  t.agent = 2;
  bus.start_response(std::make_unique<BusResponse>(BusResponse{1, -1, 5, true, false, {}}), 7);
  const std::string s = bus.describe_in_flight(name);
  EXPECT_NE(s.find("cluster.bus: tag 1: BusRd 0x40 by agent2 snooping"), std::string::npos) << s;
  EXPECT_NE(s.find("response for tag 1 on the data bus until cycle 7"), std::string::npos) << s;
}

// The snoop's decision, from the protocol table alone: four caches (agents
// 0-3: core 0's L1D and L1I, core 1's) under MESI, agent 0 requesting.
struct Caches {
  std::vector<std::unique_ptr<CacheController>> caches;
  mem::ProtocolTable table = mem::ProtocolTable::standard(mem::Protocol::kMesi);
  Caches() {
    const auto g = mem::CacheGeometry::make("cluster.l1d", 1024, 2, 64);
    for (uint32_t a = 0; a < 4; ++a) caches.push_back(std::make_unique<CacheController>(a, g, 4));
  }
  void hold(uint32_t agent, uint64_t line, mem::State s) {
    auto& array = caches[agent]->array;
    const int way = array.victim(line);
    array.line(way).line_addr = line;
    array.line(way).state = s;
  }
  SnoopResult snoop_of(mem::BusOp op, uint64_t line) {
    SnoopBus::Txn t;
    t.valid = true;
    t.agent = 0;
    t.op = op;
    t.line = line;
    return snoop(caches, t, table);
  }
};

TEST(Snoop, AModifiedCopyFlushesAndStaysShared) {
  Caches c;
  c.hold(2, 0x40, mem::State::kM);
  const SnoopResult r = c.snoop_of(mem::BusOp::kBusRd, 0x40);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.shared);  // (M, BusRd) -> S keeps a copy
  EXPECT_EQ(r.supplier, 2);
  EXPECT_TRUE(r.flush);
  EXPECT_EQ(r.wb_holder, -1);
  ASSERT_GE(r.rows[2], 0);
  EXPECT_EQ(c.table.rows()[static_cast<size_t>(r.rows[2])].next, mem::State::kS);
  EXPECT_EQ(r.rows[1], -1);
  EXPECT_EQ(r.rows[3], -1);
}

TEST(Snoop, InvalidatingSharersIsNotShared) {
  Caches c;
  c.hold(1, 0x40, mem::State::kS);
  c.hold(3, 0x40, mem::State::kS);
  const SnoopResult r = c.snoop_of(mem::BusOp::kBusUpgr, 0x40);
  EXPECT_FALSE(r.shared);  // both (S, BusUpgr) rows go to I
  EXPECT_EQ(r.supplier, -1);
  EXPECT_GE(r.rows[1], 0);
  EXPECT_GE(r.rows[3], 0);
}

TEST(Snoop, TheRequesterIsNotSnoopedAndAWriteBackBufferIsSeen) {
  Caches c;
  c.hold(0, 0x40, mem::State::kS);
  c.caches[3]->wb.push_back(CacheController::WriteBack{0x40, std::vector<uint8_t>(64), Transient::kMI_A, -1, 0, 0});
  const SnoopResult r = c.snoop_of(mem::BusOp::kBusRdX, 0x40);
  EXPECT_EQ(r.rows[0], -1);
  EXPECT_EQ(r.wb_holder, 3);
}

TEST(Snoop, AStateWithoutARowIsAnError) {
  Caches c;
  c.hold(2, 0x40, mem::State::kE);                               // agent 2: core 1's L1D
  const SnoopResult r = c.snoop_of(mem::BusOp::kBusUpgr, 0x40);  // MESI has no (E, BusUpgr): E is never shared
  EXPECT_EQ(r.error, "mesi has no row for (E, BusUpgr) in l1d1");
}

}  // namespace
}  // namespace tessera::bus::test
