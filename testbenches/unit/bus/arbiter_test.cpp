#include <gtest/gtest.h>

#include "bus/arbiter.h"

namespace tessera::bus {
namespace {

std::vector<Candidate> all(uint32_t n) {
  std::vector<Candidate> c;
  for (uint32_t a = 0; a < n; ++a) c.push_back({a, 0});
  return c;
}

TEST(Arbiter, RoundRobinGrantsEachRequesterInTurn) {
  RoundRobinArbiter rr(4);
  std::vector<uint32_t> order;
  for (int i = 0; i < 8; ++i) order.push_back(rr.pick(all(4)));
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 0, 1, 2, 3}));
  // Agent 2 alone, then 1 and 3: 3 follows 2.
  EXPECT_EQ(rr.pick({{2, 0}}), 2u);
  EXPECT_EQ(rr.pick({{1, 0}, {3, 0}}), 3u);
}

TEST(Arbiter, FifoGrantsTheOldestRequest) {
  FifoArbiter fifo;
  EXPECT_EQ(fifo.pick({{0, 9}, {1, 4}, {2, 7}}), 1u);
  EXPECT_EQ(fifo.pick({{3, 4}, {1, 4}}), 1u);  // ties: lowest agent
}

TEST(Arbiter, PriorityDemotesTheFrequentUserAndStarvesNobody) {
  PriorityArbiter prio(4);
  // Agent 0 requests every time; agents 1..3 request every cycle too. The
  // usage rule must still give every agent a quarter of the grants.
  std::vector<int> grants(4, 0);
  for (int i = 0; i < 400; ++i) ++grants[prio.pick(all(4))];
  for (int g : grants) EXPECT_EQ(g, 100);
  // An agent that just won is demoted below one that has not.
  PriorityArbiter p2(3);
  EXPECT_EQ(p2.pick({{1, 0}}), 1u);
  EXPECT_EQ(p2.pick({{1, 0}, {2, 0}}), 2u);
}

TEST(Arbiter, UnknownPolicyListsValidOnes) {
  try {
    make_arbiter("lottery", 4);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fifo|round_robin|priority"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera::bus
