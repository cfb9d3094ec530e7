// The cache controllers' transient states, cycle by cycle. Timings from
// small_params() (cluster_harness.h): an access issued at cycle T is looked
// up at T+1 (the miss enters its _AD or _A state), the request bus grants it
// at T+2 (grants run before the cores' accesses in a tick), the snoop
// resolves snoop_latency (2) later at T+4 (the request is ordered: _AD -> _D,
// or an upgrade completes), memory answers kMemoryLatency (30) after the
// snoop at T+34, and the 64-byte line takes 2 beats on the 256-bit data bus:
// the fill at T+36 ends the transient state.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bus/transient.h"
#include "cluster_harness.h"

namespace tessera::bus::test {
namespace {

using mem::Protocol;
using mem::State;

constexpr uint64_t A = 0x40;

Op load_op(uint64_t addr) { return Op{OpKind::kLoad, addr, 4, 0, AmoKind::kAdd}; }
Op store_op(uint64_t addr, uint32_t v) { return Op{OpKind::kStore, addr, 4, v, AmoKind::kAdd}; }

uint32_t d0() { return Cluster::l1d_agent(0); }
uint32_t memory_word(Harness& h, uint64_t addr) {
  uint8_t b[4];
  h.memory.read_line(addr, b, 4);
  return b[0] | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24;
}
uint32_t d1() { return Cluster::l1d_agent(1); }

class Controller : public ::testing::TestWithParam<Protocol> {};

// I -> IS_AD (T+1), granted at T+2, IS_D once ordered (T+4), the stable
// state at the fill (T+36): S in MSI, E in MESI (nobody else shares).
TEST_P(Controller, GoesThroughIsAdAndIsD) {
  Harness h(small_params(GetParam()));
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, load_op(A), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIS_AD);
  EXPECT_FALSE(h.cluster.granted(d0(), A));
  h.cluster.advance_to(T + 2);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIS_AD);
  EXPECT_TRUE(h.cluster.granted(d0(), A));
  h.cluster.advance_to(T + 3);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIS_AD);
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIS_D);
  h.cluster.advance_to(T + 35);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIS_D);
  h.cluster.advance_to(T + 36);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kNone);
  EXPECT_EQ(h.d(0, A), GetParam() == Protocol::kMsi ? State::kS : State::kE);
}

// I -> IM_AD -> IM_D -> M, on the same cycles.
TEST_P(Controller, StoreMissGoesThroughImAdAndImD) {
  Harness h(small_params(GetParam()));
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, store_op(A, 7), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIM_AD);
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kIM_D);
  h.cluster.advance_to(T + 36);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kNone);
  EXPECT_EQ(h.d(0, A), State::kM);
}

// A store to S asks for BusUpgr in SM_A and, no data coming back, is done
// when ordered (T+4): S -> SM_A -> M.
TEST_P(Controller, StoreHitOnSharedGoesThroughSmA) {
  Harness h(small_params(GetParam()));
  h.load(0, A);
  h.load(1, A);  // both S
  ASSERT_EQ(h.d(0, A), State::kS);
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, store_op(A, 7), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kSM_A);
  EXPECT_EQ(h.d(0, A), State::kS);
  h.cluster.advance_to(T + 3);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kSM_A);
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kNone);
  EXPECT_EQ(h.d(0, A), State::kM);
  EXPECT_EQ(h.d(1, A), State::kI);
}

// Two sharers store at once. The first BusUpgr is granted at T+2 and ordered
// at T+4, taking the other's S copy while that one still waits in SM_A: it
// becomes IM_AD and asks for BusRdX instead, granted in the same cycle (the
// snoop phase runs before the grant phase and freed the line), ordered at
// T+6 (IM_D), its data supplied by the new owner.
TEST_P(Controller, SnoopedUpgradeTurnsSmAIntoImAd) {
  Harness h(small_params(GetParam()));
  h.load(0, A);
  h.load(1, A);
  std::vector<BusEvent> grants;
  h.cluster.set_bus_trace([&](const BusEvent& e) {
    if (e.kind == BusEvent::kGrant) grants.push_back(e);
  });
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, store_op(A, 1), nullptr);
  h.cluster.issue(1, store_op(A, 2), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kSM_A);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kSM_A);
  h.cluster.advance_to(T + 2);
  ASSERT_EQ(grants.size(), 1u);
  const uint32_t first = grants[0].agent, second = first == d0() ? d1() : d0();
  EXPECT_EQ(grants[0].op, mem::BusOp::kBusUpgr);
  h.cluster.advance_to(T + 3);
  EXPECT_EQ(h.cluster.transient_of(second, A), Transient::kSM_A);
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(first, A), Transient::kNone);
  EXPECT_EQ(h.cluster.transient_of(second, A), Transient::kIM_AD);
  EXPECT_TRUE(h.cluster.granted(second, A));
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[1].agent, second);
  EXPECT_EQ(grants[1].op, mem::BusOp::kBusRdX);
  EXPECT_EQ(grants[1].cycle, T + 4);
  h.cluster.advance_to(T + 5);
  EXPECT_EQ(h.cluster.transient_of(second, A), Transient::kIM_AD);
  h.cluster.advance_to(T + 6);
  EXPECT_EQ(h.cluster.transient_of(second, A), Transient::kIM_D);
  h.settle();
  EXPECT_EQ(h.cluster.state_of(second, A), State::kM);
  EXPECT_EQ(h.cluster.state_of(first, A), State::kI);
}

// An _D state sees no snoop: while core 0's BusRd holds the line in the
// request table (granted T+2 until its fill at T+36), core 1's store waits
// in IM_AD, ungranted, and is granted at T+36 once the fill freed the line.
TEST_P(Controller, RequestForABusyLineWaitsInImAd) {
  Harness h(small_params(GetParam()));
  std::vector<BusEvent> grants;
  h.cluster.set_bus_trace([&](const BusEvent& e) {
    if (e.kind == BusEvent::kGrant) grants.push_back(e);
  });
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, load_op(A), nullptr);
  h.cluster.issue(1, store_op(A, 5), nullptr);
  h.cluster.advance_to(T + 4);
  // Both ask at T+1; whichever the arbiter grants first, the other waits.
  ASSERT_EQ(grants.size(), 1u);
  const uint32_t first = grants[0].agent, second = first == d0() ? d1() : d0();
  EXPECT_TRUE(awaits_data(h.cluster.transient_of(first, A)));
  EXPECT_EQ(h.cluster.transient_of(second, A), second == d0() ? Transient::kIS_AD : Transient::kIM_AD);
  EXPECT_FALSE(h.cluster.granted(second, A));
  h.cluster.advance_to(T + 35);
  EXPECT_EQ(grants.size(), 1u);
  EXPECT_FALSE(h.cluster.granted(second, A));
  h.cluster.advance_to(T + 36);
  EXPECT_EQ(h.cluster.transient_of(first, A), Transient::kNone);
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[1].agent, second);
  EXPECT_EQ(grants[1].cycle, T + 36);
  h.settle();
}

INSTANTIATE_TEST_SUITE_P(MsiAndMesi, Controller, ::testing::Values(Protocol::kMsi, Protocol::kMesi),
                         [](const auto& p) { return std::string(mem::protocol_name(p.param)); });

// MESIF: a store to F waits in FM_A; Dragon: a store to Sc waits in ScM_A
// and performs its write when the BusUpd is ordered.
TEST(Transients, StoreToForwardWaitsInFmA) {
  Harness h(small_params(Protocol::kMesif));
  h.load(0, A);
  h.load(1, A);  // core 1 is the newest sharer: F
  ASSERT_EQ(h.d(1, A), State::kF);
  const uint64_t T = h.cluster.now();
  h.cluster.issue(1, store_op(A, 3), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kFM_A);
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kNone);
  EXPECT_EQ(h.d(1, A), State::kM);
}

TEST(Transients, DragonStoreToSharedCleanWaitsInScMA) {
  Harness h(small_params(Protocol::kDragon));
  h.load(0, A);
  h.load(1, A);
  ASSERT_EQ(h.d(0, A), State::kSc);
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, store_op(A, 9), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kScM_A);
  h.settle();
  EXPECT_EQ(h.d(0, A), State::kSm);
  EXPECT_EQ(h.d(1, A), State::kSc);
  EXPECT_EQ(h.load(1, A), 9u);
}

// What the cluster holds in flight, for the deadlock report: at T+4 the
// load miss (started at T+1, granted tag 0) waits in IS_D, the request
// table holds its BusRd, the bridge one of its 4 slots for memory's answer
// due at T+34.
TEST(Transients, InFlightReportShowsTheRequestItsStateTheBusAndTheBridge) {
  Harness h(small_params(Protocol::kMesi));
  EXPECT_EQ(h.cluster.describe_in_flight(), "");
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, load_op(A), nullptr);
  h.cluster.advance_to(T + 4);
  const std::string s = h.cluster.describe_in_flight();
  EXPECT_NE(s.find(fmt::format("cluster.core0.l1d: BusRd 0x40 in IS_D (tag 0) since cycle {}\n", T + 1)),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("cluster.bus: tag 0: BusRd 0x40 by l1d0 awaiting data\n"), std::string::npos) << s;
  EXPECT_NE(s.find("cluster.bridge: 1 of 4 slots in use\n"), std::string::npos) << s;
  EXPECT_NE(s.find(fmt::format("memory read for tag 0 ready at cycle {}\n", T + 34)), std::string::npos) << s;
  h.settle();
  EXPECT_EQ(h.cluster.describe_in_flight(), "");
}

// Write-back of a dirty victim. Core 0 holds A in M and B (A + 512, same
// set) clean; its load of C (A + 1024) at T picks A as the victim at T+1:
// A leaves the array (I) and waits in the write-back buffer in MI_A beside
// the miss's IS_AD. Demand misses are presented before write-backs, so the
// BusRd is granted at T+2 and the WriteBack at T+3 (the request bus is free
// again after one cycle), still MI_A. Its snoop resolves at T+5: ordered,
// MI_D, the line queued for memory ready at T+6 (hit_latency 1); the
// response bus carries it from T+6 for 2 beats and at T+8 it reaches the
// bridge: the entry leaves the buffer and memory holds the stored value.
TEST_P(Controller, DirtyVictimGoesThroughMiAAndMiD) {
  Harness h(small_params(GetParam()));
  const uint64_t B = A + kSetStride, C = A + 2 * kSetStride;
  h.store(0, A, 7);
  h.load(0, B);
  ASSERT_EQ(h.d(0, A), State::kM);
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, load_op(C), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.d(0, A), State::kI);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_A);
  EXPECT_FALSE(h.cluster.granted(d0(), A));
  EXPECT_EQ(h.cluster.transient_of(d0(), C), Transient::kIS_AD);
  h.cluster.advance_to(T + 2);
  EXPECT_TRUE(h.cluster.granted(d0(), C));
  EXPECT_FALSE(h.cluster.granted(d0(), A));
  h.cluster.advance_to(T + 3);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_A);
  EXPECT_TRUE(h.cluster.granted(d0(), A));
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_A);
  h.cluster.advance_to(T + 5);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_D);
  EXPECT_NE(h.cluster.describe_in_flight().find(
                fmt::format("cluster.core0.l1d: write-back 0x40 in MI_D (tag 1) since cycle {}\n", T + 1)),
            std::string::npos)
      << h.cluster.describe_in_flight();
  h.cluster.advance_to(T + 7);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_D);
  EXPECT_EQ(h.cluster.counters().memory_writes, 0u);
  h.cluster.advance_to(T + 8);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kNone);
  EXPECT_EQ(h.cluster.counters().memory_writes, 1u);
  EXPECT_EQ(memory_word(h, A), 7u);
  h.settle();
}

// A snoop reaches a write-back still waiting for its grant. As above, core
// 0's load of C at T puts A in MI_A at T+1 and its BusRd is granted at T+2;
// core 1's load of A, issued at T+1, misses at T+2 (IS_AD). At T+3 both
// present a request: core 0 its WriteBack, core 1 its BusRd; the round-robin
// arbiter last granted agent 0 and now grants agent 2 (core 1's L1D). Its
// snoop resolves at T+5 and finds A in core 0's write-back buffer
// (SnoopWantsData): the entry supplies the line and retires without ever
// being granted. The line, ready at T+6, crosses the response bus in 2
// beats: core 1's fill at T+8, to memory as well. The WriteBack itself is
// never ordered.
TEST_P(Controller, SnoopedReadTakesTheLineFromMiA) {
  Harness h(small_params(GetParam()));
  const uint64_t B = A + kSetStride, C = A + 2 * kSetStride;
  h.store(0, A, 7);
  h.load(0, B);
  const uint64_t T = h.cluster.now();
  uint32_t loaded = 0;
  h.cluster.issue(0, load_op(C), nullptr);
  h.cluster.advance_to(T + 1);
  ASSERT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_A);
  h.cluster.issue(1, load_op(A), [&](uint32_t v) { loaded = v; });
  h.cluster.advance_to(T + 2);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kIS_AD);
  h.cluster.advance_to(T + 3);
  EXPECT_TRUE(h.cluster.granted(d1(), A));
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_A);
  EXPECT_FALSE(h.cluster.granted(d0(), A));
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kMI_A);
  h.cluster.advance_to(T + 5);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kNone);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kIS_D);
  EXPECT_EQ(h.cluster.counters().wb_snoop_hits, 1u);
  h.cluster.advance_to(T + 7);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kIS_D);
  h.cluster.advance_to(T + 8);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kNone);
  EXPECT_EQ(memory_word(h, A), 7u);
  h.settle();
  EXPECT_EQ(loaded, 7u);
  EXPECT_EQ(h.cluster.counters().bus_ops[static_cast<size_t>(mem::BusOp::kWriteBack)], 0u);
}

// MOESI: an owned victim (O, core 1 sharing it in S) waits in OI_A; core
// 1's store upgrades while it waits. Core 0's load of C at T evicts A at
// T+1 (OI_A) and its BusRd is granted at T+2; core 1's store, issued at
// T+1, finds S at T+2 (SM_A, BusUpgr). At T+3 round robin grants agent 2
// over core 0's WriteBack; the snoop at T+5 finds A in core 0's buffer
// (SnoopTakesOwnership): the entry retires without data and core 1, the
// only copy left, takes M, holding the owned data it already had.
TEST(Transients, SharersUpgradeRetiresAnOwnedVictimInOiA) {
  Harness h(small_params(Protocol::kMoesi));
  const uint64_t B = A + kSetStride, C = A + 2 * kSetStride;
  h.store(0, A, 7);
  h.load(1, A);
  ASSERT_EQ(h.d(0, A), State::kO);
  h.load(0, B);
  const uint64_t T = h.cluster.now();
  h.cluster.issue(0, load_op(C), nullptr);
  h.cluster.advance_to(T + 1);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kOI_A);
  h.cluster.issue(1, store_op(A, 8), nullptr);
  h.cluster.advance_to(T + 2);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kSM_A);
  h.cluster.advance_to(T + 3);
  EXPECT_TRUE(h.cluster.granted(d1(), A));
  EXPECT_FALSE(h.cluster.granted(d0(), A));
  h.cluster.advance_to(T + 4);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kOI_A);
  h.cluster.advance_to(T + 5);
  EXPECT_EQ(h.cluster.transient_of(d0(), A), Transient::kNone);
  EXPECT_EQ(h.cluster.transient_of(d1(), A), Transient::kNone);
  EXPECT_EQ(h.d(1, A), State::kM);
  EXPECT_EQ(h.cluster.counters().wb_snoop_hits, 1u);
  h.settle();
  EXPECT_EQ(h.load(2, A), 8u);
  EXPECT_EQ(h.cluster.counters().bus_ops[static_cast<size_t>(mem::BusOp::kWriteBack)], 0u);
}

// The table itself: every protocol's miss rows begin a transient state, and
// every state that waits for its order has a row for being ordered.
TEST(Transients, EveryMissRowOfEveryProtocolBeginsATransientState) {
  for (auto p : all_protocols()) {
    const auto table = mem::ProtocolTable::standard(p);
    for (const auto& r : table.rows()) {
      const auto op = mem::bus_op_of(r.actions);
      if (op == mem::BusOp::kNone) continue;
      EXPECT_NE(begin_transient(r.state, r.event, op), Transient::kNone)
          << mem::protocol_name(p) << " " << mem::state_name(r.state) << " " << mem::event_name(r.event);
    }
  }
  for (auto t = static_cast<uint8_t>(Transient::kIS_AD); t < static_cast<uint8_t>(Transient::kCount); ++t) {
    const auto s = static_cast<Transient>(t);
    if (awaits_order(s)) {
      EXPECT_NE(next_transient(s, TransientEvent::kOrdered), Transient::kCount) << transient_name(s);
    }
    if (awaits_data(s)) {
      EXPECT_EQ(next_transient(s, TransientEvent::kData), Transient::kNone) << transient_name(s);
    }
  }
  EXPECT_EQ(next_transient(Transient::kSM_A, TransientEvent::kSnoopInvalidates), Transient::kIM_AD);
  // Only a request that asked for data waits for it; only an update performs its write when ordered.
  EXPECT_EQ(transient_row(Transient::kIS_AD, TransientEvent::kOrdered)->actions, kWaitData);
  EXPECT_EQ(transient_row(Transient::kIM_AD, TransientEvent::kOrdered)->actions, kWaitData);
  EXPECT_EQ(transient_actions_text(transient_row(Transient::kSM_A, TransientEvent::kOrdered)->actions),
            "TakeRowState+RetryAccess");
  EXPECT_EQ(transient_actions_text(transient_row(Transient::kScM_A, TransientEvent::kOrdered)->actions),
            "TakeRowState+PerformWrite");
  EXPECT_EQ(transient_row(Transient::kIS_D, TransientEvent::kOrdered), nullptr);
  EXPECT_EQ(next_transient(Transient::kFM_A, TransientEvent::kSnoopDemotes), Transient::kSM_A);
  EXPECT_EQ(next_transient(Transient::kIS_D, TransientEvent::kSnoopInvalidates), Transient::kCount);
  // Every victim a protocol writes back has a write-back state; a snooped
  // entry retires, an ordered one sends its data and retires once it crossed.
  for (auto p : all_protocols()) {
    const auto table = mem::ProtocolTable::standard(p);
    for (const auto& r : table.rows()) {
      if (r.event == mem::Event::kReplace && (r.actions & mem::kWriteBackLine)) {
        EXPECT_NE(begin_write_back(r.state), Transient::kNone)
            << mem::protocol_name(p) << " " << mem::state_name(r.state);
      }
    }
  }
  EXPECT_EQ(next_transient(Transient::kMI_A, TransientEvent::kOrdered), Transient::kMI_D);
  EXPECT_EQ(transient_actions_text(transient_row(Transient::kMI_A, TransientEvent::kSnoopWantsData)->actions),
            "SupplyData+Retire");
  EXPECT_EQ(transient_row(Transient::kMI_A, TransientEvent::kSnoopTakesOwnership), nullptr);
  EXPECT_EQ(next_transient(Transient::kOI_A, TransientEvent::kSnoopTakesOwnership), Transient::kNone);
  EXPECT_EQ(transient_row(Transient::kMI_D, TransientEvent::kData)->actions, kRetire);
}

}  // namespace
}  // namespace tessera::bus::test
