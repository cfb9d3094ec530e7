// Bad configurations are ConfigErrors that name the key (and list choices).
#include <gtest/gtest.h>

#include <string>

#include "noc/traffic.h"
#include "noc_test_util.h"
#include "rtl/common/lockstep.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::measure;
using tessera::noc::test::params;
using tessera::noc::test::Settings;

std::string error_of(Settings s) {
  try {
    params(s);
  } catch (const tessera::sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(NocParams, DefaultsAreTheIssueDefaults) {
  const NocParams p = params({});
  EXPECT_EQ(p.delay.rc, 1);
  EXPECT_EQ(p.delay.va, 1);
  EXPECT_EQ(p.delay.sa, 1);
  EXPECT_EQ(p.delay.st, 1);
  EXPECT_EQ(p.delay.link, 1);
  EXPECT_EQ(p.delay.credit, 1);
  EXPECT_EQ(p.delay.source_queue, 1);
  EXPECT_EQ(p.delay.injection, 1);
  EXPECT_EQ(p.delay.ejection, 1);
  EXPECT_FALSE(p.atomic_vc);  // auto with dimension-order routing
  EXPECT_EQ(p.m, p.k);
}

TEST(NocParams, InterfaceChannelsDefaultToTheLinkDelay) {
  EXPECT_EQ(params({}).delay.injection, 1);
  EXPECT_EQ(params({}).delay.ejection, 1);
  const NocParams slow = params({{"noc.delay.link", "3"}});
  EXPECT_EQ(slow.delay.injection, 3);
  EXPECT_EQ(slow.delay.ejection, 3);
  const NocParams own = params({{"noc.delay.link", "3"}, {"noc.delay.injection", "0"}, {"noc.delay.ejection", "2"}});
  EXPECT_EQ(own.delay.injection, 0);
  EXPECT_EQ(own.delay.ejection, 2);
  EXPECT_NE(error_of({{"noc.delay.ejection", "0"}}).find("noc.delay.ejection"), std::string::npos);
  EXPECT_NE(error_of({{"noc.delay.injection", "-1"}}).find("noc.delay.injection"), std::string::npos);
}

TEST(NocParams, SourceQueueDelayIsItsOwnStage) {
  // A pipeline stage of the interface, not a channel: it keeps its 1 cycle
  // whatever the link delay, and 0 (the packet enters the injection channel
  // in the cycle it is created) is allowed.
  EXPECT_EQ(params({{"noc.delay.link", "3"}}).delay.source_queue, 1);
  EXPECT_EQ(params({{"noc.delay.source_queue", "0"}}).delay.source_queue, 0);
  EXPECT_EQ(params({{"noc.delay.source_queue", "4"}}).delay.head_latency(2), 4 + 1 + 3 * 4 + 2 + 1);
  EXPECT_NE(error_of({{"noc.delay.source_queue", "-1"}}).find("noc.delay.source_queue"), std::string::npos);
  EXPECT_NE(error_of({{"noc.delay.source_queue", "17"}}).find("noc.delay.source_queue"), std::string::npos);
}

TEST(AtomicVc, AutoIsAtomicOnlyForAdaptiveRouting) {
  // auto (the default): non-atomic for dimension-order routing, which is
  // deadlock free without it (BookSim's wait_for_tail_credit = 0); atomic
  // for adaptive routing, whose escape-VC argument needs it.
  EXPECT_FALSE(params({}).atomic_vc);
  EXPECT_FALSE(params({{"noc.atomic_vc", "auto"}, {"noc.routing", "dor"}}).atomic_vc);
  EXPECT_FALSE(params({{"noc.topology", "torus"}, {"noc.routing", "dor"}}).atomic_vc);
  EXPECT_TRUE(params({{"noc.routing", "adaptive"}, {"noc.vcs", "2"}}).atomic_vc);
  EXPECT_TRUE(params({{"noc.routing", "adaptive"}, {"noc.adaptive", "west_first"}}).atomic_vc);
  EXPECT_TRUE(NocParams::atomic_vc_auto("adaptive"));
  EXPECT_FALSE(NocParams::atomic_vc_auto("dor"));
  // Explicit values win.
  EXPECT_TRUE(params({{"noc.atomic_vc", "true"}}).atomic_vc);
  EXPECT_FALSE(params({{"noc.atomic_vc", "false"}, {"noc.routing", "adaptive"}, {"noc.allow_unsafe_routing", "true"}})
                   .atomic_vc);
  EXPECT_NE(error_of({{"noc.atomic_vc", "maybe"}}).find("auto|true|false"), std::string::npos);
  // Adaptive routing with non-atomic VCs loses its deadlock-freedom proof.
  EXPECT_NE(error_of({{"noc.routing", "adaptive"}, {"noc.atomic_vc", "false"}}).find("noc.atomic_vc"),
            std::string::npos);
}

TEST(NocParams, UnknownNamesListTheValidOnes) {
  EXPECT_NE(error_of({{"noc.topology", "hypercube"}}).find("ring|mesh|torus"), std::string::npos);
  EXPECT_NE(error_of({{"noc.routing", "valiant"}}).find("dor|adaptive"), std::string::npos);
  EXPECT_NE(error_of({{"noc.allocator", "wavefront"}}).find("separable_input_first|islip"), std::string::npos);
  try {
    measure({{"noc.traffic", "randperm"}});
    FAIL();
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("uniform|transpose|bitcomp|bitrev|shuffle|tornado|neighbor|hotspot"),
              std::string::npos);
  }
}

TEST(NocParams, ImpossibleValuesNameTheKey) {
  EXPECT_NE(error_of({{"noc.vcs", "0"}}).find("noc.vcs"), std::string::npos);
  EXPECT_NE(error_of({{"noc.vc_buf", "0"}}).find("noc.vc_buf"), std::string::npos);
  EXPECT_NE(error_of({{"noc.vcs", "3"}, {"noc.classes", "2"}}).find("noc.vcs"), std::string::npos);
  // A torus with datelines needs two VCs per class.
  EXPECT_NE(error_of({{"noc.topology", "torus"}, {"noc.vcs", "1"}}).find("noc.vcs"), std::string::npos);
  // Adaptive routing without the escape VC it needs.
  EXPECT_NE(error_of({{"noc.routing", "adaptive"}, {"noc.escape_vc", "false"}}).find("noc.escape_vc"),
            std::string::npos);
  EXPECT_NE(error_of({{"noc.topology", "torus"}, {"noc.dateline", "false"}}).find("noc.dateline"), std::string::npos);
  // West-first needs no escape VC on a mesh, but does around a torus.
  EXPECT_EQ(error_of({{"noc.routing", "adaptive"}, {"noc.adaptive", "west_first"}, {"noc.escape_vc", "false"}}), "");
  EXPECT_NE(error_of({{"noc.topology", "torus"},
                      {"noc.vcs", "4"},
                      {"noc.routing", "adaptive"},
                      {"noc.adaptive", "west_first"},
                      {"noc.escape_vc", "false"}})
                .find("noc.escape_vc"),
            std::string::npos);
  // Escape VC plus at least one adaptive VC.
  EXPECT_NE(error_of({{"noc.routing", "adaptive"}, {"noc.vcs", "1"}}).find("noc.vcs"), std::string::npos);
  EXPECT_NE(error_of({{"noc.delay.link", "0"}}).find("noc.delay.link"), std::string::npos);
}

TEST(NocParams, WholePacketFlowControlNeedsBufferForAPacket) {
  const NocParams p = params({{"noc.flow_control", "vct"}, {"noc.vc_buf", "4"}});
  EXPECT_NO_THROW(p.validate(4));
  try {
    p.validate(5);
    FAIL();
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("noc.vc_buf"), std::string::npos);
  }
  EXPECT_NO_THROW(params({{"noc.vc_buf", "1"}}).validate(16));  // wormhole: any packet
}

// The RTL router routes a ring with plus_tie only (its head flit carries no
// source and no tie bit), and every router of a network must route alike.
TEST(NocParams, WrapRuleAutoFollowsTheRouterImplementation) {
  EXPECT_EQ(params({{"noc.topology", "ring"}, {"noc.k", "8"}}).wrap_rule, WrapRule::kRandomTie);
  EXPECT_EQ(params({{"noc.topology", "ring"}, {"noc.k", "8"}, {"noc.router_impl", "lockstep"}}).wrap_rule,
            WrapRule::kPlusTie);
  EXPECT_EQ(params({{"noc.topology", "torus"}, {"noc.wrap_rule", "plus_tie"}}).wrap_rule, WrapRule::kPlusTie);
  const std::string e = error_of({{"noc.topology", "ring"},
                                  {"noc.k", "8"},
                                  {"noc.router_impl", "rtl"},
                                  {"noc.router_impl_routers", "3"},
                                  {"noc.wrap_rule", "random_tie"}});
  EXPECT_NE(e.find("noc.wrap_rule"), std::string::npos) << e;
  EXPECT_NE(error_of({{"noc.wrap_rule", "minus_tie"}}).find("noc.wrap_rule"), std::string::npos);
}

TEST(NocParams, RouterImplAppliesToTheListedRoutersOnly) {
  const NocParams all = params({{"noc.router_impl", "lockstep"}});
  EXPECT_EQ(all.impl_of(0), tessera::rtl::Impl::kLockstep);
  EXPECT_EQ(all.impl_of(15), tessera::rtl::Impl::kLockstep);
  const NocParams some = params({{"noc.router_impl", "rtl"}, {"noc.router_impl_routers", "5,6"}});
  EXPECT_EQ(some.impl_of(4), tessera::rtl::Impl::kModel);
  EXPECT_EQ(some.impl_of(5), tessera::rtl::Impl::kRtl);
  EXPECT_EQ(some.impl_of(6), tessera::rtl::Impl::kRtl);
  EXPECT_EQ(some.impl_of(7), tessera::rtl::Impl::kModel);
  EXPECT_EQ(params({{"noc.router_impl_routers", "5"}}).impl_of(5), tessera::rtl::Impl::kModel);
  EXPECT_NE(error_of({{"noc.router_impl", "gates"}}).find("model|rtl|lockstep"), std::string::npos)
      << error_of({{"noc.router_impl", "gates"}});
  EXPECT_NE(error_of({{"noc.router_impl_routers", "5,,6"}}).find("noc.router_impl_routers"), std::string::npos);
  EXPECT_NE(error_of({{"noc.router_impl_routers", ""}}).find("noc.router_impl_routers"), std::string::npos);
}

TEST(Traffic, PatternsMapNodesAsDefined) {
  const GridTopology mesh(GridKind::kMesh, 4, 4);
  Rng rng(1);
  EXPECT_EQ(TrafficPattern(Pattern::kTranspose, mesh).destination(mesh.node_at(1, 3), rng), mesh.node_at(3, 1));
  EXPECT_EQ(TrafficPattern(Pattern::kBitComplement, mesh).destination(0b0110, rng), 0b1001);
  EXPECT_EQ(TrafficPattern(Pattern::kBitReverse, mesh).destination(0b0001, rng), 0b1000);
  EXPECT_EQ(TrafficPattern(Pattern::kShuffle, mesh).destination(0b1001, rng), 0b0011);
  // Tornado on k = 4: ceil(4/2) - 1 = 1 ahead in each dimension.
  EXPECT_EQ(TrafficPattern(Pattern::kTornado, mesh).destination(mesh.node_at(3, 0), rng), mesh.node_at(0, 1));
  const GridTopology ring(GridKind::kRing, 8, 1);
  EXPECT_EQ(TrafficPattern(Pattern::kTornado, ring).destination(6, rng), 1);  // 3 ahead
  EXPECT_EQ(TrafficPattern(Pattern::kNeighbor, ring).destination(7, rng), 0);
  const TrafficPattern hot(Pattern::kHotspot, mesh, {5}, 1.0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(hot.destination(i, rng), 5);
}

TEST(Traffic, PatternsRefuseTopologiesTheyDoNotFit) {
  const GridTopology mesh3(GridKind::kMesh, 3, 3);
  EXPECT_THROW(TrafficPattern(Pattern::kBitReverse, mesh3), tessera::sim::ConfigError);
  EXPECT_THROW(TrafficPattern(Pattern::kTranspose, GridTopology(GridKind::kMesh, 4, 2)), tessera::sim::ConfigError);
  EXPECT_THROW(TrafficPattern(Pattern::kHotspot, mesh3, {9}), tessera::sim::ConfigError);
}

TEST(Traffic, BernoulliInjectsAtTheOfferedRate) {
  // 16 nodes x 20000 cycles at 0.25 flits/node/cycle with 2-flit packets:
  // 40000 packets expected, standard deviation ~ sqrt(40000 * 0.875) = 187.
  const NocParams p = params({});
  Network net(p);
  const GridTopology t(p);
  const TrafficPattern uniform(Pattern::kUniform, t);
  BernoulliSource source(t, uniform, 0.25, 2, 1, 7);
  uint64_t flits = 0;
  for (uint64_t cycle = 0; cycle < 20000; ++cycle) flits += source.generate(cycle, net, false);
  EXPECT_NEAR(static_cast<double>(flits) / 2, 40000.0, 4 * 187.0);
  // Rate 1 with 1-flit packets: every node creates a packet every cycle.
  Network net2(p);
  BernoulliSource full(t, uniform, 1.0, 1, 1, 7);
  for (uint64_t cycle = 0; cycle < 10; ++cycle) EXPECT_EQ(full.generate(cycle, net2, false), 16u);
}

}  // namespace
