// The topology interface: every registered topology (the names noc.topology
// accepts) is wired consistently and carries a saturating burst over minimal
// paths; coordinate traffic patterns refuse a topology without a grid.
#include <gtest/gtest.h>

#include <string>

#include "noc/routing.h"
#include "noc/topology.h"
#include "noc/traffic.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::params;

// noc.k = 4 for every topology but the dragonfly, whose p = 4 is 1056 nodes
// (p = 2: 72 nodes) and would take minutes for the burst below.
std::string k_of(const std::string& name) { return name == "dragonfly" ? "2" : "4"; }

NocParams registered(const std::string& name) {
  return params({{"noc.topology", name}, {"noc.k", k_of(name)}, {"noc.vcs", "2"}, {"noc.watchdog_cycles", "500"}});
}

TEST(TopologyRegistry, NamesAreWhatNocTopologyAccepts) {
  ASSERT_FALSE(topology_registry().empty());
  EXPECT_EQ(topology_names().size(), topology_registry().size());
  for (const TopologyInfo& t : topology_registry()) {
    EXPECT_EQ(registered(t.name).topology, t.name);
    EXPECT_EQ(make_topology(registered(t.name))->name(), t.name);
    EXPECT_FALSE(t.routings.empty()) << t.name;
  }
  try {
    params({{"noc.topology", "hypercube"}});
    FAIL();
  } catch (const tessera::sim::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("noc.topology"), std::string::npos) << what;
    for (const TopologyInfo& t : topology_registry()) EXPECT_NE(what.find(t.name), std::string::npos) << what;
  }
}

// Links go both ways (a flit leaving r on p arrives at (r', p'), and one
// leaving r' on p' arrives at (r, p), with the same delay); each node's
// attachment is a port that leads back to it and to no router.
TEST(TopologyRegistry, EveryTopologyIsWiredBothWays) {
  RouterDelays delays;
  delays.link = 3;
  delays.global_link = 7;
  for (const TopologyInfo& info : topology_registry()) {
    const auto topo = make_topology(registered(info.name));
    for (int r = 0; r < topo->routers(); ++r) {
      for (int port = 0; port < topo->ports(); ++port) {
        const PortRef next = topo->link(r, port);
        if (!next.valid()) continue;
        EXPECT_LT(topo->terminal(r, port), 0) << info.name << " router " << r << " port " << port;
        const PortRef back = topo->link(next.router, next.port);
        EXPECT_EQ(back.router, r) << info.name << " router " << r << " port " << port;
        EXPECT_EQ(back.port, port) << info.name << " router " << r << " port " << port;
        // Credits return over the link a flit took: both ends agree on its delay.
        EXPECT_EQ(topo->link_delay(r, port, delays), topo->link_delay(next.router, next.port, delays))
            << info.name << " router " << r << " port " << port;
      }
    }
    for (int n = 0; n < topo->nodes(); ++n) {
      const PortRef at = topo->attachment(n);
      EXPECT_EQ(topo->terminal(at.router, at.port), n) << info.name;
      EXPECT_FALSE(topo->link(at.router, at.port).valid()) << info.name;
      EXPECT_EQ(topo->distance(n, n), 0) << info.name;
    }
  }
}

// A burst of 100 4-flit packets per node to seeded uniform destinations
// drains (the watchdog throws on a deadlock) and every flit crosses exactly
// the links of a minimal path, sum(flits x distance), or at least as many
// with a routing function that also takes non-minimal paths. A routing
// kept for comparison with a peer that can deadlock (it refuses to run
// without noc.allow_unsafe_routing, naming it) gets that key.
TEST(TopologyRegistry, EveryTopologyDrainsABurstOverMinimalPaths) {
  for (const TopologyInfo& info : topology_registry()) {
    for (const std::string& routing : info.routings) {
      const auto with = [&](const char* unsafe) {
        return params({{"noc.topology", info.name},
                       {"noc.k", k_of(info.name)},
                       {"noc.vcs", "4"},
                       {"noc.routing", routing},
                       {"noc.allow_unsafe_routing", unsafe},
                       {"noc.watchdog_cycles", "500"}});
      };
      NocParams p;
      try {
        p = with("false");
      } catch (const tessera::sim::ConfigError& e) {
        ASSERT_NE(std::string(e.what()).find("noc.allow_unsafe_routing"), std::string::npos) << e.what();
        p = with("true");
      }
      Network net(p);
      const uint64_t hops = test::drain_uniform_burst(net, 100, 4, 3);
      if (net.routing().minimal()) {
        EXPECT_EQ(net.flit_hops(), hops) << info.name << " " << routing;
      } else {
        EXPECT_GE(net.flit_hops(), hops) << info.name << " " << routing;
      }
      EXPECT_TRUE(net.checker()->ok()) << info.name << " " << routing;
    }
  }
}

// Two routers of one node each, joined by one link: a topology without
// coordinates.
class Pair : public Topology {
 public:
  Pair() : Topology("pair", 2, 2, 2) {}
  PortRef attachment(int node) const override { return PortRef{node, 0}; }
  int terminal(int router, int port) const override { return port == 0 ? router : -1; }
  PortRef link(int router, int port) const override { return port == 1 ? PortRef{1 - router, 1} : PortRef{}; }
  int distance(int src, int dst) const override { return src == dst ? 0 : 1; }
  std::string port_name(int, int port) const override { return port == 0 ? "local" : "link"; }
  std::string node_name(int node) const override { return std::to_string(node); }
  std::string router_name(int router) const override { return std::to_string(router); }
  std::string shape() const override { return "2 routers"; }
  std::unique_ptr<RoutingFunction> make_routing(const NocParams&) const override { return nullptr; }
};

TEST(TopologyRegistry, CoordinatePatternsNeedAGrid) {
  const Pair pair;
  for (Pattern pattern : {Pattern::kTranspose, Pattern::kTornado, Pattern::kNeighbor}) {
    try {
      TrafficPattern t(pattern, pair);
      ADD_FAILURE() << pattern_names()[static_cast<int>(pattern)];
    } catch (const tessera::sim::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("noc.traffic"), std::string::npos) << what;
      EXPECT_NE(what.find("pair"), std::string::npos) << what;
    }
  }
  // Patterns on node numbers need none.
  Rng rng(1);
  EXPECT_EQ(TrafficPattern(Pattern::kBitComplement, pair).destination(0, rng), 1);
  EXPECT_LT(TrafficPattern(Pattern::kUniform, pair).destination(0, rng), 2);
}

}  // namespace
