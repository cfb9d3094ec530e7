// The dragonfly with p = 2 (72 nodes, 9 groups of 4 routers of 7 ports):
// BookSim2's wiring, distances, min and UGAL paths hop by hop with their VC
// sets, UGAL's decision against the output load, zero-load latency over
// 10-cycle local and 100-cycle global links, and the configuration checks.
//
// Expected ports come from BookSim2's dragonfly_port(rID, src, dest)
// (networks/dragonfly.cpp), worked by hand for p = 2, a = 4:
//   in group G, to a node of group D != G: grp_output = (G > D ? D : D - 1),
//   the router holding the link is G * 4 + grp_output / 2 and the link is
//   port p + (a - 1) + grp_output % 2 = 5 + grp_output % 2;
//   to router t of the group from router r: port t % 4 - 1 + 2 if r < t,
//   t % 4 + 2 if r > t; at the destination's router: dest % 2.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "noc/topology_dragonfly.h"
#include "noc/traffic.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::params;

RouterDelays local_10_global_100() {
  RouterDelays d;
  d.link = 10;
  d.global_link = 100;
  return d;
}

NocParams dragonfly(const char* routing = "min", const char* vcs = "3") {
  return params({{"noc.topology", "dragonfly"}, {"noc.k", "2"}, {"noc.routing", routing}, {"noc.vcs", vcs}});
}

TEST(Dragonfly, SizesAndShape) {
  const DragonflyTopology t(2);
  EXPECT_EQ(t.nodes(), 72);  // a h p g = 4 * 2 * 2 * 9
  EXPECT_EQ(t.routers(), 36);
  EXPECT_EQ(t.ports(), 7);  // 2 terminals, 3 local, 2 global
  EXPECT_EQ(t.groups(), 9);
  EXPECT_EQ(t.shape(), "p=2: 9 groups of 4 routers");
  EXPECT_EQ(DragonflyTopology(4).nodes(), 1056);  // 8 * 4 * 4 * 33
  EXPECT_EQ(t.attachment(5).router, 2);
  EXPECT_EQ(t.attachment(5).port, 1);
  EXPECT_EQ(t.terminal(23, 0), 46);
  EXPECT_EQ(t.terminal(23, 2), -1);
  EXPECT_FALSE(t.link(23, 1).valid());  // a node's port
}

// Every router's local ports reach each other router of its group once,
// arriving on the port that leads back.
TEST(Dragonfly, LocalPortsReachTheWholeGroup) {
  const DragonflyTopology t(2);
  for (int r = 0; r < t.routers(); ++r) {
    std::set<int> reached;
    for (int port = 2; port < 5; ++port) {
      const PortRef to = t.link(r, port);
      ASSERT_TRUE(to.valid());
      EXPECT_EQ(to.router / 4, r / 4) << r << " " << port;
      EXPECT_NE(to.router, r);
      reached.insert(to.router);
      EXPECT_EQ(t.link(to.router, to.port).router, r);
      EXPECT_EQ(t.link(to.router, to.port).port, port);
      EXPECT_EQ(t.link_delay(r, port, local_10_global_100()), 10);
    }
    EXPECT_EQ(reached.size(), 3u) << r;
  }
  // BookSim2: router 5 (group 1, index 1) port 2 -> index 0, port 4 -> index
  // 3; router 7's input 2 + 1 comes from index 1 (cnt 1 < 3).
  EXPECT_EQ(t.link(5, 2).router, 4);
  EXPECT_EQ(t.link(5, 2).port, 2);
  EXPECT_EQ(t.link(5, 4).router, 7);
  EXPECT_EQ(t.link(5, 4).port, 3);
}

// One global link joins each pair of groups, and it is where BookSim2's
// dragonfly_port puts it.
TEST(Dragonfly, OneGlobalLinkPerPairOfGroupsWhereBookSimPutsIt) {
  const DragonflyTopology t(2);
  std::vector<std::vector<int>> links(9, std::vector<int>(9, 0));
  for (int r = 0; r < t.routers(); ++r) {
    for (int port = 5; port < 7; ++port) {
      const PortRef to = t.link(r, port);
      ASSERT_TRUE(to.valid());
      EXPECT_GE(to.port, 5);
      EXPECT_EQ(t.link(to.router, to.port).router, r);
      EXPECT_EQ(t.link(to.router, to.port).port, port);
      EXPECT_EQ(t.link_delay(r, port, local_10_global_100()), 100);
      ++links[r / 4][to.router / 4];
    }
  }
  for (int g = 0; g < 9; ++g)
    for (int d = 0; d < 9; ++d) EXPECT_EQ(links[g][d], g == d ? 0 : 1) << g << " " << d;
  // Group 0 -> 5: grp_output 4, router 0 * 4 + 2, port 5 + 0; group 5 -> 0:
  // grp_output 0, router 20, port 5.
  EXPECT_EQ(t.link(2, 5).router, 20);
  EXPECT_EQ(t.link(2, 5).port, 5);
  // Group 7 -> 3: grp_output 3, router 28 + 1, port 5 + 1; group 3 -> 7:
  // grp_output 6, router 12 + 3, port 5 + 0.
  EXPECT_EQ(t.link(29, 6).router, 15);
  EXPECT_EQ(t.link(29, 6).port, 5);
  // Group 8 -> 0: grp_output 0, router 32, port 5; group 0 -> 8: grp_output
  // 7, router 3, port 6.
  EXPECT_EQ(t.link(32, 5).router, 3);
  EXPECT_EQ(t.link(32, 5).port, 6);
  EXPECT_EQ(t.global_router(0, 5), 2);
  EXPECT_EQ(t.global_port(0, 5), 5);
}

// Distances against BookSim2's dragonflynew_hopcnt, transcribed to Python
// outside the model: over all 72 x 72 pairs 144 are 0 hops, 720 1, 1728 2
// and 2592 3, 11952 hops in all.
TEST(Dragonfly, DistanceIsBookSimsHopCount) {
  const DragonflyTopology t(2);
  EXPECT_EQ(t.distance(0, 1), 0);   // one router
  EXPECT_EQ(t.distance(0, 2), 1);   // routers 0 and 1 of group 0
  EXPECT_EQ(t.distance(0, 8), 1);   // router 0 holds the link 0-1, which lands on router 4
  EXPECT_EQ(t.distance(0, 10), 2);  // ... then router 4 -> 5
  EXPECT_EQ(t.distance(0, 46), 3);  // 0 -> 2, 2 -> 20, 20 -> 23
  int count[4] = {}, total = 0;
  for (int s = 0; s < 72; ++s) {
    for (int d = 0; d < 72; ++d) {
      const int h = t.distance(s, d);
      ASSERT_GE(h, 0);
      ASSERT_LE(h, 3);
      ++count[h];
      total += h;
    }
  }
  EXPECT_EQ(count[0], 144);
  EXPECT_EQ(count[1], 720);
  EXPECT_EQ(count[2], 1728);
  EXPECT_EQ(count[3], 2592);
  EXPECT_EQ(total, 11952);
}

struct Hop {
  int router, port, vc_lo, vc_hi;
};

// Follows the routing function from the source's router to the
// destination's interface; `first` is the load the source router sees.
std::vector<Hop> walk(const DragonflyTopology& t, const RoutingFunction& r, Flit f, const OutputLoad& first = {}) {
  std::vector<Hop> hops;
  int router = t.attachment(f.src).router;
  Route route;
  for (int i = 0; i < 8; ++i) {
    r.route(router, f, route, i == 0 ? first : OutputLoad{});
    EXPECT_EQ(route.count, 1);
    const RouteOption& o = route.options[0];
    hops.push_back(Hop{router, o.port, o.vc_lo, o.vc_hi});
    if (t.terminal(router, o.port) >= 0) {
      EXPECT_EQ(t.terminal(router, o.port), f.dst);
      return hops;
    }
    router = t.link(router, o.port).router;
  }
  ADD_FAILURE() << "no delivery within 8 routers";
  return hops;
}

void expect_path(const std::vector<Hop>& got, const std::vector<Hop>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].router, want[i].router) << "hop " << i;
    EXPECT_EQ(got[i].port, want[i].port) << "hop " << i;
    EXPECT_EQ(got[i].vc_lo, want[i].vc_lo) << "hop " << i;
    EXPECT_EQ(got[i].vc_hi, want[i].vc_hi) << "hop " << i;
  }
}

Flit packet(int src, int dst, uint64_t id) {
  Flit f;
  f.src = src;
  f.dst = dst;
  f.packet_id = id;
  return f;
}

// Node 0 (router 0, group 0) to node 46 (router 23 = group 5, index 3):
// router 0 -> router 2 (local port 3, lower VC set), global port 5 to router
// 20 (upper set), local port 4 to router 23 (upper set), port 0 to the node
// (upper set).
TEST(Dragonfly, MinimalPathAndVcSets) {
  const NocParams p = dragonfly("min", "2");
  const DragonflyTopology t(p);
  DragonflyRouting r(p, t, false);
  EXPECT_TRUE(r.minimal());
  expect_path(walk(t, r, packet(0, 46, 1)), {{0, 3, 0, 0}, {2, 5, 1, 1}, {20, 4, 1, 1}, {23, 0, 1, 1}});
  // In the group: lower set throughout.
  expect_path(walk(t, r, packet(0, 6, 1)), {{0, 4, 0, 0}, {3, 0, 0, 0}});  // port 3 - 1 + 2
  // Two message classes of 2 VCs: class 1 uses VCs 2 and 3.
  const NocParams p2 = params(
      {{"noc.topology", "dragonfly"}, {"noc.k", "2"}, {"noc.vcs", "4"}, {"noc.classes", "2"}, {"noc.routing", "min"}});
  DragonflyRouting r2(p2, t, false);
  Flit f = packet(0, 46, 1);
  f.cls = 1;
  expect_path(walk(t, r2, f), {{0, 3, 2, 2}, {2, 5, 3, 3}, {20, 4, 3, 3}, {23, 0, 3, 3}});
}

// The intermediate group is SplitMix64(packet id) mod 9 (computed outside
// the model): id 7 -> 3, id 1 -> 5, id 3 -> 0.
TEST(Dragonfly, UgalWithEmptyQueuesTakesTheMinimalPath) {
  const NocParams p = dragonfly("ugal");
  const DragonflyTopology t(p);
  DragonflyRouting r(p, t, true);
  EXPECT_FALSE(r.minimal());
  expect_path(walk(t, r, packet(0, 46, 7)), {{0, 3, 0, 0}, {2, 5, 1, 1}, {20, 4, 1, 1}, {23, 0, 1, 1}});
}

// Router 0's outputs with `used` flits in the downstream buffers of each
// port (3 VCs of 16 flits; ports 0 and 1 are the nodes').
std::vector<OutputChannel> outputs(const std::vector<int>& used) {
  std::vector<OutputChannel> out(7);
  for (int port = 0; port < 7; ++port) {
    out[port].init(3, 16, port < 2, false);
    for (int left = used[port], vc = 0; left > 0; ++vc) {
      const int here = left < 16 ? left : 16;
      out[port].vc(vc).credits -= here;
      left -= here;
    }
  }
  return out;
}

// Node 0 -> node 46, packet 7 (intermediate group 3). Minimal output: port 3
// (to router 2, which holds the link 0-5); towards group 3: port 2 (router
// 1 holds the link 0-3: grp_output 2). Minimal when q_min <= 2 q_nonmin +
// 30. Non-minimal: router 0 -> 1 (port 2, set 0), global port 5 to group 3,
// landing on router 12 (group 3's link 0), -> router 14 (port 3, set 1),
// which holds group 3's link to group 5 (grp_output 4: port 5, set 2),
// landing on router 21 (group 5's link 3: index 1, port 6), -> router 23
// (port 4, set 2), port 0 to the node.
TEST(Dragonfly, UgalWithALoadedMinimalPortGoesThroughTheHashedGroup) {
  const NocParams p = dragonfly("ugal");
  const DragonflyTopology t(p);
  DragonflyRouting r(p, t, true);
  const std::vector<Hop> minimal{{0, 3, 0, 0}, {2, 5, 1, 1}, {20, 4, 1, 1}, {23, 0, 1, 1}};
  const std::vector<Hop> through3{{0, 2, 0, 0},  {1, 5, 1, 1},  {12, 3, 1, 1},
                                  {14, 5, 2, 2}, {21, 4, 2, 2}, {23, 0, 2, 2}};

  auto q31 = outputs({0, 0, 0, 31, 0, 0, 0});
  expect_path(walk(t, r, packet(0, 46, 7), OutputLoad{&q31}), through3);
  EXPECT_EQ(t.link(1, 5).router, 12);
  EXPECT_EQ(t.link(14, 5).router, 21);
  EXPECT_EQ(t.link(14, 5).port, 6);
  // The head carries the decision: intermediate group 3, and 1 + the set of
  // the hop chosen (0: local in the source group).
  Flit f = packet(0, 46, 7);
  Route route;
  r.route(0, f, route, OutputLoad{&q31});
  EXPECT_EQ(f.intermediate, 3);
  EXPECT_EQ(f.phase, 1);

  auto q30 = outputs({0, 0, 0, 30, 0, 0, 0});  // 30 <= 0 + 30
  expect_path(walk(t, r, packet(0, 46, 7), OutputLoad{&q30}), minimal);
  auto q32 = outputs({0, 0, 1, 32, 0, 0, 0});  // 32 <= 2 + 30
  expect_path(walk(t, r, packet(0, 46, 7), OutputLoad{&q32}), minimal);
  auto q33 = outputs({0, 0, 1, 33, 0, 0, 0});
  expect_path(walk(t, r, packet(0, 46, 7), OutputLoad{&q33}), through3);
  // Packet 1's group is the destination's, packet 3's the source's: minimal
  // whatever the load.
  auto q48 = outputs({0, 0, 0, 48, 0, 0, 0});
  expect_path(walk(t, r, packet(0, 46, 1), OutputLoad{&q48}), minimal);
  expect_path(walk(t, r, packet(0, 46, 3), OutputLoad{&q48}), minimal);
  // In the source's group UGAL routes minimally.
  expect_path(walk(t, r, packet(0, 6, 7), OutputLoad{&q48}), {{0, 4, 0, 0}, {3, 0, 0, 0}});
}

// BookSim2's own UGAL (ugal_node), for comparisons: packet 7's intermediate
// node is SplitMix64(7) mod 72 = 39 (router 19, group 4; computed outside
// the model). With port 3 loaded (31 > 2 x 0 + 30) it goes on VC 0 all the
// way to router 19, global hop included: router 0 -> 1 (port 2), global
// port 6 to group 4 (link 0-4 is group 0's link 3), landing on router 16
// (group 4's link 0), -> router 19 (port 4). From there minimally on VC 1:
// -> router 18 (port 4, holding group 4's link to 5), its global port 5
// on VC 2, landing on router 22 (group 5's link 4), -> router 23 (port 4),
// the node on VC 2. Minimal packets start on VC 1 (VC 2 from the global
// hop on); a destination in the source's group is VC 2 throughout.
TEST(Dragonfly, UgalNodeIsBookSimsRuleAndNeedsUnsafeRouting) {
  try {
    dragonfly("ugal_node");
    ADD_FAILURE() << "accepted";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("noc.allow_unsafe_routing"), std::string::npos) << e.what();
  }
  const NocParams p = params({{"noc.topology", "dragonfly"},
                              {"noc.k", "2"},
                              {"noc.routing", "ugal_node"},
                              {"noc.vcs", "3"},
                              {"noc.allow_unsafe_routing", "true"}});
  const DragonflyTopology t(p);
  DragonflyNodeUgalRouting r(p, t);
  EXPECT_FALSE(r.minimal());
  auto q31 = outputs({0, 0, 0, 31, 0, 0, 0});
  expect_path(walk(t, r, packet(0, 46, 7), OutputLoad{&q31}),
              {{0, 2, 0, 0}, {1, 6, 0, 0}, {16, 4, 0, 0}, {19, 4, 1, 1}, {18, 5, 2, 2}, {22, 4, 2, 2}, {23, 0, 2, 2}});
  auto q30 = outputs({0, 0, 0, 30, 0, 0, 0});  // 30 <= 0 + 30: minimal
  expect_path(walk(t, r, packet(0, 46, 7), OutputLoad{&q30}),
              {{0, 3, 1, 1}, {2, 5, 2, 2}, {20, 4, 2, 2}, {23, 0, 2, 2}});
  expect_path(walk(t, r, packet(0, 6, 7), OutputLoad{&q31}), {{0, 4, 2, 2}, {3, 0, 2, 2}});
}

// A group sending everything to the next group: the minimal paths share the
// one global link 0-1 (and the local links to router 0, which holds it);
// UGAL sends part of the load through other groups (more hops) and drains
// the burst sooner. Both drain, every flit once.
TEST(Dragonfly, UgalSpreadsAnAdversarialBurst) {
  uint64_t cycles[2] = {}, hops[2] = {}, minimal_hops = 0;
  const char* routings[2] = {"min", "ugal"};
  for (int i = 0; i < 2; ++i) {
    const NocParams p = params({{"noc.topology", "dragonfly"},
                                {"noc.k", "2"},
                                {"noc.routing", routings[i]},
                                {"noc.vcs", "3"},
                                {"noc.vc_buf", "64"},
                                {"noc.watchdog_cycles", "1000"}});
    Network net(p);
    minimal_hops = 0;
    for (int n = 0; n < 50; ++n) {
      for (int src = 0; src < 8; ++src) {
        Packet pk;
        pk.src = src;
        pk.dst = 8 + (src + n) % 8;
        pk.flits = 4;
        minimal_hops += 4u * static_cast<uint64_t>(net.topology().distance(pk.src, pk.dst));
        net.enqueue(pk);
      }
    }
    while (net.packets_delivered() < net.packets_enqueued()) net.step();
    EXPECT_TRUE(net.checker()->ok()) << routings[i];
    cycles[i] = net.now();
    hops[i] = net.flit_hops();
  }
  EXPECT_EQ(hops[0], minimal_hops);
  EXPECT_GT(hops[1], minimal_hops);
  EXPECT_LT(cycles[1], cycles[0]);
}

// 10-cycle local links, 100-cycle global links (and, by default, 10-cycle
// injection and ejection channels). A packet leaves its source queue the
// cycle after its creation; its head spends rc + va + sa + st = 4 cycles in
// each of the H + 1 routers it passes, then the link out:
//   latency = 1 + injection + 4 (H + 1) + 10 (local hops) + 100 (global hops)
//             + ejection + (F - 1).
TEST(Dragonfly, ZeroLoadLatencyFollowsTheHopKinds) {
  const NocParams p = params(
      {{"noc.topology", "dragonfly"}, {"noc.k", "2"}, {"noc.delay.link", "10"}, {"noc.delay.global_link", "100"}});
  EXPECT_EQ(test::single_packet(p, 0, 1, 1).latency(), uint64_t{1 + 10 + 4 + 10});              // same router
  EXPECT_EQ(test::single_packet(p, 0, 2, 1).latency(), uint64_t{1 + 10 + 8 + 10 + 10});         // local
  EXPECT_EQ(test::single_packet(p, 0, 8, 1).latency(), uint64_t{1 + 10 + 8 + 100 + 10});        // global
  EXPECT_EQ(test::single_packet(p, 0, 10, 1).latency(), uint64_t{1 + 10 + 12 + 110 + 10});      // global, local
  EXPECT_EQ(test::single_packet(p, 0, 46, 1).latency(), uint64_t{1 + 10 + 16 + 120 + 10});      // local, global, local
  EXPECT_EQ(test::single_packet(p, 0, 46, 4).latency(), uint64_t{1 + 10 + 16 + 120 + 10 + 3});  // 4 flits
  // BookSim's terminal channels are 1 cycle: injection and ejection 1.
  const NocParams b = params({{"noc.topology", "dragonfly"},
                              {"noc.k", "2"},
                              {"noc.delay.link", "10"},
                              {"noc.delay.credit", "10"},
                              {"noc.delay.injection", "1"},
                              {"noc.delay.ejection", "1"},
                              {"noc.delay.global_link", "100"}});
  EXPECT_EQ(test::single_packet(b, 0, 46, 1).latency(), uint64_t{1 + 1 + 16 + 120 + 1});
}

TEST(Dragonfly, ConfigurationNamesTheKey) {
  EXPECT_EQ(dragonfly().routing, "min");
  EXPECT_EQ(params({{"noc.topology", "dragonfly"}, {"noc.k", "2"}}).routing, "min");  // the default
  EXPECT_EQ(dragonfly().ugal_threshold, 30);
  EXPECT_EQ(dragonfly().nodes(), 72);
  auto names = [](tessera::noc::test::Settings s, const char* key) {
    try {
      params(s);
      ADD_FAILURE() << "accepted";
    } catch (const tessera::sim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  names({{"noc.topology", "dragonfly"}, {"noc.k", "2"}, {"noc.vcs", "1"}}, "noc.vcs");
  names({{"noc.topology", "dragonfly"}, {"noc.k", "2"}, {"noc.vcs", "2"}, {"noc.routing", "ugal"}}, "noc.vcs");
  names(
      {{"noc.topology", "dragonfly"}, {"noc.k", "2"}, {"noc.vcs", "4"}, {"noc.classes", "2"}, {"noc.routing", "ugal"}},
      "noc.vcs");
  names({{"noc.topology", "dragonfly"}, {"noc.k", "9"}}, "noc.k");
  names({{"noc.topology", "dragonfly"}, {"noc.routing", "dor"}}, "noc.routing");
  try {
    const DragonflyTopology t(2);
    TrafficPattern tp(Pattern::kTranspose, t);
    FAIL();
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("noc.traffic"), std::string::npos) << e.what();
  }
}

}  // namespace
