// `tessera noc` as users run it: the JSON result, the readable summary, a
// sweep with CSV and plot, the deadlock report and exit status, and bad
// input (wrong names list the valid ones, impossible values name the key).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera_run.h"

namespace {

using tessera::test::run_tessera;

std::vector<std::string> noc(std::vector<std::string> args) {
  args.insert(args.begin(), "noc");
  return args;
}

TEST(NocCli, JsonHasTheDocumentedFields) {
  // Default sampling (BookSim's): a 3,000-cycle warm-up, then samples of
  // 1,000 cycles until three in a row agree within 5 %.
  const auto r = run_tessera(noc({"--topology", "mesh", "--k", "4", "--vcs", "2", "--vc-buf", "4", "--routing", "dor",
                                  "--traffic", "uniform", "--rate", "0.1", "--packet-flits", "4", "--json"}),
                             60);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"offered_flits_per_node_cycle", "accepted_flits_per_node_cycle", "avg_packet_latency_cycles",
                          "p99_packet_latency_cycles", "avg_hops", "saturated", "saturation_reason",
                          "undelivered_measured_packets", "mode", "flit_hops", "host_seconds", "flits_per_host_second"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_DOUBLE_EQ(j["offered_flits_per_node_cycle"].get<double>(), 0.1);
  EXPECT_FALSE(j["saturated"].get<bool>());
  // 4x4 mesh, uniform: average distance 2 (k^2 - 1) / (3k) = 2.5 hops.
  EXPECT_NEAR(j["avg_hops"].get<double>(), 2.5, 0.2);
  EXPECT_GT(j["flit_hops"].get<uint64_t>(), 0u);
  EXPECT_TRUE(j["checker_ok"].get<bool>());
}

TEST(NocCli, SummaryWithoutJson) {
  const auto r = run_tessera(noc({"--k", "4", "--rate", "0.05"}), 60);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("packet latency"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("saturated            no"), std::string::npos) << r.out;
}

TEST(NocCli, SweepWritesCsvAndPlotAndStopsAtSaturation) {
  const std::string dir = NOC_CLI_TMP_DIR;
  const std::string png = dir + "/sweep.png", csv = dir + "/sweep.csv";
  std::filesystem::remove(png);
  const auto r = run_tessera(noc({"--k", "4", "--vcs", "2", "--sweep", "0.1:0.9:0.2", "--set", "noc.drain_cycles=300",
                                  "--csv", csv, "--plot", png}),
                             120);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = tessera::test::read_file(csv);
  EXPECT_EQ(text.rfind("offered,injected,accepted,avg_latency,p99_latency,avg_hops,saturated\n", 0), 0u) << text;
  // 0.1 and 0.3 are below a 4x4 mesh's saturation, 0.9 is far above it
  // (bisection bound 4/k = 1.0 is never reached by DOR with 2 VCs).
  EXPECT_NE(text.find("\n0.1000,"), std::string::npos);
  EXPECT_NE(text.find(",1\n"), std::string::npos) << "no saturated point:\n" << text;
  EXPECT_NE(r.err.find("[1/5]"), std::string::npos) << r.err;  // progress
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
}

TEST(NocMeasure, BadSamplingValuesExitWith2NamingTheKey) {
  for (const char* set : {"noc.max_samples=0", "noc.sample_cycles=5", "noc.converge=2", "noc.converge_samples=0",
                          "noc.latency_threshold=-5", "noc.mode=saturation"}) {
    const auto r = run_tessera(noc({"--k", "4", "--set", set}), 60);
    EXPECT_EQ(r.status, 2) << set << ": " << r.err;
    const std::string key = std::string(set).substr(0, std::string(set).find('='));
    EXPECT_NE(r.err.find(key), std::string::npos) << set << ": " << r.err;
  }
  const auto r = run_tessera(noc({"--k", "4", "--mode", "fastest"}), 60);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("latency|throughput"), std::string::npos) << r.err;
}

TEST(NocMeasure, ThroughputModeOnTheCommandLineHasNoLatency) {
  // Every packet to node 0 of a 4x4 mesh, offered 0.5: the hotspot's
  // ejection port takes one flit a cycle, 1/16 flits/node/cycle.
  const auto r = run_tessera(noc({"--k", "4", "--mode", "throughput", "--traffic", "hotspot", "--rate", "0.5", "--set",
                                  "noc.hotspot.nodes=0", "--set", "noc.hotspot.fraction=1", "--json"}),
                             60);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "throughput");
  EXPECT_DOUBLE_EQ(j["accepted_flits_per_node_cycle"].get<double>(), 1.0 / 16);
  EXPECT_TRUE(j["avg_packet_latency_cycles"].is_null());
}

TEST(NocCli, DeadlockIsReportedWithTheWaitingVcs) {
  const auto r = run_tessera(noc({"--topology", "ring", "--k", "8", "--vcs", "1", "--vc-buf", "2", "--traffic",
                                  "tornado", "--rate", "1.0", "--set", "noc.dateline=false", "--set",
                                  "noc.allow_unsafe_routing=true", "--set", "noc.watchdog_cycles=200", "--json"}),
                             60);
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("network deadlock"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("router 0 in"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["deadlock"].get<bool>());
  EXPECT_FALSE(j["waiting"].empty());
}

TEST(NocCli, BadInputIsAConfigErrorNamingTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const std::vector<Case> cases{
      {{"--topology", "hypercube"}, "'hypercube' is not one of ring|mesh|torus"},
      {{"--routing", "valiant"}, "is not one of dor|adaptive"},
      {{"--traffic", "random"}, "uniform|transpose|bitcomp|bitrev|shuffle|tornado|neighbor|hotspot|trace"},
      {{"--vcs", "0"}, "noc.vcs: value 0 is out of range"},
      {{"--vc-buf", "0"}, "noc.vc_buf: value 0 is out of range"},
      {{"--routing", "adaptive", "--set", "noc.escape_vc=false"}, "noc.escape_vc"},
      {{"--topology", "torus", "--vcs", "1"}, "noc.vcs"},
      {{"--set", "noc.flow_control=saf", "--vc-buf", "2", "--packet-flits", "4"}, "noc.vc_buf"},
      {{"--set", "noc.vc_bf=3"}, "did you mean 'noc.vc_buf'"},
      {{"--rate", "fast"}, "--rate: noc.rate: 'fast' is not a number"},
      {{"--sweep", "0.5:0.1:0.1"}, "--sweep '0.5:0.1:0.1'"},
      {{"--traffic", "transpose", "--topology", "ring"}, "transpose"},
      {{"--traffic", "trace"}, "noc.trace"},
      {{"--traffic", "trace", "--trace", "/nonexistent.trace"}, "cannot read trace file '/nonexistent.trace'"},
  };
  for (const Case& c : cases) {
    const auto r = run_tessera(noc(c.args), 30);
    EXPECT_EQ(r.status, 2) << c.expect << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

TEST(NocCli, ListShowsEveryParameter) {
  const auto r = run_tessera(noc({"--list"}), 30);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* key : {"noc.delay.rc", "noc.delay.credit", "noc.allocator", "noc.speedup", "noc.flit_bytes",
                          "noc.flow_control", "noc.watchdog_cycles", "noc.skip_idle"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
}

}  // namespace
