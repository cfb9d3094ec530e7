// The Verilated NoC router (models/rtl/noc_router) against the C++ Router.
//
// - One router alone: the C++ Router and the RTL router (noc::RtlRouter)
//   each get an identical environment (upstream senders with their own
//   credit-tracked VCs, downstream buffers that withhold credits at random)
//   driven by the same seeded generator; every flit each one sends (port,
//   VC, the cycle it reaches the next buffer) and every credit it returns
//   (port, VC, cycle) must be the same, and so must the statistics.
// - Directed cases with numbers derived by hand from the pipeline
//   (docs/noc.md, "Timing").
// - Whole networks with every router in RTL, in lockstep, or a few of them
//   in RTL: the same deliveries and statistics as the model.
// - A router built with a credit returned one cycle early is caught by
//   lockstep, with the cycle, the instance and a waveform fst2vcd reads.
// - Configurations the RTL was not built for are configuration errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "noc/cosim_router.h"
#include "noc/network.h"
#include "noc/noc_params.h"
#include "noc/router.h"
#include "noc/router_coverage.h"
#include "noc/router_stimulus.h"
#include "noc/routing.h"
#include "rtl/common/coverage.h"
#include "rtl/common/lockstep.h"
#include "rtl_mutants.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "tessera_run.h"

namespace tessera::noc {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

NocParams params(const Settings& settings) {
  sim::Config cfg;
  for (const auto& [k, v] : settings) cfg.set(k, v, "--set");
  return NocParams::from_config(cfg);
}

// The random environment and its router interface (noc/router_stimulus.h).
using stimulus::Dut;
using stimulus::Environment;
using stimulus::ReturnedCredit;
using stimulus::Rng;
using stimulus::SentFlit;
using stimulus::Traffic;

class ModelDut final : public Dut {
 public:
  ModelDut(int id, const NocParams& p, const GridTopology& t, const RoutingFunction& r) : router_(id, p, t, r) {}
  void connect(int port, FlitTarget out, OutputChannel* credits_to) override {
    router_.connect_output(port, out);
    router_.connect_upstream(port, credits_to);
  }
  void deliver(int port, const Flit& f) override { router_.receive(port, f); }
  void credit(int port, uint64_t ready, int vc) override { router_.output(port).return_credit(ready, vc); }
  void step(uint64_t now) override {
    if (router_.buffered() > 0) router_.step(now);
  }
  nlohmann::json stats() const override {
    sim::StatGroup g("router");
    router_.register_stats(g);
    return g.to_json();
  }

 private:
  Router router_;
};

class RtlDut final : public Dut {
 public:
  RtlDut(int id, const NocParams& p, const GridTopology& t) : router_(id, p, t) {}
  void connect(int port, FlitTarget out, OutputChannel* credits_to) override {
    router_.connect_output(port, out);
    router_.connect_upstream(port, credits_to);
  }
  void deliver(int port, const Flit& f) override { router_.input(port).deliver(f); }
  void credit(int port, uint64_t ready, int vc) override { router_.credit_mailbox(port)->return_credit(ready, vc); }
  void step(uint64_t now) override {
    if (router_.has_work(now)) router_.step(now);
  }
  nlohmann::json stats() const override {
    sim::StatGroup g("router");
    router_.register_stats(g);
    return g.to_json();
  }

 private:
  RtlRouter router_;
};

// Runs the model and the RTL router `id` side by side for `cycles` cycles;
// fails at the first difference. Returns the flits the RTL sent.
uint64_t compare_alone(const Settings& settings, int id, uint64_t seed, uint64_t cycles, Traffic traffic = {}) {
  const NocParams p = params(settings);
  const GridTopology topo(p);
  const auto routing = make_routing(p, topo);
  ModelDut model(id, p, topo, *routing);
  RtlDut rtl(id, p, topo);
  Environment em(p, topo, id, model, seed, traffic), er(p, topo, id, rtl, seed, traffic);
  uint64_t compared = 0;
  for (uint64_t now = 0; now < cycles; ++now) {
    em.step(now);
    er.step(now);
    // Both stamp a credit usable sa + credit cycles after the grant: the
    // model returns it at the grant, the RTL one cycle later on its `cout`
    // register, so the model's may be one cycle ahead.
    while (!em.credits.empty() && !er.credits.empty()) {
      const ReturnedCredit a = em.credits.front(), b = er.credits.front();
      if (!(a == b)) {
        ADD_FAILURE() << "cycle " << now << " seed " << seed << ": model returns a credit on port " << a.port << " vc "
                      << a.vc << " ready " << a.ready << ", RTL on port " << b.port << " vc " << b.vc << " ready "
                      << b.ready;
        return compared;
      }
      em.credits.pop_front();
      er.credits.pop_front();
    }
    if (!er.credits.empty() || em.credits.size() > static_cast<size_t>(kMaxRouterPorts)) {
      ADD_FAILURE() << "cycle " << now << " seed " << seed << ": the RTL returns a credit the model did not, or lags";
      return compared;
    }
    if (::testing::Test::HasFailure()) return compared;
    // The RTL shows a flit on its output register two cycles after the
    // model's send; both stamp it for the same arrival cycle.
    while (!em.flits.empty() && !er.flits.empty()) {
      if (!(em.flits.front() == er.flits.front())) {
        ADD_FAILURE() << "cycle " << now << " seed " << seed << ": model sent " << describe(em.flits.front())
                      << ", RTL " << describe(er.flits.front());
        return compared;
      }
      em.flits.pop_front();
      er.flits.pop_front();
      ++compared;
    }
    if (!er.flits.empty() || em.flits.size() > 2 * kMaxRouterPorts) {
      ADD_FAILURE() << "cycle " << now << " seed " << seed << ": the RTL sends a flit the model did not, or lags";
      return compared;
    }
  }
  EXPECT_EQ(model.stats(), rtl.stats()) << "seed " << seed;
  return compared;
}

const Settings kMesh = {{"noc.topology", "mesh"}, {"noc.k", "4"}};
const Settings kChipMesh = {{"noc.topology", "mesh"}, {"noc.k", "4"},       {"noc.m", "2"},
                            {"noc.vcs", "4"},         {"noc.classes", "2"}, {"noc.flit_bytes", "32"}};
// The RTL router routes a ring with plus_tie only; the model it is compared
// with must route alike (docs/noc.md, "Topologies, routing, deadlock").
const Settings kRing = {{"noc.topology", "ring"}, {"noc.k", "8"}, {"noc.wrap_rule", "plus_tie"}};

constexpr uint64_t kRandomCycles = 100000;

TEST(NocRouterRtl, RandomTrafficOnAMeshRouterMatchesTheModel) {
  for (uint64_t seed : {1, 2, 3}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    const uint64_t flits = compare_alone(kMesh, 5, seed, kRandomCycles);
    EXPECT_GT(flits, kRandomCycles / 2) << "seed " << seed;  // a flit every other cycle or more
    if (HasFailure()) return;
  }
}

TEST(NocRouterRtl, RandomTrafficOnAChipMeshRouterWithTwoClassesMatchesTheModel) {
  for (uint64_t seed : {11, 12, 13}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    compare_alone(kChipMesh, 1, seed, kRandomCycles);
    if (HasFailure()) return;
  }
}

TEST(NocRouterRtl, RandomTrafficOnARingRouterWithDatelinesMatchesTheModel) {
  for (uint64_t seed : {21, 22, 23}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    compare_alone(kRing, 3, seed, kRandomCycles);
    if (HasFailure()) return;
  }
}

TEST(NocRouterRtl, HeavyBackPressureMatchesTheModel) {
  // Downstream buffers return credits slowly: VCs stall mid-packet, every
  // input contends for every output.
  Traffic t;
  t.new_packet = 100;
  t.send = 100;
  t.long_packets = 60;
  t.drain_min = 0;
  t.drain_max = 30;
  for (uint64_t seed : {31, 32}) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    compare_alone(kMesh, 5, seed, kRandomCycles, t);
    if (HasFailure()) return;
  }
}

// ------------------------------------------------------------- directed

struct Directed {
  NocParams p = params(kMesh);
  GridTopology topo{p};
  std::unique_ptr<RtlRouter> router = std::make_unique<RtlRouter>(5, p, topo);  // (1,1) of a 4x4 mesh
  std::vector<std::deque<Flit>> out = std::vector<std::deque<Flit>>(5);
  std::vector<OutputChannel> credits = std::vector<OutputChannel>(5);
  std::vector<SentFlit> sent;
  std::vector<ReturnedCredit> returned;
  uint64_t va_conflicts = 0, sa_conflicts = 0;

  Directed() {
    for (int port = 0; port < 5; ++port) {
      router->connect_output(port, FlitTarget{nullptr, 0, &out[port]});
      router->connect_upstream(port, &credits[port]);
    }
  }
  void packet(int port, int vc, uint64_t id, int dst, int size, uint64_t first_ready) {
    for (int i = 0; i < size; ++i) {
      Flit f;
      f.packet_id = id;
      f.src = 5;
      f.dst = dst;
      f.index = static_cast<uint16_t>(i);
      f.size = static_cast<uint16_t>(size);
      f.vc = static_cast<uint8_t>(vc);
      f.ready_cycle = first_ready + static_cast<uint64_t>(i);
      router->input(port).deliver(f);
    }
  }
  void run(uint64_t cycles) {
    for (uint64_t now = 0; now < cycles; ++now) {
      if (router->has_work(now)) router->step(now);
      for (int port = 0; port < 5; ++port) {
        for (const Flit& f : out[port]) sent.push_back(SentFlit{port, f.vc, f.packet_id, f.ready_cycle, f.index, 0});
        out[port].clear();
        while (credits[port].next_credit_ready() != UINT64_MAX) {
          const uint64_t ready = credits[port].next_credit_ready();
          returned.push_back(ReturnedCredit{port, credits[port].take_credit(), ready});
        }
      }
    }
    sim::StatGroup g("r");
    router->register_stats(g);
    const nlohmann::json j = g.to_json();
    va_conflicts = j["va_conflicts"].get<uint64_t>();
    sa_conflicts = j["sa_conflicts"].get<uint64_t>();
  }
};

TEST(NocRouterRtl, ZeroLoadHeadLeavesAfterRouteVcAndSwitchAllocation) {
  // A one-flit packet in the local input from cycle 10 to router 6, east of
  // router 5: RC at 10, VA at 11, SA at 12 (rc + va = 2 cycles after
  // arriving, leaving the switch allocator rc + va + sa = 3 after). It
  // leaves its buffer through the switch at 12 + sa = 13, so its credit is
  // usable upstream at 13 + credit = 14, and it is in router 6's buffer from
  // 12 + sa + st + link = 15.
  Directed d;
  d.packet(kLocal, 0, 7, 6, 1, 10);
  d.run(40);
  ASSERT_EQ(d.sent.size(), 1u);
  EXPECT_EQ(d.sent[0].port, kPlusX);
  EXPECT_EQ(d.sent[0].vc, 0);
  EXPECT_EQ(d.sent[0].ready_cycle, 15u);
  ASSERT_EQ(d.returned.size(), 1u);
  EXPECT_EQ(d.returned[0].port, kLocal);
  EXPECT_EQ(d.returned[0].ready, 14u);
  EXPECT_EQ(d.va_conflicts, 0u);
  EXPECT_EQ(d.sa_conflicts, 0u);
}

TEST(NocRouterRtl, TwoInputsForOneOutputVcTakeTurnsInVcAllocation) {
  // West (input VC 2*2+0 = 4) and south (input VC 4*2+0 = 8) both bring a
  // one-flit packet for the east output at cycle 10. VA at 11: both input
  // arbiters pick east VC 0 (the first free one from pointer 0), its output
  // arbiter grants input 4 (first from pointer 0); south is refused (one VA
  // conflict) and wins east VC 1 at 12. West leaves at 12, south at 13.
  Directed d;
  d.packet(kMinusX, 0, 1, 6, 1, 10);
  d.packet(kMinusY, 0, 2, 6, 1, 10);
  d.run(40);
  ASSERT_EQ(d.sent.size(), 2u);
  EXPECT_EQ(d.sent[0].packet_id, 1u);
  EXPECT_EQ(d.sent[0].vc, 0);
  EXPECT_EQ(d.sent[0].ready_cycle, 15u);
  EXPECT_EQ(d.sent[1].packet_id, 2u);
  EXPECT_EQ(d.sent[1].vc, 1);
  EXPECT_EQ(d.sent[1].ready_cycle, 16u);
  EXPECT_EQ(d.va_conflicts, 1u);
  EXPECT_EQ(d.sa_conflicts, 0u);
}

TEST(NocRouterRtl, TwoInputsForOneOutputPortAlternateRoundRobinInSwitchAllocation) {
  // As above with three-flit packets. West holds east VC 0 from 11, south
  // east VC 1 from 12. SA: 12 west alone (the east output's pointer moves
  // past west, port 2, to 3); 13 both bid, south (port 4) is first from 3;
  // 14 west (pointer 5 wraps to 0); 15 south; 16 west; 17 south. Arrivals
  // downstream 3 cycles after each grant: 15 W0, 16 S0, 17 W1, 18 S1, 19 W2,
  // 20 S2; the loser of each of 13..16 is one SA conflict.
  Directed d;
  d.packet(kMinusX, 0, 1, 6, 3, 10);
  d.packet(kMinusY, 0, 2, 6, 3, 10);
  d.run(60);
  ASSERT_EQ(d.sent.size(), 6u);
  const uint64_t order[6][2] = {{1, 0}, {2, 0}, {1, 1}, {2, 1}, {1, 2}, {2, 2}};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(d.sent[i].packet_id, order[i][0]) << i;
    EXPECT_EQ(static_cast<uint64_t>(d.sent[i].index), order[i][1]) << i;
    EXPECT_EQ(d.sent[i].ready_cycle, 15 + i) << i;
    EXPECT_EQ(d.sent[i].port, kPlusX) << i;
  }
  EXPECT_EQ(d.va_conflicts, 1u);
  EXPECT_EQ(d.sa_conflicts, 4u);
}

TEST(NocRouterRtl, PacketLongerThanTheBufferWaitsForCredits) {
  // A 12-flit packet east while the downstream buffer (8 flits) returns no
  // credit: flits 0..7 leave at 12..19 (one per cycle), then nothing.
  Directed d;
  d.packet(kLocal, 0, 3, 6, 12, 10);
  d.run(60);
  ASSERT_EQ(d.sent.size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(d.sent[i].ready_cycle, 15 + i) << i;
  EXPECT_EQ(d.sa_conflicts, 0u);  // a VC without a credit does not bid
}

// ------------------------------------------------------------- coverage

// The router's cover points (noc/router_coverage.h) of a directed case.
rtl::CoverTable directed_coverage(void (*setup)(Directed&), uint64_t cycles) {
  rtl::CoverageCollection::reset();
  rtl::CoverageCollection::enable();
  {
    Directed d;
    setup(d);
    d.run(cycles);
  }
  const rtl::CoverageReport r = rtl::CoverageCollection::report();
  rtl::CoverageCollection::reset();
  return r.blocks().at(RouterCoverage::kBlock).table;
}

void expect_hits(const rtl::CoverTable& t, const std::vector<std::pair<std::string, uint64_t>>& expected) {
  uint64_t listed = 0;
  for (const auto& [name, hits] : expected) {
    EXPECT_EQ(t.hits(name), hits) << name;
    listed += hits > 0;
  }
  EXPECT_EQ(t.reached(), listed) << "points hit that the derivation does not list";
}

TEST(NocRouterRtlCoverage, TwoSingleFlitPacketsForOneOutputVc) {
  // The VC allocation case above: one-flit packets (single) of class 0 into
  // west (port 2) and south (port 4) on VC 0, out east (port 1) on VC 0 and
  // VC 1; one cycle with a VA conflict, none with an SA conflict. 5 ports x
  // 2 VCs x in/out + 1 class + 4 flit kinds + 2 conflicts + 4 credit stalls
  // = 31 points.
  const rtl::CoverTable t = directed_coverage(
      [](Directed& d) {
        d.packet(kMinusX, 0, 1, 6, 1, 10);
        d.packet(kMinusY, 0, 2, 6, 1, 10);
      },
      40);
  EXPECT_EQ(t.size(), 31u);
  expect_hits(t, {{"noc_router.port2.vc0.in", 1},
                  {"noc_router.port4.vc0.in", 1},
                  {"noc_router.port1.vc0.out", 1},
                  {"noc_router.port1.vc1.out", 1},
                  {"noc_router.class0.in", 2},
                  {"noc_router.flit.single", 2},
                  {"noc_router.va_conflict", 1},
                  {"noc_router.sa_conflict", 0}});
}

TEST(NocRouterRtlCoverage, PacketLongerThanTheBufferStallsOnCredits) {
  // The 12-flit packet east without credits (above): flit i enters the local
  // input at 10 + i, leaves its buffer at the edge ending 12 + i (the credit
  // on cout during 13 + i) and is on the east output register in 14 + i,
  // for i = 0..7. The pins show the 8 credits of east VC 0 used up after
  // the step of cycle 21 (flit 7 out), when flit 8, a body flit of the
  // packet whose head left east on VC 0, is at the front of its buffer:
  // a credit stall in every step from 21 to 59, 39 of them.
  const rtl::CoverTable t = directed_coverage([](Directed& d) { d.packet(kLocal, 0, 3, 6, 12, 10); }, 60);
  expect_hits(t, {{"noc_router.port0.vc0.in", 12},
                  {"noc_router.class0.in", 12},
                  {"noc_router.flit.head", 1},
                  {"noc_router.flit.body", 10},
                  {"noc_router.flit.tail", 1},
                  {"noc_router.port1.vc0.out", 8},
                  {"noc_router.port1.credit_stall", 39}});
}

// -------------------------------------------------------- whole networks

struct RunResult {
  std::vector<std::string> deliveries;
  nlohmann::json stats;
};

RunResult run_network(Settings settings, const std::string& impl, const std::string& routers, uint64_t seed,
                      int rate_percent, uint64_t cycles) {
  settings.push_back({"noc.router_impl", impl});
  settings.push_back({"noc.router_impl_routers", routers});
  const NocParams p = params(settings);
  sim::StatGroup root("top");
  Network net(p, &root);
  Rng rng(seed);
  RunResult r;
  const int nodes = net.topology().nodes();
  for (uint64_t now = 0; now < cycles || !net.idle(); ++now) {
    if (now < cycles)
      for (int n = 0; n < nodes; ++n)
        if (rng.below(1000) < rate_percent * 10 / 4) {
          Packet pk;
          pk.src = n;
          pk.dst = rng.below(nodes);
          pk.cls = rng.below(p.classes);
          pk.flits = 1 + rng.below(7);
          pk.create_cycle = net.now();
          net.enqueue(pk);
        }
    if (net.idle() && now % 50 == 0) net.advance_to(net.now() + 7);  // idle skipping with credits returning
    net.step();
    for (const Delivery& d : net.delivered())
      r.deliveries.push_back(std::to_string(d.packet.id) + "@" + std::to_string(d.arrival_cycle) + "/" +
                             std::to_string(d.hops));
    if (now > 10 * cycles) {
      ADD_FAILURE() << "network did not drain";
      break;
    }
  }
  r.stats = root.to_json();
  return r;
}

void expect_same_as_model(const Settings& settings, int rate_percent, const std::string& routers = "all") {
  const uint64_t cycles = 20000;
  const RunResult model = run_network(settings, "model", routers, 5, rate_percent, cycles);
  EXPECT_GT(model.deliveries.size(), 1000u);
  for (const std::string impl : {"rtl", "lockstep"}) {
    const RunResult other = run_network(settings, impl, routers, 5, rate_percent, cycles);
    EXPECT_EQ(model.deliveries, other.deliveries) << impl;
    EXPECT_EQ(model.stats, other.stats) << impl;
  }
}

TEST(NocRouterRtlNetwork, FourByFourMeshInRtlAndLockstepDeliversExactlyAsTheModel) { expect_same_as_model(kMesh, 30); }

TEST(NocRouterRtlNetwork, EightNodeRingInRtlAndLockstepDeliversExactlyAsTheModel) { expect_same_as_model(kRing, 20); }

TEST(NocRouterRtlNetwork, ChipMeshWithTwoClassesInRtlAndLockstepDeliversExactlyAsTheModel) {
  expect_same_as_model(kChipMesh, 40);
}

TEST(NocRouterRtlNetwork, MeshWithSomeRoutersInRtlAndLinkAndCreditDelaysDeliversExactlyAsTheModel) {
  Settings s = kMesh;
  s.push_back({"noc.delay.link", "3"});
  s.push_back({"noc.delay.credit", "5"});
  expect_same_as_model(s, 30, "5,6,9");
}

// ------------------------------------------------------------- mutation

TEST(NocRouterRtlMutation, LockstepCatchesACreditReturnedOneCycleEarly) {
  const std::string dir = (std::filesystem::temp_directory_path() / "tessera_noc_router_mutation").string();
  std::filesystem::remove_all(dir);
  tessera::test::load_rtl_mutants();
  Settings s = kMesh;
  s.push_back({"noc.router_impl", "lockstep:router_early_credit"});
  s.push_back({"rtl.wave_dir", dir});
  s.push_back({"rtl.wave_cycles", "32"});
  const NocParams p = params(s);
  Network net(p);
  Rng rng(9);
  bool caught = false;
  for (uint64_t now = 0; now < 20000 && !caught; ++now) {
    for (int n = 0; n < 16; ++n)
      if (rng.chance(10)) {
        Packet pk;
        pk.src = n;
        pk.dst = rng.below(16);
        pk.flits = 1 + rng.below(4);
        pk.create_cycle = net.now();
        net.enqueue(pk);
      }
    try {
      net.step();
    } catch (const rtl::LockstepMismatch& e) {
      caught = true;
      EXPECT_GT(e.cycle(), 0u);
      EXPECT_EQ(e.instance().rfind("noc.router", 0), 0u) << e.instance();
      const std::string text = e.what();
      EXPECT_NE(text.find("lockstep mismatch in " + e.instance()), std::string::npos) << text;
      EXPECT_NE(text.find("at cycle " + std::to_string(e.cycle())), std::string::npos) << text;
      ASSERT_TRUE(std::filesystem::exists(e.wave_path())) << text;
      const std::string vcd = tessera::test::command_output(std::string(FST2VCD) + " " + e.wave_path() + " 2>&1");
      EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos) << vcd.substr(0, 2000);
      EXPECT_NE(vcd.find("credits_q"), std::string::npos) << "no internal signals in the waveform";
    }
  }
  EXPECT_TRUE(caught);
  std::filesystem::remove_all(dir);
}

// ------------------------------------------------------ configuration

void expect_config_error(Settings s, const std::string& key, const std::string& supported,
                         const std::string& impl = "rtl") {
  s.push_back({"noc.router_impl", impl});
  try {
    params(s);
    ADD_FAILURE() << "no error for " << key;
  } catch (const sim::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(supported), std::string::npos) << what;
  }
}

TEST(NocRouterRtlConfig, WhatTheRtlWasNotBuiltWithIsAConfigurationError) {
  expect_config_error({{"noc.topology", "torus"}}, "noc.topology", "mesh and ring");
  expect_config_error({{"noc.routing", "adaptive"}}, "noc.routing", "dor");
  expect_config_error({{"noc.allocator", "islip"}}, "noc.allocator", "separable_input_first");
  expect_config_error({{"noc.flow_control", "vct"}}, "noc.flow_control", "wormhole");
  expect_config_error({{"noc.flow_control", "saf"}}, "noc.flow_control", "wormhole");
  expect_config_error({{"noc.speedup", "2"}}, "noc.speedup", "1");
  expect_config_error({{"noc.delay.va", "2"}}, "noc.delay.va", "1");
  expect_config_error({{"noc.delay.st", "0"}}, "noc.delay.st", "1");
  expect_config_error({{"noc.vcs", "6"}}, "noc.vcs", "noc.vcs=4 noc.classes=2 noc.vc_buf=8 noc.flit_bytes=32");
  expect_config_error({{"noc.vc_buf", "4"}}, "noc.vc_buf", "noc.vc_buf=8");
  expect_config_error({{"noc.flit_bytes", "64"}}, "noc.flit_bytes", "noc.flit_bytes=16");
  // Names that do not exist, or not for this network, list what does.
  tessera::test::load_rtl_mutants();
  expect_config_error({{"noc.topology", "ring"}}, "noc.topology", "noc.topology=mesh noc.vcs=2",
                      "lockstep:router_early_credit");
  expect_config_error({{"noc.vcs", "3"}}, "noc.vcs", "'router_early_credit' is built for noc.topology=mesh noc.vcs=2",
                      "rtl:router_early_credit");
  expect_config_error({}, "noc.router_impl", "registered: shipped, router_early_credit", "rtl:no_such_router");
  expect_config_error({}, "noc.router_impl", "the C++ model has no implementations", "model:shipped");
  expect_config_error({{"noc.router_impl_routers", "3,x"}}, "noc.router_impl_routers", "0..15");
  expect_config_error({{"noc.router_impl_routers", "16"}}, "noc.router_impl_routers", "0..15");
}

TEST(NocRouterRtlConfig, ModelModeAcceptsEverything) {
  EXPECT_NO_THROW(params({{"noc.topology", "torus"}, {"noc.allocator", "islip"}, {"noc.vcs", "6"}}));
}

}  // namespace
}  // namespace tessera::noc
