#include <gtest/gtest.h>

#include <set>

#include "mem/coherence_protocol.h"

namespace tessera::mem {
namespace {

TEST(ProtocolNames, UnknownNameListsTheValidOnes) {
  EXPECT_EQ(parse_protocol("moesi"), Protocol::kMoesi);
  try {
    parse_protocol("mosi");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("msi|mesi|mesif|moesi|dragon"), std::string::npos) << e.what();
  }
}

TEST(ProtocolTables, EveryReachableStateHandlesEveryProcessorEvent) {
  // The states each protocol uses (Culler & Singh Figs. 5.13, 5.15, 5.18;
  // MESIF after Hum & Goodman's Forward-state patent, MOESI after Sweazey &
  // Smith, ISCA 1986).
  const std::vector<std::pair<Protocol, std::vector<State>>> states{
      {Protocol::kMsi, {State::kI, State::kS, State::kM}},
      {Protocol::kMesi, {State::kI, State::kS, State::kE, State::kM}},
      {Protocol::kMesif, {State::kI, State::kS, State::kE, State::kM, State::kF}},
      {Protocol::kMoesi, {State::kI, State::kS, State::kE, State::kM, State::kO}},
      {Protocol::kDragon, {State::kI, State::kE, State::kSc, State::kSm, State::kM}}};
  for (const auto& [p, used] : states) {
    const auto t = ProtocolTable::standard(p);
    for (State s : used) {
      EXPECT_GE(t.first_row(s, Event::kPrRd), 0) << t.name() << " " << state_name(s);
      EXPECT_GE(t.first_row(s, Event::kPrWr), 0) << t.name() << " " << state_name(s);
      if (s != State::kI) {
        EXPECT_GE(t.first_row(s, Event::kReplace), 0) << t.name() << " " << state_name(s);
        EXPECT_GE(t.first_row(s, Event::kBusRd), 0) << t.name() << " " << state_name(s);
      }
    }
    // Only the states of the protocol appear.
    for (const Row& r : t.rows()) {
      EXPECT_NE(std::find(used.begin(), used.end(), r.state), used.end()) << t.name();
      EXPECT_NE(std::find(used.begin(), used.end(), r.next), used.end()) << t.name();
    }
  }
}

TEST(ProtocolTables, SharedConditionSelectsTheRow) {
  const auto mesi = ProtocolTable::standard(Protocol::kMesi);
  EXPECT_EQ(mesi.rows()[mesi.find(State::kI, Event::kPrRd, true)].next, State::kS);
  EXPECT_EQ(mesi.rows()[mesi.find(State::kI, Event::kPrRd, false)].next, State::kE);
  const auto dragon = ProtocolTable::standard(Protocol::kDragon);
  EXPECT_EQ(dragon.rows()[dragon.find(State::kSc, Event::kPrWr, true)].next, State::kSm);
  EXPECT_EQ(dragon.rows()[dragon.find(State::kSc, Event::kPrWr, false)].next, State::kM);
  EXPECT_EQ(bus_op_of(dragon.rows()[dragon.find(State::kSc, Event::kPrWr, true)].actions), BusOp::kBusUpd);
}

TEST(ProtocolTables, RowsThatStartDifferentTransactionsForOneEventAreRejected) {
  std::vector<Row> rows{{State::kI, Event::kPrRd, Cond::kShared, State::kS, kIssueBusRd},
                        {State::kI, Event::kPrRd, Cond::kNotShared, State::kE, kIssueBusRdX}};
  EXPECT_THROW(ProtocolTable("bad", rows, true), std::logic_error);
  std::vector<Row> snoop_issues{{State::kS, Event::kBusRd, Cond::kAny, State::kS, kIssueBusRd}};
  EXPECT_THROW(ProtocolTable("bad", snoop_issues, true), std::logic_error);
}

TEST(ProtocolTables, SetRowReindexes) {
  auto t = ProtocolTable::standard(Protocol::kMsi);
  const int i = t.first_row(State::kS, Event::kBusRdX);
  t.set_row(static_cast<size_t>(i), Row{State::kS, Event::kBusRdX, Cond::kAny, State::kS, kNoAction});
  EXPECT_EQ(t.rows()[t.find(State::kS, Event::kBusRdX, false)].next, State::kS);
}

}  // namespace
}  // namespace tessera::mem
