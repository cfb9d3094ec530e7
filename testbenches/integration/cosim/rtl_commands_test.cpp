// The RTL coverage and block-level random testing commands (docs/cosim.md,
// "Coverage" and "Block-level random testing") through the tessera binary:
// run --rtl-coverage, rtl-coverage merge|show, rtl-test, and their errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tessera_run.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;

std::string program(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

nlohmann::ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::ordered_json::parse(in);
}

const nlohmann::ordered_json& bank_points(const nlohmann::ordered_json& j) {
  return j.at("blocks").at("shared_bank_unit").at("points");
}

// sm1 with the bank unit in RTL: histogram (shared atomics) and reduction
// (shared loads and stores), each with its coverage and statistics.
struct TwoRuns {
  std::string a = tessera::test::temp_path("histogram_cov.json"), b = tessera::test::temp_path("reduction_cov.json");
  std::string stats = tessera::test::temp_path("histogram_stats.json");
  TwoRuns() {
    const RunResult ra = run_tessera({"run", "sm1", program("histogram"), "-q", "--set", "sm.shared_impl=rtl",
                                      "--rtl-coverage", a, "--stats", stats});
    EXPECT_EQ(ra.status, 0) << ra.err;
    const RunResult rb =
        run_tessera({"run", "sm1", program("reduction"), "-q", "--set", "sm.shared_impl=rtl", "--rtl-coverage", b});
    EXPECT_EQ(rb.status, 0) << rb.err;
  }
};

// Every declared point is in the file, and the conflict degrees counted at
// the RTL's pins are the SM's own histogram of passes (counted by the bank
// arbiter when instructions issue, independently of the pins).
TEST(RtlCommands, RunCoverageHoldsEveryPointAndMatchesTheSmPassHistogram) {
  TwoRuns runs;
  const auto a = read_json(runs.a);
  EXPECT_EQ(a["format"], "tessera-rtl-coverage");
  const auto& points = bank_points(a);
  EXPECT_EQ(points.size(), 59u);
  EXPECT_EQ(a["blocks"]["shared_bank_unit"]["instances"], 1);
  EXPECT_EQ(points.at("shared_bank.mask.empty"), 0);  // the SM never sends an empty request
  const auto stats = read_json(runs.stats);
  const auto& sm0 = stats.at("chip").at("sm0");
  const auto& passes = sm0.at("shared_passes");
  for (size_t d = 1; d <= 32; ++d)
    EXPECT_EQ(points.at("shared_bank.conflict.degree" + std::to_string(d)), passes.at(d)) << d;
  EXPECT_EQ(points.at("shared_bank.atomic.add"), sm0.at("shared_atomic_warp_insts"));
  const uint64_t requests = points.at("shared_bank.load").get<uint64_t>() +
                            points.at("shared_bank.store").get<uint64_t>() +
                            points.at("shared_bank.atomic.add").get<uint64_t>();
  EXPECT_EQ(requests, sm0.at("shared_warp_accesses").get<uint64_t>());
}

TEST(RtlCommands, MergeIsThePointwiseSumAndShowListsUnreachedPoints) {
  TwoRuns runs;
  const std::string merged = tessera::test::temp_path("merged_cov.json");
  const RunResult m = run_tessera({"rtl-coverage", "merge", merged, runs.a, runs.b});
  ASSERT_EQ(m.status, 0) << m.err;
  const auto a = read_json(runs.a), b = read_json(runs.b), sum = read_json(merged);
  EXPECT_EQ(sum["runs"], 2);
  EXPECT_EQ(sum["blocks"]["shared_bank_unit"]["instances"], 2);
  for (const auto& [name, hits] : bank_points(sum).items())
    EXPECT_EQ(hits.get<uint64_t>(), bank_points(a).at(name).get<uint64_t>() + bank_points(b).at(name).get<uint64_t>())
        << name;
  EXPECT_EQ(bank_points(sum).at("shared_bank.atomic.max_u32"), 0);  // neither program uses it
  const RunResult s = run_tessera({"rtl-coverage", "show", merged});
  ASSERT_EQ(s.status, 0) << s.err;
  std::smatch line;
  ASSERT_TRUE(std::regex_search(
      s.out, line, std::regex("shared_bank_unit: (\\d+) of 59 cover points reached \\(2 instances, 2 runs\\)")))
      << s.out;
  EXPECT_EQ(std::stoul(line[1]), sum["blocks"]["shared_bank_unit"]["reached"].get<unsigned long>());
  EXPECT_NE(s.out.find("    shared_bank.atomic.max_u32\n"), std::string::npos) << s.out;
  EXPECT_EQ(s.out.find("    shared_bank.atomic.add\n"), std::string::npos) << s.out;
}

TEST(RtlCommands, MergeRefusesAnotherFormatOrPointSetNamingTheFile) {
  TwoRuns runs;
  const std::string out = tessera::test::temp_path("refused_cov.json");
  const RunResult f = run_tessera({"rtl-coverage", "merge", out, runs.a, runs.stats});
  EXPECT_EQ(f.status, 2) << f.err;
  EXPECT_NE(f.err.find(runs.stats), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("format"), std::string::npos) << f.err;
  // The same block with one point less: another version of the block.
  auto j = read_json(runs.b);
  j["blocks"]["shared_bank_unit"]["points"].erase("shared_bank.stall");
  const std::string other = tessera::test::temp_path("other_points.json");
  std::ofstream(other) << j.dump(2);
  const RunResult p = run_tessera({"rtl-coverage", "merge", out, runs.a, other});
  EXPECT_EQ(p.status, 2) << p.err;
  EXPECT_NE(p.err.find(other), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("shared_bank_unit"), std::string::npos) << p.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RtlCommands, RunCoverageWithoutAnRtlBlockIsAnErrorNamingTheKeys) {
  const std::string out = tessera::test::temp_path("none_cov.json");
  const RunResult r = run_tessera({"run", "sm1", program("vecadd"), "-q", "--rtl-coverage", out});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--rtl-coverage"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sm.shared_impl=rtl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("noc.router_impl=rtl"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RtlCommands, RunCoverageOfTheRoutersInLockstepOnChipNoc) {
  const std::string out = tessera::test::temp_path("noc_cov.json");
  const RunResult r = run_tessera(
      {"run", "chip_noc", program("vecadd"), "-q", "--set", "noc.router_impl=lockstep", "--rtl-coverage", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = read_json(out);
  const auto& router = j.at("blocks").at("noc_router");
  EXPECT_EQ(router["instances"], 8);  // chip_noc's 4x2 mesh
  // 5 ports x 4 VCs x in/out, 2 classes, 4 flit kinds, 2 conflicts, 4 stalls.
  EXPECT_EQ(router["declared"], 52);
  EXPECT_GT(router["points"]["noc_router.port0.vc0.in"].get<uint64_t>(), 0u);
  EXPECT_FALSE(j["blocks"].contains("shared_bank_unit"));
}

// ------------------------------------------------------------- rtl-test

void expect_mismatch_with_waveform(const std::vector<std::string>& args, const std::string& instance) {
  const std::string dir = tessera::test::temp_path("rtl_test_waves");
  std::filesystem::remove_all(dir);
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--wave-dir", dir});
  const RunResult r = run_tessera(all);
  EXPECT_EQ(r.status, 8) << r.err;
  EXPECT_NE(r.err.find("lockstep mismatch in " + instance), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  outputs:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("differs from its C++ model at cycle"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cover points reached"), std::string::npos) << r.out;
  std::smatch w;
  ASSERT_TRUE(std::regex_search(r.err, w, std::regex("RTL waveform of the last cycles: (\\S+\\.fst)"))) << r.err;
  const std::string wave = w[1];
  EXPECT_EQ(wave.rfind(dir, 0), 0u) << wave;
  const std::string vcd = tessera::test::command_output(std::string(FST2VCD) + " " + wave + " 2>&1");
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos) << vcd.substr(0, 2000);
  EXPECT_NE(vcd.find("\n#"), std::string::npos) << "no time steps in the waveform";
  std::filesystem::remove_all(dir);
}

TEST(RtlCommands, RtlTestCatchesTheBankUnitWithoutBroadcast) {
  expect_mismatch_with_waveform(
      {"rtl-test", "shared_bank_unit", "--impl", "shared_no_broadcast", "--plugin",
       tessera::test::build_path("libtessera_rtl_mutants.so"), "--cycles", "2000", "--seed", "1"},
      "rtl_test.shared_banks");
}

TEST(RtlCommands, RtlTestCatchesTheRouterReturningCreditsEarly) {
  expect_mismatch_with_waveform(
      {"rtl-test", "noc_router", "--impl", "router_early_credit", "--plugin",
       tessera::test::build_path("libtessera_rtl_mutants.so"), "--cycles", "2000", "--seed", "1"},
      "noc.router5");
}

// The network tool takes a plugin's router implementations too: a 4x4 mesh
// of the early-credit mutant in lockstep stops at its first early credit.
TEST(RtlCommands, TheNocToolRunsAPluginsRouters) {
  const std::string dir = tessera::test::temp_path("noc_plugin_waves");
  const RunResult r = run_tessera({"noc", "--plugin", tessera::test::build_path("libtessera_rtl_mutants.so"), "--set",
                                   "noc.router_impl=lockstep:router_early_credit", "--topology", "mesh", "--k", "4",
                                   "--traffic", "uniform", "--rate", "0.3", "--set", "rtl.wave_dir=" + dir});
  EXPECT_EQ(r.status, 8) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("lockstep mismatch in noc\\.router\\d+ \\(NoC router, "
                                                  "Vnoc_router_mesh_v2c1_early_credit\\)")))
      << r.err;
  std::smatch w;
  ASSERT_TRUE(std::regex_search(r.err, w, std::regex("RTL waveform of the last cycles: (\\S+\\.fst)"))) << r.err;
  EXPECT_TRUE(std::filesystem::exists(std::string(w[1]))) << w[1];
  const RunResult without = run_tessera({"noc", "--set", "noc.router_impl=lockstep:router_early_credit", "--topology",
                                         "mesh", "--k", "4", "--traffic", "uniform", "--rate", "0.3"});
  EXPECT_EQ(without.status, 2) << without.err;
  EXPECT_NE(without.err.find("no noc_router implementation is named 'router_early_credit'"), std::string::npos)
      << without.err;
}

TEST(RtlCommands, RtlTestOfTheShippedBlocksPassesAndWritesItsCoverage) {
  for (const std::string block : {"shared_bank_unit", "noc_router"}) {
    const std::string out = tessera::test::temp_path(block + "_rtl_test.json");
    const RunResult r = run_tessera({"rtl-test", block, "--cycles", "2000", "--seed", "1", "--rtl-coverage", out});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(block + " (shipped) agrees with its C++ model: 2000 cycles, seed 1"), std::string::npos)
        << r.out;
    const auto j = read_json(out);
    EXPECT_EQ(j["blocks"].size(), 1u);
    EXPECT_EQ(j["blocks"].begin().key(), block);
    EXPECT_NE(r.out.find(block + ": " + std::to_string(j["blocks"][block]["reached"].get<int>()) + " of " +
                         std::to_string(j["blocks"][block]["declared"].get<int>()) + " cover points reached"),
              std::string::npos)
        << r.out;
    // The same seed, the same coverage.
    const std::string again = tessera::test::temp_path(block + "_rtl_test_again.json");
    EXPECT_EQ(run_tessera({"rtl-test", block, "--cycles", "2000", "--seed", "1", "--rtl-coverage", again}).status, 0);
    EXPECT_EQ(read_json(again), j);
  }
}

TEST(RtlCommands, RtlTestOfOtherConfigurations) {
  const RunResult big = run_tessera(
      {"rtl-test", "shared_bank_unit", "--cycles", "3000", "--seed", "7", "--set", "sm.shared_bytes=98304"});
  EXPECT_EQ(big.status, 0) << big.err;
  const RunResult ring = run_tessera({"rtl-test", "noc_router", "--cycles", "3000", "--seed", "2", "--set",
                                      "noc.topology=ring", "--set", "noc.k=8", "--set", "noc.wrap_rule=plus_tie"});
  EXPECT_EQ(ring.status, 0) << ring.err;
  EXPECT_NE(ring.out.find("noc_router: "), std::string::npos) << ring.out;
  // chip_noc's routers (4x2 mesh, 2 classes), router 2 at (2,0).
  const RunResult chip =
      run_tessera({"rtl-test", "noc_router", "--cycles", "3000", "--set", "noc.m=2", "--set", "noc.vcs=4", "--set",
                   "noc.classes=2", "--set", "noc.flit_bytes=32", "--set", "rtl_test.router=2"});
  EXPECT_EQ(chip.status, 0) << chip.err;
  EXPECT_NE(chip.out.find("sent to router 2"), std::string::npos) << chip.out;
  EXPECT_NE(chip.out.find(" of 52 cover points"), std::string::npos) << chip.out;
}

TEST(RtlCommands, RtlTestBadInputIsAnErrorNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  const std::vector<Case> cases = {
      {{"rtl-test", "alu", "--cycles", "10"}, "BLOCK"},
      {{"rtl-test", "shared_bank_unit", "--impl", "router_early_credit", "--plugin",
        tessera::test::build_path("libtessera_rtl_mutants.so"), "--cycles", "10"},
       "--impl"},
      {{"rtl-test", "noc_router", "--impl", "router_early_credit", "--cycles", "10"}, "--impl"},  // no --plugin
      {{"rtl-test", "noc_router", "--impl", "nope", "--cycles", "10"}, "--impl"},
      {{"rtl-test", "noc_router", "--cycles", "0"}, "--cycles"},
      {{"rtl-test", "noc_router", "--cycles", "-3"}, "--cycles"},
      {{"rtl-test", "noc_router", "--cycles", "10", "--rtl-coverage", "/nonexistent/dir/cov.json"}, "--rtl-coverage"},
      {{"rtl-test", "noc_router", "--cycles", "10", "--set", "noc.vcs=3"}, "noc.vcs"},
      {{"rtl-test", "noc_router", "--cycles", "10", "--set", "noc.router_impl=rtl"}, "noc.router_impl"},
      {{"rtl-test", "noc_router", "--cycles", "10", "--set", "rtl_test.router=16"}, "rtl_test.router"},
      {{"rtl-test", "shared_bank_unit", "--cycles", "10", "--set", "sm.shared_bank=16"}, "sm.shared_bank"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_tessera(c.args);
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    EXPECT_EQ(r.status, 2) << line << "\n" << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << line << "\n" << r.err;
  }
}

}  // namespace
