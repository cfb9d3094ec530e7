// The fat tree (a 4-ary 3-tree: 64 nodes, 48 routers of 8 ports): wiring,
// distances, nearest-common-ancestor paths hop by hop, the spread of the up
// ports, and the network built on it.
#include <gtest/gtest.h>

#include "noc/topology_fattree.h"
#include "noc/traffic.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::params;

NocParams fat_tree(const char* vcs = "2") {
  return params({{"noc.topology", "fattree"}, {"noc.k", "4"}, {"noc.n", "3"}, {"noc.vcs", vcs}});
}

TEST(FatTree, SizesAndWiring) {
  const FatTreeTopology t(4, 3);
  EXPECT_EQ(t.nodes(), 64);
  EXPECT_EQ(t.routers(), 48);             // 3 levels of 16
  EXPECT_EQ(t.ports(), 8);                // 4 down, 4 up
  EXPECT_EQ(t.attachment(5).router, 33);  // leaf (level 2, position 1), port 1
  EXPECT_EQ(t.attachment(5).port, 1);
  EXPECT_EQ(t.terminal(33, 1), 5);
  EXPECT_EQ(t.terminal(16, 1), -1);  // level 1 has no nodes
  // Leaf (2, position 1 = digits 0,1), up port 2: level-1 router with digit 1
  // set to 2 (position 2), reached on its down port 1.
  EXPECT_EQ(t.link(33, 4 + 2).router, 16 + 2);
  EXPECT_EQ(t.link(33, 4 + 2).port, 1);
  // Level-1 router position 6 (digits 1,2), up port 3: top router position
  // 3*4 + 2 = 14, reached on its down port 1.
  EXPECT_EQ(t.link(16 + 6, 4 + 3).router, 14);
  EXPECT_EQ(t.link(16 + 6, 4 + 3).port, 1);
  EXPECT_FALSE(t.link(14, 4).valid());  // the top has no parent
  EXPECT_FALSE(t.link(33, 1).valid());  // a node's port
}

TEST(FatTree, DistanceIsTwiceTheLevelsBelowTheCommonAncestor) {
  const FatTreeTopology t(4, 3);
  EXPECT_EQ(t.distance(0, 1), 0);  // same leaf router
  EXPECT_EQ(t.distance(0, 4), 2);  // same level-1 subtree (nodes 0..15)
  EXPECT_EQ(t.distance(5, 9), 2);
  EXPECT_EQ(t.distance(0, 16), 4);  // through the top
  EXPECT_EQ(t.distance(0, 63), 4);
  EXPECT_EQ(t.distance(63, 48), 2);
}

// Following the routing function and the links from every source reaches
// every destination's interface in exactly distance() hops, going up then
// down, never down then up.
TEST(FatTree, NearestCommonAncestorPathsAreMinimalUpThenDown) {
  const NocParams p = fat_tree();
  const FatTreeTopology t(p);
  NearestCommonAncestorRouting r(p, t);
  Route route;
  for (int src = 0; src < 64; ++src) {
    for (int dst = 0; dst < 64; ++dst) {
      Flit f;
      f.src = src;
      f.dst = dst;
      f.packet_id = static_cast<uint64_t>(src * 64 + dst);
      int router = t.attachment(src).router, hops = 0;
      bool went_down = false;
      for (;;) {
        r.route(router, f, route);
        ASSERT_EQ(route.count, 1);
        EXPECT_EQ(route.options[0].vc_lo, 0);  // every VC, every hop
        EXPECT_EQ(route.options[0].vc_hi, 1);
        const int port = route.options[0].port;
        if (t.terminal(router, port) >= 0) {
          EXPECT_EQ(t.terminal(router, port), dst);
          break;
        }
        const bool up = port >= 4;
        EXPECT_FALSE(up && went_down) << src << " -> " << dst;
        went_down = went_down || !up;
        router = t.link(router, port).router;
        ASSERT_LE(++hops, 4);
      }
      EXPECT_EQ(hops, t.distance(src, dst)) << src << " -> " << dst;
    }
  }
}

// The up port is SplitMix64(packet id * 64 + level) mod k. Over ids 0..999
// a leaf (level 2) picks up ports 0..3 236, 271, 257 and 236 times
// (SplitMix64's published constants, computed outside the model).
TEST(FatTree, UpPortsSpreadByPacket) {
  const NocParams p = fat_tree();
  const FatTreeTopology t(p);
  NearestCommonAncestorRouting r(p, t);
  int counts[4] = {};
  Flit f;
  f.src = 0;
  f.dst = 63;
  Route route;
  for (uint64_t id = 0; id < 1000; ++id) {
    f.packet_id = id;
    r.route(t.attachment(0).router, f, route);
    ++counts[route.options[0].port - 4];
  }
  EXPECT_EQ(counts[0], 236);
  EXPECT_EQ(counts[1], 271);
  EXPECT_EQ(counts[2], 257);
  EXPECT_EQ(counts[3], 236);
}

TEST(FatTree, ZeroLoadLatencyFollowsTheHops) {
  // Default delays: 5 cycles per router passed, 1 for the source queue, 1
  // for injection and ejection, (F - 1) serialization:
  // 5 (H + 1) + 2 + (F - 1).
  const NocParams p = fat_tree();
  EXPECT_EQ(test::single_packet(p, 0, 1, 1).latency(), uint64_t{5 * 1 + 2});
  EXPECT_EQ(test::single_packet(p, 0, 4, 1).latency(), uint64_t{5 * 3 + 2});
  EXPECT_EQ(test::single_packet(p, 0, 63, 4).latency(), uint64_t{5 * 5 + 2 + 3});
}

TEST(FatTree, ConfigurationNamesTheKey) {
  EXPECT_THROW(params({{"noc.topology", "fattree"}, {"noc.routing", "dor"}}), tessera::sim::ConfigError);
  EXPECT_EQ(fat_tree().routing, "nca");  // the topology's default
  EXPECT_EQ(fat_tree().nodes(), 64);
  try {
    params({{"noc.topology", "fattree"}, {"noc.traffic", "transpose"}});
    const NocParams p = fat_tree();
    const FatTreeTopology t(p);
    TrafficPattern tp(Pattern::kTranspose, t);
    FAIL();
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("noc.traffic"), std::string::npos) << e.what();
  }
}

}  // namespace
