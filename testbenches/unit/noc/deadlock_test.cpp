// Deadlock: the watchdog catches the cyclic waits that missing datelines or
// a missing escape VC allow, and names the VCs that wait; with them the same
// load runs clean. The configurations are fixed (seeded), so each run is
// reproducible.
#include <gtest/gtest.h>

#include <string>

#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::measure;
using tessera::noc::test::params;

// Full offered load, short packets: every channel is contended. The window
// and drain are short; the network is expected to saturate, not to drain.
MeasureOptions heavy_load(const char* traffic = "uniform") {
  return measure({{"noc.traffic", traffic},
                  {"noc.rate", "1.0"},
                  {"noc.packet_flits", "4"},
                  {"noc.warmup", "100"},
                  {"noc.cycles", "3000"},
                  {"noc.drain_cycles", "100"}});
}

// Two torus loads: tornado on 8x8 (every packet goes 3 hops the + way in
// both dimensions, so the wrap-around links carry heavy traffic) and
// uniform on 5x5 (on 6x6 the half-way ties, split between both directions,
// let the run reach the latency threshold before the cycle closes); 2 VCs
// per port, 4-flit buffers, 4-flit packets.
struct TorusLoad {
  const char* k;
  const char* traffic;
};
const TorusLoad kTorusLoads[] = {{"8", "tornado"}, {"5", "uniform"}};

NocParams torus(const char* k, bool dateline) {
  if (dateline)
    return params({{"noc.topology", "torus"},
                   {"noc.k", k},
                   {"noc.vcs", "2"},
                   {"noc.vc_buf", "4"},
                   {"noc.watchdog_cycles", "100"}});
  return params({{"noc.topology", "torus"},
                 {"noc.k", k},
                 {"noc.vcs", "2"},
                 {"noc.vc_buf", "4"},
                 {"noc.dateline", "false"},
                 {"noc.allow_unsafe_routing", "true"},
                 {"noc.watchdog_cycles", "100"}});
}

TEST(Deadlock, TorusWithoutDatelinesIsCaughtByTheWatchdog) {
  for (const TorusLoad& load : kTorusLoads) {
    try {
      run_measurement(torus(load.k, false), heavy_load(load.traffic));
      ADD_FAILURE() << "expected a deadlock: " << load.traffic;
    } catch (const DeadlockError& e) {
      const std::string report = e.what();
      EXPECT_NE(report.find("no flit moved for 100 cycles"), std::string::npos) << report;
      ASSERT_FALSE(e.waiting().empty());
      // The report names routers, input ports and VCs, and what each waits for.
      EXPECT_NE(report.find("waiting for a free output VC"), std::string::npos) << report;
      EXPECT_NE(report.find("held by"), std::string::npos) << report;
      EXPECT_NE(e.waiting().front().find(" vc "), std::string::npos) << e.waiting().front();
    }
  }
}

TEST(Deadlock, TorusWithDatelinesRunsClean) {
  for (const TorusLoad& load : kTorusLoads) {
    const MeasureResult r = run_measurement(torus(load.k, true), heavy_load(load.traffic));
    EXPECT_TRUE(r.saturated) << load.traffic;     // full load is far beyond capacity...
    EXPECT_GT(r.accepted, 0.01) << load.traffic;  // ...but flits keep flowing, to the end
    EXPECT_TRUE(r.checker_ok) << load.traffic;
  }
}

// A saturating burst (every node queues 200 4-flit packets at cycle 0 to
// uniform random destinations) drains from rings and tori under both wrap
// rules; the watchdog would throw on a deadlock. Every packet goes a minimal
// way, so the flits cross exactly sum(flits x distance) links.
TEST(Deadlock, SaturatedRingsAndToriDrainUnderBothWrapRules) {
  for (const char* rule : {"random_tie", "plus_tie"}) {
    for (const char* topology : {"ring", "torus"}) {
      const NocParams p = params({{"noc.topology", topology},
                                  {"noc.k", std::string(topology) == "ring" ? "16" : "4"},
                                  {"noc.vcs", "2"},
                                  {"noc.vc_buf", "4"},
                                  {"noc.wrap_rule", rule},
                                  {"noc.watchdog_cycles", "200"}});
      Network net(p);
      const uint64_t hops = test::drain_uniform_burst(net, 200, 4, 7);
      EXPECT_TRUE(net.idle()) << rule << " " << topology;
      EXPECT_EQ(net.flit_hops(), hops) << rule << " " << topology;
      EXPECT_TRUE(net.checker()->ok()) << rule << " " << topology;
    }
  }
}

TEST(Deadlock, SingleVcRingWithoutDatelineDeadlocksUnderTornado) {
  // All tornado traffic goes the same way round; with one VC per link the
  // ring of channels fills and every head waits for the channel ahead.
  const NocParams p = params({{"noc.topology", "ring"},
                              {"noc.k", "8"},
                              {"noc.vcs", "1"},
                              {"noc.vc_buf", "2"},
                              {"noc.dateline", "false"},
                              {"noc.allow_unsafe_routing", "true"},
                              {"noc.watchdog_cycles", "200"}});
  EXPECT_THROW(run_measurement(p, heavy_load("tornado")), DeadlockError);
}

TEST(Deadlock, AdaptiveWithoutEscapeVcDeadlocks) {
  const NocParams p = params({{"noc.topology", "mesh"},
                              {"noc.k", "6"},
                              {"noc.vcs", "2"},
                              {"noc.vc_buf", "4"},
                              {"noc.routing", "adaptive"},
                              {"noc.escape_vc", "false"},
                              {"noc.allow_unsafe_routing", "true"},
                              {"noc.watchdog_cycles", "100"}});
  EXPECT_THROW(run_measurement(p, heavy_load()), DeadlockError);
}

TEST(Deadlock, TurnModelsNeedNoEscapeVcOnAMesh) {
  // The load that deadlocks minimal fully adaptive routing above: west-first
  // and odd-even forbid enough turns that, even without an escape VC (and
  // without noc.allow_unsafe_routing), the mesh cannot deadlock.
  for (const char* policy : {"west_first", "odd_even"}) {
    const NocParams p = params({{"noc.topology", "mesh"},
                                {"noc.k", "6"},
                                {"noc.vcs", "2"},
                                {"noc.vc_buf", "4"},
                                {"noc.routing", "adaptive"},
                                {"noc.adaptive", policy},
                                {"noc.escape_vc", "false"},
                                {"noc.watchdog_cycles", "100"}});
    const MeasureResult r = run_measurement(p, heavy_load());
    EXPECT_GT(r.accepted, 0.1) << policy;
    EXPECT_TRUE(r.checker_ok) << policy;
  }
}

TEST(Deadlock, AdaptiveWithEscapeVcNeverDeadlocks) {
  // The same load on mesh and torus, several seeds and buffer depths.
  for (const char* topology : {"mesh", "torus"}) {
    for (const char* buf : {"2", "4"}) {
      for (const char* seed : {"1", "2"}) {
        // Torus escape needs a dateline pair, so 3 VCs: 2 escape + 1 adaptive.
        const NocParams p = params({{"noc.topology", topology},
                                    {"noc.k", "6"},
                                    {"noc.vcs", std::string(topology) == "mesh" ? "2" : "3"},
                                    {"noc.vc_buf", buf},
                                    {"noc.routing", "adaptive"},
                                    {"noc.watchdog_cycles", "100"}});
        MeasureOptions o = heavy_load();
        o.seed = std::stoull(seed);
        o.max_cycles = 1500;
        const MeasureResult r = run_measurement(p, o);
        EXPECT_GT(r.accepted, 0.1) << topology << " buf " << buf << " seed " << seed;
        EXPECT_TRUE(r.checker_ok);
      }
    }
  }
}

}  // namespace
