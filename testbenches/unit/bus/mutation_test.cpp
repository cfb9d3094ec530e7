// The checker can fail: a table with one deliberately broken row must be
// caught by it (or, for a row that stops progress, by the deadlock
// watchdog), with the cycle and the states of every cache in the report.
#include <gtest/gtest.h>

#include "bus/random_tester.h"
#include "cluster_harness.h"

namespace tessera::bus::test {
namespace {

using mem::Event;
using mem::Protocol;
using mem::State;

struct Mutation {
  const char* name;
  Protocol protocol;
  State state;
  Event event;
  State next;        // the broken next state
  uint16_t actions;  // the broken actions
};

// Each keeps a copy it should give up, or drops the data it should pass on.
const Mutation kMutations[] = {
    {"msi_S_BusRdX_keeps_copy", Protocol::kMsi, State::kS, Event::kBusRdX, State::kS, mem::kNoAction},
    {"mesi_M_BusRd_stays_M", Protocol::kMesi, State::kM, Event::kBusRd, State::kM, mem::kFlush},
    {"mesi_M_Replace_drops_dirty_data", Protocol::kMesi, State::kM, Event::kReplace, State::kI, mem::kNoAction},
    {"mesif_S_BusUpgr_keeps_copy", Protocol::kMesif, State::kS, Event::kBusUpgr, State::kS, mem::kNoAction},
    {"moesi_O_BusRdX_keeps_ownership", Protocol::kMoesi, State::kO, Event::kBusRdX, State::kO, mem::kSupply},
    {"moesi_M_BusRd_supplies_without_owning", Protocol::kMoesi, State::kM, Event::kBusRd, State::kS, mem::kSupply},
    {"dragon_Sc_BusUpd_ignores_update", Protocol::kDragon, State::kSc, Event::kBusUpd, State::kSc, mem::kNoAction},
};

class Mutated : public ::testing::TestWithParam<Mutation> {};

TEST_P(Mutated, CheckerCatchesTheBrokenRow) {
  const Mutation& m = GetParam();
  auto table = mem::ProtocolTable::standard(m.protocol);
  const int row = table.first_row(m.state, m.event);
  ASSERT_GE(row, 0);
  table.set_row(static_cast<size_t>(row), mem::Row{m.state, m.event, mem::Cond::kAny, m.next, m.actions});
  TesterParams t;
  t.seed = 3;
  t.ops = 20000;
  RandomTester tester(small_params(m.protocol, 4), t, table);
  const auto r = tester.run();
  ASSERT_FALSE(r.passed) << m.name << " went unnoticed";
  EXPECT_NE(r.failure.find("coherence violation at cycle"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("caches: l1d0="), std::string::npos) << r.failure;
}

INSTANTIATE_TEST_SUITE_P(Rows, Mutated, ::testing::ValuesIn(kMutations),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(Mutated, UnmutatedTablesPassTheSameRun) {
  for (auto p : all_protocols()) {
    TesterParams t;
    t.seed = 3;
    t.ops = 20000;
    RandomTester tester(small_params(p, 4), t);
    const auto r = tester.run();
    EXPECT_TRUE(r.passed) << r.failure;
  }
}

TEST(Mutated, UpgradeThatNeverGrantsWriteIsReportedAsDeadlock) {
  // (S, PrWr) -> S: the upgrade is ordered but the writer stays in S and
  // asks again forever; no access is ever performed.
  auto table = mem::ProtocolTable::standard(Protocol::kMesi);
  const int row = table.first_row(State::kS, Event::kPrWr);
  table.set_row(static_cast<size_t>(row),
                mem::Row{State::kS, Event::kPrWr, mem::Cond::kAny, State::kS, mem::kIssueBusUpgr});
  auto p = small_params(Protocol::kMesi);
  p.deadlock_cycles = 1000;
  Harness h(p, table);
  h.load(0, 0x40);
  h.load(1, 0x40);
  bool done = false;
  h.cluster.issue(0, Op{OpKind::kStore, 0x40, 4, 1, AmoKind::kAdd}, [&](uint32_t) { done = true; });
  while (!done && !h.cluster.failed()) h.cluster.advance_to(h.cluster.next_event_cycle());
  ASSERT_TRUE(h.cluster.failed());
  EXPECT_NE(h.cluster.failure().find("bus deadlock at cycle"), std::string::npos) << h.cluster.failure();
  EXPECT_NE(h.cluster.failure().find("l1d0:data@0x40"), std::string::npos) << h.cluster.failure();
  EXPECT_NE(h.cluster.failure().find("line 0x40: l1d0=S"), std::string::npos) << h.cluster.failure();
}

TEST(Mutated, MissingRowIsAProtocolError) {
  // MSI without (S, BusRd): a second reader finds no row.
  auto table = mem::ProtocolTable::standard(Protocol::kMsi);
  std::vector<mem::Row> rows;
  for (const auto& r : table.rows())
    if (!(r.state == State::kS && r.event == Event::kBusRd)) rows.push_back(r);
  Harness h(small_params(Protocol::kMsi), mem::ProtocolTable("msi-broken", rows, false));
  h.load(0, 0x40);
  bool done = false;
  h.cluster.issue(1, Op{OpKind::kLoad, 0x40, 4, 0, AmoKind::kAdd}, [&](uint32_t) { done = true; });
  while (!done && !h.cluster.failed()) h.cluster.advance_to(h.cluster.next_event_cycle());
  ASSERT_TRUE(h.cluster.failed());
  EXPECT_NE(h.cluster.failure().find("no row for (S, BusRd)"), std::string::npos) << h.cluster.failure();
  EXPECT_NE(h.cluster.failure().find("l1d0=S"), std::string::npos) << h.cluster.failure();
}

}  // namespace
}  // namespace tessera::bus::test
