// The flattened butterfly (a 4-ary 2-flat with 4 nodes per router: 16
// routers of 10 ports, 64 nodes): wiring against BookSim2's port formula,
// distances, minimal paths hop by hop, UGAL's choice between the minimal
// path and a Valiant path by the queues it sees, and networks built on it.
#include <gtest/gtest.h>

#include <vector>

#include "noc/topology_flatfly.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::params;

NocParams flat_fly(const char* routing = "min", const char* vcs = "2") {
  return params({{"noc.topology", "flatfly"},
                 {"noc.k", "4"},
                 {"noc.n", "2"},
                 {"noc.c", "4"},
                 {"noc.routing", routing},
                 {"noc.vcs", vcs}});
}

TEST(FlatFly, SizesAndWiring) {
  const FlatFlyTopology t(4, 2, 4);
  EXPECT_EQ(t.routers(), 16);
  EXPECT_EQ(t.nodes(), 64);
  EXPECT_EQ(t.ports(), 4 + 3 * 2);
  EXPECT_EQ(t.attachment(27).router, 6);  // node r * 4 + i
  EXPECT_EQ(t.attachment(27).port, 3);
  EXPECT_EQ(t.terminal(6, 3), 27);
  EXPECT_EQ(t.terminal(6, 4), -1);
  // Router 6 is (2, 1). BookSim2's flatfly_outport: gC + (gK-1)*d - 1 +
  // (dID > sID ? dID : dID + 1): towards x = 0 port 4, x = 1 port 5, x = 3
  // port 6; towards y = 0 port 7, y = 2 port 8, y = 3 port 9.
  EXPECT_EQ(t.port_towards(6, 0, 0), 4);
  EXPECT_EQ(t.port_towards(6, 0, 1), 5);
  EXPECT_EQ(t.port_towards(6, 0, 3), 6);
  EXPECT_EQ(t.port_towards(6, 1, 0), 7);
  EXPECT_EQ(t.port_towards(6, 1, 2), 8);
  EXPECT_EQ(t.port_towards(6, 1, 3), 9);
  // Port 4 leads to router 4 = (0, 1), which reaches x = 2 on port 4 + 1.
  EXPECT_EQ(t.link(6, 4).router, 4);
  EXPECT_EQ(t.link(6, 4).port, 5);
  // Port 9 leads to router 14 = (2, 3), which reaches y = 1 on port 7 + 1.
  EXPECT_EQ(t.link(6, 9).router, 14);
  EXPECT_EQ(t.link(6, 9).port, 8);
  EXPECT_FALSE(t.link(6, 2).valid());  // a node's port
}

TEST(FlatFly, DistanceCountsDifferingCoordinates) {
  const FlatFlyTopology t(4, 2, 4);
  EXPECT_EQ(t.distance(0, 3), 0);    // same router
  EXPECT_EQ(t.distance(0, 12), 1);   // router 3 = (3, 0)
  EXPECT_EQ(t.distance(0, 16), 1);   // router 4 = (0, 1)
  EXPECT_EQ(t.distance(0, 63), 2);   // router 15 = (3, 3)
  EXPECT_EQ(t.distance(27, 58), 1);  // routers 6 = (2, 1) and 14 = (2, 3)
}

// Node 1 (router 0) to node 58 (router 14 = (2, 3)): x first, port 4 + 1
// to router 2, then y, port 7 + 2 to router 14, then its port 58 % 4 = 2;
// every VC of the class on every hop.
TEST(FlatFly, MinimalRoutingGoesDimensionByDimension) {
  const NocParams p = flat_fly();
  const FlatFlyTopology t(p);
  FlatFlyMinimalRouting r(p, t);
  Flit f;
  f.src = 1;
  f.dst = 58;
  Route route;
  const int expected_port[] = {5, 9, 2};
  const int expected_router[] = {0, 2, 14};
  int router = t.attachment(f.src).router;
  for (int hop = 0; hop < 3; ++hop) {
    ASSERT_EQ(router, expected_router[hop]) << hop;
    r.route(router, f, route);
    ASSERT_EQ(route.count, 1);
    EXPECT_EQ(route.options[0].port, expected_port[hop]) << hop;
    EXPECT_EQ(route.options[0].vc_lo, 0);
    EXPECT_EQ(route.options[0].vc_hi, 1);
    if (hop < 2) router = t.link(router, route.options[0].port).router;
  }
  EXPECT_EQ(t.terminal(14, 2), 58);
}

// Every source-destination pair: the path is minimal whatever the packet id.
TEST(FlatFly, MinimalPathsReachEveryNode) {
  const NocParams p = flat_fly();
  const FlatFlyTopology t(p);
  FlatFlyMinimalRouting r(p, t);
  Route route;
  for (int src = 0; src < t.nodes(); ++src) {
    for (int dst = 0; dst < t.nodes(); ++dst) {
      Flit f;
      f.src = src;
      f.dst = dst;
      int router = t.attachment(src).router, hops = 0;
      for (;;) {
        r.route(router, f, route);
        const int port = route.options[0].port;
        if (t.terminal(router, port) >= 0) {
          EXPECT_EQ(t.terminal(router, port), dst);
          break;
        }
        router = t.link(router, port).router;
        ASSERT_LE(++hops, 2);
      }
      EXPECT_EQ(hops, t.distance(src, dst)) << src << " -> " << dst;
    }
  }
}

// Output channels of one router, 2 VCs of 8 flits; `used` flits sent (and
// not yet credited) on port `busy`.
std::vector<OutputChannel> outputs(int ports, int busy, int used) {
  std::vector<OutputChannel> out(static_cast<size_t>(ports));
  for (OutputChannel& o : out) o.init(2, 8, false, false);
  for (int i = 0; i < used; ++i) out[static_cast<size_t>(busy)].sent(i % 2, false);
  return out;
}

// Follows a UGAL packet from its source router with the given loads at the
// source; returns the routers it passes and checks the VC set per hop.
struct Walk {
  std::vector<int> routers;
  std::vector<int> vc_lo;
};
Walk walk_ugal(const FlatFlyTopology& t, const FlatFlyUgalRouting& r, Flit f, const OutputLoad& at_source) {
  Walk w;
  Route route;
  int router = t.attachment(f.src).router;
  for (int hop = 0; hop < 8; ++hop) {
    w.routers.push_back(router);
    r.route(router, f, route, hop == 0 ? at_source : OutputLoad{});
    EXPECT_EQ(route.count, 1);
    const RouteOption& o = route.options[0];
    w.vc_lo.push_back(o.vc_lo);
    EXPECT_EQ(o.vc_hi - o.vc_lo, t.terminal(router, o.port) >= 0 ? 1 : 0);  // a half, or all at the node
    if (t.terminal(router, o.port) >= 0) {
      EXPECT_EQ(t.terminal(router, o.port), f.dst);
      return w;
    }
    router = t.link(router, o.port).router;
  }
  ADD_FAILURE() << "no delivery";
  return w;
}

TEST(FlatFly, UgalTakesTheMinimalPathWhenItsQueueIsShort) {
  const NocParams p = flat_fly("ugal");
  const FlatFlyTopology t(p);
  FlatFlyUgalRouting r(p, t);
  Flit f;
  f.src = 1;   // router 0
  f.dst = 58;  // router 14
  // Empty queues: 2 x 0 <= hops x 0 + 2.
  const Walk w = walk_ugal(t, r, f, OutputLoad{});
  EXPECT_EQ(w.routers, (std::vector<int>{0, 2, 14}));
  EXPECT_EQ(w.vc_lo, (std::vector<int>{1, 1, 0}));  // the upper half, then every VC at the node
  // One flit on the minimal port and none elsewhere: 2 x 1 <= 0 + 2 still.
  const auto one = outputs(t.ports(), 5, 1);
  EXPECT_EQ(walk_ugal(t, r, f, OutputLoad{&one}).routers, (std::vector<int>{0, 2, 14}));
}

// Two flits on the minimal port: 2 x 2 > 0 + 2, so a packet whose
// intermediate router is neither the source nor the destination goes
// through it on the lower VC half, then on to the destination on the upper.
TEST(FlatFly, UgalGoesThroughTheIntermediateRouterWhenTheMinimalQueueIsLong) {
  const NocParams p = flat_fly("ugal");
  const FlatFlyTopology t(p);
  FlatFlyUgalRouting r(p, t);
  const auto loaded = outputs(t.ports(), 5, 2);  // port 5: router 0 towards x = 2
  int diverted = 0;
  for (uint64_t id = 0; id < 64; ++id) {
    Flit f;
    f.packet_id = id;
    f.src = 1;
    f.dst = 58;
    const int via = r.intermediate_router(id, 0, 14);
    // Only the coordinates in which 0 = (0, 0) and 14 = (2, 3) differ are drawn.
    EXPECT_TRUE(via >= 0 && via < 16);
    const Walk w = walk_ugal(t, r, f, OutputLoad{&loaded});
    const int to_via = t.router_distance(0, via), from_via = t.router_distance(via, 14);
    // Through x = 2 first (port 5) the Valiant path meets the same queue:
    // 2 x 2 <= 3 x 2 + 2 keeps the minimal path.
    const int q_via = t.next_port(0, via) == 5 ? 2 : 0;
    if (via == 0 || via == 14 || 2 * 2 <= (to_via + from_via) * q_via + 2) {
      EXPECT_EQ(w.routers, (std::vector<int>{0, 2, 14})) << id;
      continue;
    }
    ++diverted;
    ASSERT_GE(w.routers.size(), 3u);
    EXPECT_EQ(w.routers.back(), 14);
    // Hops to the intermediate router on VC 0, from it on VC 1, VC 0..1 at the node.
    ASSERT_EQ(static_cast<int>(w.routers.size()), to_via + from_via + 1) << id;
    EXPECT_EQ(w.routers[static_cast<size_t>(to_via)], via) << id;
    for (int hop = 0; hop < to_via + from_via; ++hop)
      EXPECT_EQ(w.vc_lo[static_cast<size_t>(hop)], hop < to_via ? 0 : 1);
    EXPECT_EQ(w.vc_lo.back(), 0);
  }
  // 16 intermediate routers are equally likely; 5 of them (x = 2, or the
  // source itself) keep the minimal path. Most of 64 packets go another way.
  EXPECT_GT(diverted, 32);
}

// Default unit delays: 5 cycles per router passed, 1 each for the source
// queue, injection and ejection, (F - 1) serialization: 5 (H + 1) + 2 + (F - 1).
TEST(FlatFly, ZeroLoadLatencyFollowsTheHops) {
  for (const char* routing : {"min", "ugal"}) {
    const NocParams p = flat_fly(routing);
    EXPECT_EQ(test::single_packet(p, 0, 3, 1).latency(), uint64_t{5 * 1 + 2}) << routing;
    EXPECT_EQ(test::single_packet(p, 0, 12, 1).latency(), uint64_t{5 * 2 + 2}) << routing;
    EXPECT_EQ(test::single_packet(p, 0, 63, 4).latency(), uint64_t{5 * 3 + 2 + 3}) << routing;
  }
}

// Under a burst UGAL sends packets off the minimal paths (more link hops
// than minimal routing), and every packet still arrives.
TEST(FlatFly, UgalSpreadsABurst) {
  uint64_t hops[2] = {};
  int i = 0;
  for (const char* routing : {"min", "ugal"}) {
    Network net(flat_fly(routing));
    test::drain_uniform_burst(net, 20, 4, 5);
    EXPECT_TRUE(net.checker()->ok());
    hops[i++] = net.flit_hops();
  }
  EXPECT_GT(hops[1], hops[0]);
}

TEST(FlatFly, ConfigurationNamesTheKey) {
  EXPECT_EQ(params({{"noc.topology", "flatfly"}}).routing, "min");  // the topology's default
  EXPECT_EQ(flat_fly().nodes(), 64);
  const auto error_of = [](test::Settings kv) {
    try {
      params(kv);
    } catch (const tessera::sim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of({{"noc.topology", "flatfly"}, {"noc.routing", "dor"}}).find("noc.routing"), std::string::npos);
  EXPECT_NE(error_of({{"noc.topology", "flatfly"}, {"noc.routing", "ugal"}, {"noc.vcs", "1"}}).find("noc.vcs"),
            std::string::npos);
  EXPECT_NE(error_of({{"noc.topology", "flatfly"}, {"noc.k", "16"}, {"noc.n", "5"}}).find("noc.n"), std::string::npos);
}

}  // namespace
