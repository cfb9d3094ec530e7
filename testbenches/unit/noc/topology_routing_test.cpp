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
  const Topology t(TopologyKind::kMesh, 4, 3);
  EXPECT_EQ(t.nodes(), 12);
  EXPECT_EQ(t.ports(), 5);
  EXPECT_EQ(t.neighbor(0, kMinusX), -1);
  EXPECT_EQ(t.neighbor(0, kPlusX), 1);
  EXPECT_EQ(t.neighbor(0, kPlusY), 4);
  EXPECT_EQ(t.neighbor(11, kPlusY), -1);
  EXPECT_EQ(t.distance(0, 11), 3 + 2);
}

TEST(Topology, TorusAndRingWrap) {
  const Topology torus(TopologyKind::kTorus, 4, 4);
  EXPECT_EQ(torus.neighbor(0, kMinusX), 3);
  EXPECT_EQ(torus.neighbor(0, kMinusY), 12);
  EXPECT_EQ(torus.distance(0, 15), 2);
  const Topology ring(TopologyKind::kRing, 6, 99);
  EXPECT_EQ(ring.nodes(), 6);
  EXPECT_EQ(ring.ports(), 3);
  EXPECT_EQ(ring.neighbor(5, kPlusX), 0);
  EXPECT_EQ(ring.distance(1, 5), 2);  // backwards round
  bool tie = false;
  EXPECT_EQ(ring.offset(0, 3, 0, &tie), 3);  // half way: positive, a tie
  EXPECT_TRUE(tie);
}

TEST(Topology, DatelineIsTheWrapLink) {
  const Topology ring(TopologyKind::kRing, 8, 1);
  EXPECT_TRUE(ring.crosses_dateline(6, 1, kPlusX));  // 6 -> 7 -> 0 -> 1
  EXPECT_FALSE(ring.crosses_dateline(1, 3, kPlusX));
  EXPECT_TRUE(ring.crosses_dateline(1, 6, kMinusX));  // 1 -> 0 -> 7 -> 6
  EXPECT_FALSE(Topology(TopologyKind::kMesh, 4, 4).crosses_dateline(3, 0, kMinusX));
}

TEST(Routing, DimensionOrderGoesXFirst) {
  const NocParams p = params({{"noc.vcs", "4"}, {"noc.classes", "2"}});
  const Topology t(p);
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

TEST(Routing, TorusDatelineSplitsTheClassVcs) {
  const NocParams p = params({{"noc.topology", "torus"}, {"noc.vcs", "4"}});
  const Topology t(p);
  DimensionOrderRouting r(p, t);
  Flit f;
  f.dst = 0;
  Route route;
  r.route(3, f, route);  // 3 -> 0 is one hop east over the wrap link: lower half
  EXPECT_EQ(route.options[0].port, kPlusX);
  EXPECT_EQ(route.options[0].vc_lo, 0);
  EXPECT_EQ(route.options[0].vc_hi, 1);
  f.dst = 2;
  r.route(1, f, route);  // no wrap ahead: upper half
  EXPECT_EQ(route.options[0].vc_lo, 2);
  EXPECT_EQ(route.options[0].vc_hi, 3);
}

TEST(Routing, AdaptiveOffersEveryProductivePortPlusEscape) {
  const NocParams p = params({{"noc.routing", "adaptive"}, {"noc.vcs", "3"}});
  const Topology t(p);
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
  const Topology t(p);
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
  const Topology t(p);
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
