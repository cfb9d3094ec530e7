// Topologies (neighbours, distances, datelines) and routing functions (VC
// ranges per class, dateline halves, adaptive options with escape VCs).
#include <gtest/gtest.h>

#include "noc/routing.h"
#include "noc/topology.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::params;

TEST(Topology, MeshEdgesHaveNoNeighbour) {
  const GridTopology t(GridKind::kMesh, 4, 3);
  EXPECT_EQ(t.nodes(), 12);
  EXPECT_EQ(t.ports(), 5);
  EXPECT_EQ(t.neighbor(0, kMinusX), -1);
  EXPECT_EQ(t.neighbor(0, kPlusX), 1);
  EXPECT_EQ(t.neighbor(0, kPlusY), 4);
  EXPECT_EQ(t.neighbor(11, kPlusY), -1);
  EXPECT_EQ(t.distance(0, 11), 3 + 2);
}

TEST(Topology, TorusAndRingWrap) {
  const GridTopology torus(GridKind::kTorus, 4, 4);
  EXPECT_EQ(torus.neighbor(0, kMinusX), 3);
  EXPECT_EQ(torus.neighbor(0, kMinusY), 12);
  EXPECT_EQ(torus.distance(0, 15), 2);
  const GridTopology ring(GridKind::kRing, 6, 99);
  EXPECT_EQ(ring.nodes(), 6);
  EXPECT_EQ(ring.ports(), 3);
  EXPECT_EQ(ring.neighbor(5, kPlusX), 0);
  EXPECT_EQ(ring.distance(1, 5), 2);  // backwards round
  bool tie = false;
  EXPECT_EQ(ring.offset(0, 3, 0, &tie), 3);  // half way: positive, a tie
  EXPECT_TRUE(tie);
}

TEST(Topology, DatelineIsTheWrapLink) {
  const GridTopology ring(GridKind::kRing, 8, 1);
  EXPECT_TRUE(ring.crosses_dateline(6, 1, kPlusX));  // 6 -> 7 -> 0 -> 1
  EXPECT_FALSE(ring.crosses_dateline(1, 3, kPlusX));
  EXPECT_TRUE(ring.crosses_dateline(1, 6, kMinusX));  // 1 -> 0 -> 7 -> 6
  EXPECT_FALSE(GridTopology(GridKind::kMesh, 4, 4).crosses_dateline(3, 0, kMinusX));
}

TEST(Routing, DimensionOrderGoesXFirst) {
  const NocParams p = params({{"noc.vcs", "4"}, {"noc.classes", "2"}});
  const GridTopology t(p);
  DimensionOrderRouting r(p, t);
  Flit f;
  f.dst = 15;  // (3,3)
  f.cls = 1;   // the second class: VCs 2..3
  Route route;
  r.route(0, f, route);
  ASSERT_EQ(route.count, 1);
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[0].vc_lo, 2);
  EXPECT_EQ(route.options[0].vc_hi, 3);
  r.route(3, f, route);  // x done
  EXPECT_EQ(route.options[0].port, kPlusY);
  r.route(15, f, route);
  EXPECT_EQ(route.options[0].port, kLocal);
}

TEST(Routing, PlusTieSwitchesTheVcHalfOnCrossingTheDateline) {
  const NocParams p = params({{"noc.topology", "torus"}, {"noc.vcs", "4"}, {"noc.wrap_rule", "plus_tie"}});
  const GridTopology t(p);
  DimensionOrderRouting r(p, t);
  Flit f;
  f.src = 3;
  f.dst = 0;
  Route route;
  r.route(3, f, route);  // 3 -> 0 is one hop east over the wrap link: lower half
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[0].vc_lo, 0);
  EXPECT_EQ(route.options[0].vc_hi, 1);
  f.src = 2;
  f.dst = 1;
  r.route(0, f, route);  // 2 -> 3 -> 0 -> 1, past the wrap link: upper half
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[0].vc_lo, 2);
  EXPECT_EQ(route.options[0].vc_hi, 3);
  f.src = 0;
  f.dst = 2;
  for (uint64_t id = 0; id < 16; ++id) {
    f.packet_id = id;
    r.route(0, f, route);  // half-way: always +
    EXPECT_EQ(route.options[0].port, kPlusX);
  }
}

// BookSim2's dim_order_torus: the VC half of a dimension is fixed as the
// packet enters it: upper if its path in the dimension crosses the wrap
// link, lower if not; the destination router's ejection takes any VC.
TEST(Routing, RandomTieFixesTheVcHalfPerDimensionAtEntry) {
  const NocParams p = params({{"noc.topology", "ring"}, {"noc.k", "8"}, {"noc.vcs", "4"}});
  ASSERT_EQ(p.wrap_rule, WrapRule::kRandomTie);  // the default
  const GridTopology t(p);
  DimensionOrderRouting r(p, t);
  Flit f;
  Route route;
  f.src = 6;
  f.dst = 1;
  for (int node : {6, 7, 0}) {  // 6 -> 7 -> 0 -> 1: before and after the wrap link alike
    r.route(node, f, route);
    EXPECT_EQ(route.options[0].port, kPlusX) << node;
    EXPECT_EQ(route.options[0].vc_lo, 2) << node;
    EXPECT_EQ(route.options[0].vc_hi, 3) << node;
  }
  r.route(1, f, route);
  EXPECT_EQ(route.options[0].port, kLocal);
  EXPECT_EQ(route.options[0].vc_lo, 0);
  EXPECT_EQ(route.options[0].vc_hi, 3);
  f.src = 1;
  f.dst = 3;
  for (int node : {1, 2}) {  // no wrap link on the way: lower half
    r.route(node, f, route);
    EXPECT_EQ(route.options[0].port, kPlusX) << node;
    EXPECT_EQ(route.options[0].vc_lo, 0) << node;
    EXPECT_EQ(route.options[0].vc_hi, 1) << node;
  }
  f.src = 0;
  f.dst = 4;
  f.packet_id = 2;  // SplitMix64(2) is even: this tie goes -, 0 -> 7 -> 6 -> 5 -> 4, over the wrap link
  for (int node : {0, 7, 6, 5}) {
    r.route(node, f, route);
    EXPECT_EQ(route.options[0].port, kMinusX) << node;
    EXPECT_EQ(route.options[0].vc_lo, 2) << node;
  }
  f.packet_id = 0;  // odd: + the whole way, 0 -> 1 -> 2 -> 3 -> 4, lower half
  for (int node : {0, 1, 2, 3}) {
    r.route(node, f, route);
    EXPECT_EQ(route.options[0].port, kPlusX) << node;
    EXPECT_EQ(route.options[0].vc_lo, 0) << node;
  }
}

TEST(Routing, RandomTieChoosesTheYHalfWhenTurningIntoY) {
  const NocParams p = params({{"noc.topology", "torus"}, {"noc.vcs", "2"}});
  const GridTopology t(p);
  DimensionOrderRouting r(p, t);
  Flit f;
  f.src = t.node_at(3, 0);
  f.dst = t.node_at(0, 1);
  Route route;
  r.route(f.src, f, route);  // x: 3 -> 0 over the wrap link, upper VC
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[0].vc_lo, 1);
  r.route(t.node_at(0, 0), f, route);  // y: 0 -> 1, no wrap link, lower VC
  EXPECT_EQ(route.options[0].port, kPlusY);
  EXPECT_EQ(route.options[0].vc_lo, 0);
  EXPECT_EQ(route.options[0].vc_hi, 0);
}

// Half-way round, the direction is bit `dim` of SplitMix64 of the packet id
// (odd: +). Over ids 0..999 bit 0 is set 496 times and bit 1 499 times
// (SplitMix64 reference: the first output from state 0 is
// 0xe220a8397b1dcdaf, odd and with bit 1 set).
TEST(Routing, RandomTieSplitsHalfWayPacketsBetweenBothDirections) {
  const NocParams p = params({{"noc.topology", "torus"}, {"noc.vcs", "2"}});
  const GridTopology t(p);
  DimensionOrderRouting r(p, t);
  Flit f;
  f.src = t.node_at(0, 0);
  f.dst = t.node_at(2, 2);
  int plus_x = 0, minus_x = 0, plus_y = 0, minus_y = 0;
  Route route;
  for (uint64_t id = 0; id < 1000; ++id) {
    f.packet_id = id;
    r.route(f.src, f, route);
    plus_x += route.options[0].port == kPlusX;
    minus_x += route.options[0].port == kMinusX;
    r.route(t.node_at(2, 0), f, route);  // the same packet turning into y
    plus_y += route.options[0].port == kPlusY;
    minus_y += route.options[0].port == kMinusY;
  }
  EXPECT_EQ(plus_x, 496);
  EXPECT_EQ(minus_x, 504);
  EXPECT_EQ(plus_y, 499);
  EXPECT_EQ(minus_y, 501);
  f.packet_id = 0;
  r.route(f.src, f, route);
  EXPECT_EQ(route.options[0].port, kPlusX);
  r.route(t.node_at(1, 0), f, route);  // one hop on: no longer a tie, still +
  EXPECT_EQ(route.options[0].port, kPlusX);
}

TEST(Routing, AdaptiveOffersEveryProductivePortPlusEscape) {
  const NocParams p = params({{"noc.routing", "adaptive"}, {"noc.vcs", "3"}});
  const GridTopology t(p);
  MinimalAdaptiveRouting r(p, t);
  EXPECT_EQ(r.escape_vcs(), 1);
  Flit f;
  f.dst = 15;
  Route route;
  r.route(0, f, route);
  ASSERT_EQ(route.count, 3);
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[1].port, kPlusY);
  EXPECT_EQ(route.options[0].vc_lo, 1);  // adaptive VCs 1..2
  EXPECT_EQ(route.options[0].vc_hi, 2);
  EXPECT_TRUE(route.options[2].escape);  // escape: XY on VC 0
  EXPECT_EQ(route.options[2].port, kPlusX);
  EXPECT_EQ(route.options[2].vc_lo, 0);
  EXPECT_EQ(route.options[2].vc_hi, 0);
}

TEST(Routing, WestFirstGoesWestAloneThenAdapts) {
  const NocParams p = params({{"noc.routing", "adaptive"}, {"noc.adaptive", "west_first"}, {"noc.vcs", "2"}});
  const GridTopology t(p);
  MinimalAdaptiveRouting r(p, t);
  Flit f;
  f.dst = t.node_at(0, 3);
  Route route;
  r.route(t.node_at(2, 0), f, route);  // must go west: -x only (plus the XY escape, also -x)
  ASSERT_EQ(route.count, 2);
  EXPECT_EQ(route.options[0].port, kMinusX);
  EXPECT_EQ(route.options[1].port, kMinusX);
  EXPECT_TRUE(route.options[1].escape);
  f.dst = t.node_at(3, 3);
  r.route(t.node_at(1, 0), f, route);  // east and north both productive
  ASSERT_EQ(route.count, 3);
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[1].port, kPlusY);
}

TEST(Routing, OddEvenForbidsEastToVerticalTurnsInEvenColumns) {
  const NocParams p =
      params({{"noc.routing", "adaptive"}, {"noc.adaptive", "odd_even"}, {"noc.escape_vc", "false"}, {"noc.k", "6"}});
  const GridTopology t(p);
  MinimalAdaptiveRouting r(p, t);
  Flit f;
  f.src = t.node_at(0, 0);
  f.dst = t.node_at(5, 3);  // column 5 is odd
  Route route;
  r.route(t.node_at(2, 0), f, route);  // even column, not the source's: east only
  ASSERT_EQ(route.count, 1);
  EXPECT_EQ(route.options[0].port, kPlusX);
  r.route(t.node_at(3, 0), f, route);  // odd column: north or east
  ASSERT_EQ(route.count, 2);
  EXPECT_EQ(route.options[0].port, kPlusY);
  EXPECT_EQ(route.options[1].port, kPlusX);
  f.dst = t.node_at(4, 3);             // even destination column
  r.route(t.node_at(3, 0), f, route);  // one column short of it: must turn north here
  ASSERT_EQ(route.count, 1);
  EXPECT_EQ(route.options[0].port, kPlusY);
  f.src = t.node_at(5, 0);
  f.dst = t.node_at(1, 3);             // westbound
  r.route(t.node_at(3, 0), f, route);  // odd column: west only (no N/S-to-west turn later in an odd column)
  ASSERT_EQ(route.count, 1);
  EXPECT_EQ(route.options[0].port, kMinusX);
  r.route(t.node_at(2, 0), f, route);  // even column: west or north
  EXPECT_EQ(route.count, 2);
}

}  // namespace
