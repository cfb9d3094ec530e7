// Behaviour under load on an 8x8 mesh with dimension-order routing, and the
// flit checker's account of every run. Windows are kept short so the suite
// stays fast; the figures in docs/noc.md come from longer runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::measure;
using tessera::noc::test::params;

MeasureOptions load(const char* traffic, double rate) {
  // Samples of 500 cycles, two within 10 % in a row end the window (the
  // defaults, BookSim's, take at least 6,000 cycles).
  MeasureOptions o = measure({{"noc.traffic", traffic},
                              {"noc.packet_flits", "4"},
                              {"noc.warmup", "500"},
                              {"noc.sample_cycles", "500"},
                              {"noc.converge", "0.1"},
                              {"noc.converge_samples", "2"},
                              {"noc.max_samples", "6"},
                              {"noc.cycles", "3000"},
                              {"noc.drain_cycles", "1000"}});
  o.rate = rate;
  return o;
}

NocParams mesh8(const char* vcs) {
  return params({{"noc.topology", "mesh"}, {"noc.k", "8"}, {"noc.vcs", vcs}, {"noc.vc_buf", "8"}});
}

TEST(MeshLoad, LatencyRisesWithLoadAndSaturatesBelowBisectionBound) {
  const NocParams p = mesh8("2");
  double previous_latency = 0;
  for (double rate : {0.02, 0.1, 0.18}) {
    const MeasureResult r = run_measurement(p, load("uniform", rate));
    EXPECT_FALSE(r.saturated) << rate;
    EXPECT_NEAR(r.accepted, rate, 0.1 * rate) << rate;
    EXPECT_GT(r.avg_latency, previous_latency) << rate;
    previous_latency = r.avg_latency;
    EXPECT_TRUE(r.checker_ok);
  }
  // At zero load a packet averages 2 (k^2 - 1) / (3k) = 5.25 hops on an 8x8
  // mesh; latency is at least (5.25 + 1) * 5 + 1 + 3 = 35.25 cycles.
  const MeasureResult light = run_measurement(p, load("uniform", 0.01));
  EXPECT_NEAR(light.avg_hops, 5.25, 0.25);
  EXPECT_GT(light.avg_latency, 35.0);
  EXPECT_LT(light.avg_latency, 38.0);
  // Uniform traffic cannot exceed the bisection bound 4 / k = 0.5
  // flits/node/cycle (Dally & Towles ch. 3); offered 0.7, it saturates below.
  const MeasureResult heavy = run_measurement(p, load("uniform", 0.7));
  EXPECT_TRUE(heavy.saturated);
  EXPECT_LT(heavy.accepted, 0.5);
  EXPECT_GT(heavy.accepted, 0.15);
}

TEST(MeshLoad, MoreVcsOrNonAtomicVcsRaiseTransposeSaturationThroughput) {
  // Beyond saturation the accepted throughput is the saturation throughput.
  // With atomic VC allocation a VC is held for a whole credit loop per
  // packet, so more VCs raise it; non-atomic allocation (the default with
  // dimension-order routing) recovers most of that with 2 VCs.
  NocParams two = mesh8("2"), four = mesh8("4");
  two.atomic_vc = four.atomic_vc = true;
  const MeasureResult a2 = run_measurement(two, load("transpose", 0.6));
  const MeasureResult a4 = run_measurement(four, load("transpose", 0.6));
  const MeasureResult n2 = run_measurement(mesh8("2"), load("transpose", 0.6));
  EXPECT_TRUE(a2.saturated);
  EXPECT_TRUE(a4.saturated);
  EXPECT_TRUE(n2.saturated);
  EXPECT_GT(a4.accepted, a2.accepted * 1.1) << a2.accepted << " vs " << a4.accepted;
  EXPECT_GT(n2.accepted, a2.accepted * 1.1) << a2.accepted << " vs " << n2.accepted;
}

TEST(MeshLoad, InputSpeedupRaisesSaturationThroughput) {
  // With speedup 2 an input port can feed two outputs in one cycle, so
  // head-of-line blocking at the switch input costs less.
  NocParams one = mesh8("4"), two = mesh8("4");
  two.speedup = 2;
  MeasureOptions overload = load("uniform", 0.6);
  overload.max_cycles = 1000;
  overload.drain_cycles = 200;
  const MeasureResult a = run_measurement(one, overload);
  const MeasureResult b = run_measurement(two, overload);
  EXPECT_TRUE(a.saturated);
  EXPECT_GT(b.accepted, a.accepted * 1.03) << a.accepted << " vs " << b.accepted;
}

TEST(MeshLoad, IdleSkippingGivesIdenticalResults) {
  for (const char* traffic : {"uniform", "hotspot"}) {
    NocParams skip = mesh8("2"), tick = mesh8("2");
    skip.skip_idle = true;
    tick.skip_idle = false;
    // A light load leaves the network empty for long stretches.
    const MeasureResult a = run_measurement(skip, load(traffic, 0.002));
    const MeasureResult b = run_measurement(tick, load(traffic, 0.002));
    EXPECT_GT(a.cycles_skipped, a.cycles / 5) << traffic;
    EXPECT_EQ(b.cycles_skipped, 0u);
    nlohmann::json ja = a.to_json(), jb = b.to_json();
    for (const char* host_dependent : {"host_seconds", "flits_per_host_second", "cycles_skipped"}) {
      ja.erase(host_dependent);
      jb.erase(host_dependent);
    }
    EXPECT_EQ(ja, jb) << traffic;
    EXPECT_GT(a.measured_packets, 40u);
  }
}

TEST(FlitChecker, EveryFlitOfEveryRunDeliveredOnceInOrder) {
  // Different routers, allocators, speedups, flow control and VC reuse,
  // moderate load: the run drains and the checker accounts for every flit.
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  const std::vector<Pairs> variants{{{"noc.allocator", "islip"}},
                                    {{"noc.allocator", "islip"}, {"noc.islip_iterations", "3"}},
                                    {{"noc.speedup", "2"}},
                                    {{"noc.flow_control", "vct"}},
                                    {{"noc.flow_control", "saf"}},
                                    {{"noc.atomic_vc", "false"}},
                                    {{"noc.atomic_vc", "false"}, {"noc.flow_control", "vct"}},
                                    {{"noc.atomic_vc", "false"}, {"noc.flow_control", "saf"}},
                                    {{"noc.routing", "adaptive"}},
                                    {{"noc.routing", "adaptive"}, {"noc.adaptive", "odd_even"}},
                                    {{"noc.classes", "2"}},
                                    {{"noc.topology", "torus"}, {"noc.routing", "adaptive"}},
                                    {{"noc.topology", "ring"}, {"noc.k", "8"}}};
  for (const Pairs& v : variants) {
    tessera::sim::Config cfg;
    cfg.set("noc.k", "4", "test");
    cfg.set("noc.vcs", "4", "test");
    for (const auto& [key, value] : v) cfg.set(key, value, "test");
    const NocParams p = NocParams::from_config(cfg);
    const std::string name = v.front().first + "=" + v.front().second + (v.size() > 1 ? " ..." + v.back().second : "");
    MeasureOptions o = load("uniform", 0.2);
    o.max_cycles = 1000;
    const MeasureResult r = run_measurement(p, o);
    EXPECT_TRUE(r.drained) << name;
    EXPECT_TRUE(r.checker_ok) << name << ": " << (r.checker_errors.empty() ? "" : r.checker_errors.front());
    EXPECT_GT(r.flits_delivered, 1000u) << name;
  }
}

TEST(FlitChecker, CountsMatchTheNetworkAfterDrain) {
  Network net(params({{"noc.topology", "torus"}, {"noc.k", "4"}, {"noc.vcs", "4"}}));
  uint64_t flits = 0;
  for (int i = 0; i < 200; ++i) {
    Packet p;
    p.src = i % 16;
    p.dst = (i * 7 + 3) % 16;
    p.flits = 1 + i % 5;
    p.create_cycle = net.now();
    flits += static_cast<uint64_t>(p.flits);
    net.enqueue(p);
  }
  uint64_t delivered = 0;
  for (int cycle = 0; cycle < 5000 && !net.idle(); ++cycle) {
    net.step();
    delivered += net.delivered().size();
  }
  ASSERT_TRUE(net.idle());
  net.checker()->check_drained();
  EXPECT_TRUE(net.checker()->ok());
  EXPECT_EQ(delivered, 200u);
  EXPECT_EQ(net.checker()->flits_injected(), flits);
  EXPECT_EQ(net.checker()->flits_ejected(), flits);
  EXPECT_EQ(net.checker()->packets_completed(), 200u);
}

TEST(FlitChecker, DetectsLossDuplicationReorderAndInterleaving) {
  auto flit = [](uint64_t packet, int index, int size, int vc) {
    Flit f;
    f.packet_id = packet;
    f.src = 0;
    f.dst = 1;
    f.index = static_cast<uint16_t>(index);
    f.size = static_cast<uint16_t>(size);
    f.vc = static_cast<uint8_t>(vc);
    return f;
  };
  {
    FlitChecker c(2, 2);  // out of order
    for (int i = 0; i < 3; ++i) c.injected(0, flit(1, i, 3, 0));
    c.ejected(1, flit(1, 0, 3, 0));
    c.ejected(1, flit(1, 2, 3, 0));
    EXPECT_FALSE(c.ok());
  }
  {
    FlitChecker c(2, 2);  // duplicate
    c.injected(0, flit(1, 0, 1, 0));
    c.ejected(1, flit(1, 0, 1, 0));
    EXPECT_TRUE(c.ok());
    c.ejected(1, flit(1, 0, 1, 0));
    EXPECT_FALSE(c.ok());
  }
  {
    FlitChecker c(2, 2);  // two packets interleaved on one VC
    for (int i = 0; i < 2; ++i) c.injected(0, flit(1, i, 2, 0));
    for (int i = 0; i < 2; ++i) c.injected(0, flit(2, i, 2, 0));
    c.ejected(1, flit(1, 0, 2, 0));
    c.ejected(1, flit(2, 0, 2, 0));
    EXPECT_FALSE(c.ok());
  }
  {
    FlitChecker c(2, 2);  // lost
    c.injected(0, flit(1, 0, 1, 0));
    c.check_drained();
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.errors().front().find("lost"), std::string::npos);
  }
  {
    FlitChecker c(2, 2);  // wrong destination
    c.injected(0, flit(1, 0, 1, 0));
    c.ejected(0, flit(1, 0, 1, 0));
    EXPECT_FALSE(c.ok());
  }
}

}  // namespace
