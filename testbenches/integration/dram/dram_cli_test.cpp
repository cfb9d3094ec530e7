// `tessera dram` as a user runs it: JSON fields and the acceptance figures,
// the readable summary, traces, and bad input (unknown spec, inconsistent
// timing, unknown parameter, malformed trace) with exit status 2 and a
// message naming what was wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera_run.h"

namespace {

using tessera::test::run_tessera;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = std::string(DRAM_TEST_TMP_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

nlohmann::json run_json(const std::vector<std::string>& args) {
  std::vector<std::string> full{"dram"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--json");
  const auto r = run_tessera(full, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(DramCli, StreamJsonHasEveryFieldAndReachesNinetyPercent) {
  const auto j = run_json({"--spec", "hbm2", "--pattern", "stream", "--requests", "20000"});
  for (const char* key : {"bandwidth_gbps", "peak_bandwidth_gbps", "avg_read_latency_ns", "p99_read_latency_ns",
                          "row_hit_rate", "requests", "refreshes", "energy_pj_per_bit", "protocol_violations",
                          "host_seconds", "requests_per_host_second"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["requests"].get<uint64_t>(), 20000u);
  EXPECT_DOUBLE_EQ(j["peak_bandwidth_gbps"].get<double>(), 256.0);  // 1024 pins x 2 Gb/s / 8
  EXPECT_GE(j["bandwidth_gbps"].get<double>(), 0.9 * 256.0);
  EXPECT_EQ(j["protocol_violations"].get<uint64_t>(), 0u);
  EXPECT_GT(j["row_hit_rate"].get<double>(), 0.9);
  EXPECT_GT(j["energy_pj_per_bit"].get<double>(), 0.0);
}

TEST(DramCli, RandomReadsStayUnderTheActivateBound) {
  const auto j = run_json({"--spec", "hbm3", "--stacks", "2", "--pattern", "random", "--requests", "5000"});
  EXPECT_EQ(j["channels"].get<unsigned>(), 32u);
  EXPECT_DOUBLE_EQ(j["peak_bandwidth_gbps"].get<double>(), 2 * 819.2);
  EXPECT_LE(j["bandwidth_gbps"].get<double>(), j["activate_bound_gbps"].get<double>());
  EXPECT_EQ(j["protocol_violations"].get<uint64_t>(), 0u);
}

TEST(DramCli, TraceRunsEveryLineAndMixedPoliciesStayLegal) {
  const std::string trace = write_file("ok.trace", "# cycle op address\n0 R 0x0\n0 W 0x40\n10 R 0x100000\n50 R 0x40\n");
  const auto j = run_json({"--pattern", "trace", "--trace-file", trace, "--set", "scheduler=fcfs", "--set",
                           "dram.page_policy=closed", "--set", "refresh=per_bank"});
  EXPECT_EQ(j["requests"].get<uint64_t>(), 4u);
  EXPECT_EQ(j["read_requests"].get<uint64_t>(), 3u);
  EXPECT_EQ(j["protocol_violations"].get<uint64_t>(), 0u);
}

TEST(DramCli, SummaryIsReadable) {
  const auto r = run_tessera({"dram", "--requests", "1000"}, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("protocol violations  0"), std::string::npos) << r.out;
}

TEST(DramCli, UnknownSpecListsTheValidOnes) {
  const auto r = run_tessera({"dram", "--spec", "hbm9"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("hbm2|hbm2e|hbm3"), std::string::npos) << r.err;
}

TEST(DramCli, InconsistentTimingNamesTheParameters) {
  const auto r = run_tessera({"dram", "--set", "timing.tRAS=10"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("tRAS (10) < tRCDRD (14)"), std::string::npos) << r.err;
}

TEST(DramCli, UnknownParameterIsNamed) {
  const auto r = run_tessera({"dram", "--set", "schedular=fcfs"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("dram.schedular"), std::string::npos) << r.err;
}

TEST(DramCli, EmptySourceWindowIsRefused) {
  const auto r = run_tessera({"dram", "--window", "0"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--window"), std::string::npos) << r.err;
}

TEST(DramCli, SummaryNamesTheSourceWindow) {
  const auto r = run_tessera({"dram", "--requests", "1000", "--window", "4"}, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("source window 4"), std::string::npos) << r.out;
}

TEST(DramCli, MalformedTraceLineIsReportedWithItsNumber) {
  const std::string trace = write_file("bad.trace", "0 R 0x0\n1 Q 0x40\n");
  const auto r = run_tessera({"dram", "--pattern", "trace", "--trace-file", trace}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.trace:2: bad operation 'Q'"), std::string::npos) << r.err;
}

TEST(DramCli, TraceAddressBeyondCapacityIsReportedWithItsLine) {
  const std::string trace = write_file("far.trace", "0 R 0x0\n1 R 0x100000000\n");
  const auto r = run_tessera({"dram", "--pattern", "trace", "--trace-file", trace}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("far.trace:2: address 0x100000000"), std::string::npos) << r.err;
}

// --sources gives the requests their requesters, which BLISS ranks; one
// source (the default) leaves the JSON as it was (no "sources" field).
TEST(DramCli, SourcesFeedTheBlissScheduler) {
  const auto j = run_json({"--pattern", "random", "--requests", "4000", "--sources", "4", "--set", "scheduler=bliss",
                           "--set", "bliss_threshold=2"});
  EXPECT_EQ(j["sources"], 4);
  EXPECT_EQ(j["requests"], 4000);
  EXPECT_EQ(j["protocol_violations"], 0);
  EXPECT_FALSE(run_json({"--requests", "100"}).contains("sources"));
}

TEST(DramCli, BlissParameterOutOfRangeNamesItsKey) {
  const auto r = run_tessera({"dram", "--set", "scheduler=bliss", "--set", "bliss_threshold=0"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("dram.bliss_threshold"), std::string::npos) << r.err;
  const auto s = run_tessera({"dram", "--sources", "0"}, 60);
  EXPECT_NE(s.status, 0);
  EXPECT_NE(s.err.find("--sources"), std::string::npos) << s.err;
}

TEST(DramCli, MissingTraceFileIsAnError) {
  const auto r = run_tessera({"dram", "--pattern", "trace", "--trace-file", "/nonexistent/x.trace"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot read '/nonexistent/x.trace'"), std::string::npos) << r.err;
}

}  // namespace
