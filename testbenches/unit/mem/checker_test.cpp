#include <gtest/gtest.h>

#include <map>

#include "mem/coherence_checker.h"

namespace tessera::mem {
namespace {

constexpr uint32_t kLine = 16;

// A set of caches the test sets by hand.
class FakeCaches : public CacheView {
 public:
  explicit FakeCaches(uint32_t agents) : states(agents, State::kI), data(agents, std::vector<uint8_t>(kLine, 0)) {}
  uint32_t agent_count() const override { return static_cast<uint32_t>(states.size()); }
  State line_state(uint32_t a, uint64_t) const override { return states[a]; }
  const uint8_t* line_data(uint32_t a, uint64_t) const override {
    return states[a] == State::kI ? nullptr : data[a].data();
  }
  std::string describe_line(uint64_t) const override {
    std::string s;
    for (auto st : states) s += std::string(state_name(st)) + " ";
    return s;
  }
  std::vector<State> states;
  std::vector<std::vector<uint8_t>> data;
};

struct CheckerTest : ::testing::Test {
  FakeCaches caches{3};
  CoherenceChecker checker{caches, kLine, true, [](uint64_t, uint8_t* out) { std::fill(out, out + kLine, 0); }};
};

TEST_F(CheckerTest, CleanSequencePasses) {
  checker.on_ordered(1, BusOp::kBusRdX, 0, 0x40, false);
  caches.states[0] = State::kM;
  checker.check_line(1, 0x40);
  checker.on_store(2, 0, 0x44, 4, 0xdeadbeef);
  caches.data[0][4] = 0xef, caches.data[0][5] = 0xbe, caches.data[0][6] = 0xad, caches.data[0][7] = 0xde;
  checker.on_ordered(3, BusOp::kBusRd, 1, 0x40, true);  // cache 0 flushes and keeps S
  caches.states[0] = State::kS;
  checker.check_line(3, 0x40);
  checker.on_fill(5, 1, 0x40, caches.data[0].data());
  caches.states[1] = State::kS;
  caches.data[1] = caches.data[0];
  checker.check_line(5, 0x40);
  checker.on_load(6, 1, 0x44, 4, 0xdeadbeef);
  EXPECT_FALSE(checker.failed()) << checker.report();
}

TEST_F(CheckerTest, StaleLoadIsReportedWithCycleLineAndStates) {
  checker.on_ordered(1, BusOp::kBusRdX, 0, 0x40, false);
  checker.on_store(2, 0, 0x40, 4, 7);
  checker.on_ordered(3, BusOp::kBusRd, 1, 0x40, true);
  checker.on_load(9, 1, 0x40, 4, 0);  // the latest value is 7
  ASSERT_TRUE(checker.failed());
  EXPECT_NE(checker.report().find("cycle 9"), std::string::npos) << checker.report();
  EXPECT_NE(checker.report().find("0x40"), std::string::npos);
  EXPECT_NE(checker.report().find("latest value in bus order is 0x7"), std::string::npos) << checker.report();
}

TEST_F(CheckerTest, SecondWriterIsASwmrViolation) {
  checker.on_ordered(1, BusOp::kBusRdX, 0, 0x40, false);
  caches.states[0] = State::kM;
  checker.on_ordered(2, BusOp::kBusRdX, 1, 0x40, false);
  caches.states[1] = State::kM;  // cache 0 failed to invalidate
  checker.check_line(2, 0x40);
  ASSERT_TRUE(checker.failed());
  EXPECT_NE(checker.report().find("agent 0 is in M (write permission) but the bus granted it none"), std::string::npos)
      << checker.report();
}

TEST_F(CheckerTest, StoreWithoutPermissionIsReported) {
  checker.on_ordered(1, BusOp::kBusRd, 0, 0x40, true);
  checker.on_store(2, 0, 0x40, 1, 1);
  EXPECT_TRUE(checker.failed());
}

TEST_F(CheckerTest, UnsharedReadGrantsSilentWriteOnlyWhenExclusiveCleanExists) {
  checker.on_ordered(1, BusOp::kBusRd, 0, 0x40, false);
  checker.on_store(2, 0, 0x40, 1, 1);  // E -> M silently: allowed
  EXPECT_FALSE(checker.failed()) << checker.report();
  CoherenceChecker msi(caches, kLine, false, [](uint64_t, uint8_t* out) { std::fill(out, out + kLine, 0); });
  msi.on_ordered(1, BusOp::kBusRd, 0, 0x80, false);
  msi.on_store(2, 0, 0x80, 1, 1);  // MSI has no E
  EXPECT_TRUE(msi.failed());
}

TEST_F(CheckerTest, BufferedStoresMustLeaveInOrderAndForwardTheYoungest) {
  checker.on_ordered(1, BusOp::kBusRdX, 0, 0x40, false);
  checker.on_buffered(0, {0x40, 4, 1});
  checker.on_buffered(0, {0x40, 4, 2});
  checker.on_forward(2, 0, 0x40, 4, 2);
  EXPECT_FALSE(checker.failed()) << checker.report();
  checker.on_store(3, 0, 0x40, 4, 2);  // the older store (1) must go first
  EXPECT_TRUE(checker.failed());
}

TEST_F(CheckerTest, StaleFillIsReported) {
  checker.on_ordered(1, BusOp::kBusRdX, 0, 0x40, false);
  checker.on_store(2, 0, 0x40, 1, 0x5a);
  checker.on_ordered(3, BusOp::kBusRd, 1, 0x40, true);
  std::vector<uint8_t> stale(kLine, 0);
  checker.on_fill(4, 1, 0x40, stale.data());
  EXPECT_TRUE(checker.failed());
}

}  // namespace
}  // namespace tessera::mem
