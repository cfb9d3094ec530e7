#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bus/contention_manager.h"
#include "mem/coherence_protocol.h"
#include "tessera_run.h"

namespace {

using tessera::test::run_tessera;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class ShortRun : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(ShortRun, RandomTesterIsClean) {
  const auto& [protocol, cores] = GetParam();
  const auto r = run_tessera(
      {"coherence-test", "--protocol", protocol, "--cores", std::to_string(cores), "--seed", "7", "--ops", "20000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "20000 ops: clean")) << r.out;
  for (const char* field : {"cycles", "bus transactions", "BusRd=", "cache-to-cache", "NACKs", "host seconds", "ops/s"})
    EXPECT_TRUE(contains(r.out, field)) << field << "\n" << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    ProtocolsAndCores, ShortRun,
    ::testing::Values(std::pair<std::string, int>{"msi", 4}, std::pair<std::string, int>{"msi", 8},
                      std::pair<std::string, int>{"mesi", 4}, std::pair<std::string, int>{"mesi", 8},
                      std::pair<std::string, int>{"mesif", 4}, std::pair<std::string, int>{"mesif", 8},
                      std::pair<std::string, int>{"moesi", 4}, std::pair<std::string, int>{"moesi", 8},
                      std::pair<std::string, int>{"dragon", 4}, std::pair<std::string, int>{"dragon", 8}),
    [](const auto& p) { return p.param.first + "_" + std::to_string(p.param.second); });

// Transactions (--htm) on every protocol, 4 and 8 cores and the four
// versioning x detection corners: the coherence and serialisability checkers
// see every access (docs/htm.md; the 1,000,000-operation runs are the
// coherence_long target).
struct HtmCase {
  std::string protocol;
  int cores;
  std::string versioning, detection;
};

class HtmShortRun : public ::testing::TestWithParam<HtmCase> {};

TEST_P(HtmShortRun, TransactionalTesterIsClean) {
  const HtmCase& c = GetParam();
  const auto r = run_tessera({"coherence-test", "--htm", "--protocol", c.protocol, "--cores", std::to_string(c.cores),
                              "--seed", "3", "--ops", "50000", "--set", "htm.versioning=" + c.versioning, "--set",
                              "htm.detection=" + c.detection});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, " ops: clean")) << r.out;
  EXPECT_TRUE(contains(r.out, "HTM                  " + c.versioning + " " + c.detection)) << r.out;
  EXPECT_TRUE(contains(r.out, " committed, ")) << r.out;
  EXPECT_TRUE(contains(r.out, "(serialisable in commit order, no aborted write seen)")) << r.out;
}

std::vector<HtmCase> htm_cases() {
  std::vector<HtmCase> cases;
  for (const auto& p : tessera::mem::protocol_names())
    for (int cores : {4, 8})
      for (const char* v : {"eager", "lazy"})
        for (const char* d : {"pessimistic", "optimistic"}) cases.push_back({p, cores, v, d});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(ProtocolsCoresCorners, HtmShortRun, ::testing::ValuesIn(htm_cases()), [](const auto& p) {
  return p.param.protocol + "_" + std::to_string(p.param.cores) + "_" + p.param.versioning + "_" + p.param.detection;
});

TEST(CoherenceCli, HtmWithTsoTinyBuffersAndWordGranularityIsClean) {
  for (const auto& policy : tessera::bus::contention_manager_names()) {
    if (tessera::bus::make_contention_manager(policy)->detection() != tessera::bus::Detection::kPessimistic) continue;
    const auto r = run_tessera({"coherence-test", "--htm",
                                "--protocol",     "moesi",
                                "--cores",        "8",
                                "--ops",          "30000",
                                "--set",          "cluster.store_buffer=tso",
                                "--set",          "cluster.bus.response_queue_entries=1",
                                "--set",          "cluster.bridge.queue_entries=1",
                                "--set",          "cluster.bus.request_table=2",
                                "--set",          "cluster.wb_buffer_entries=1",
                                "--set",          "htm.granularity=word",
                                "--set",          std::string("htm.policy=") + policy,
                                "--set",          "htm.versioning=eager"});
    ASSERT_EQ(r.status, 0) << policy << "\n" << r.err;
    EXPECT_TRUE(contains(r.out, "clean")) << policy;
  }
}

TEST(CoherenceCli, TsoStressWithTinyBuffersIsClean) {
  const auto r = run_tessera({"coherence-test", "--protocol", "moesi", "--cores", "8", "--ops", "20000", "--set",
                              "cluster.store_buffer=tso", "--set", "cluster.bus.response_queue_entries=1", "--set",
                              "cluster.bridge.queue_entries=1", "--set", "cluster.bus.request_table=2", "--set",
                              "cluster.bus.arbiter=priority", "--set", "cluster.wb_buffer_entries=1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "clean"));
}

TEST(CoherenceCli, UnknownProtocolListsValidOnes) {
  const auto r = run_tessera({"coherence-test", "--protocol", "mosi"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "msi|mesi|mesif|moesi|dragon")) << r.err;
}

TEST(CoherenceCli, CacheGeometryThatDoesNotDivideNamesTheKey) {
  const auto r = run_tessera({"coherence-test", "--set", "cluster.l1d.size_kb=3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "cluster.l1d.size_kb")) << r.err;
}

TEST(CoherenceCli, MisspelledParameterGetsASuggestion) {
  const auto r = run_tessera({"coherence-test", "--set", "cluster.bus.arbitter=fifo"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'cluster.bus.arbiter'")) << r.err;
}

TEST(CoherenceCli, BadArbiterAndBusWidthAreErrors) {
  auto r = run_tessera({"coherence-test", "--set", "cluster.bus.arbiter=lottery"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "fifo|round_robin|priority")) << r.err;
  r = run_tessera({"coherence-test", "--set", "cluster.bus.width_bits=96"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "cluster.bus.width_bits")) << r.err;
}

TEST(CoherenceCli, LitmusStoreBufferingCountsOutcomes) {
  auto r =
      run_tessera({"coherence-test", "--litmus", "sb", "--iterations", "2000", "--set", "cluster.store_buffer=tso"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "r1=0 r2=0")) << r.out;  // TSO shows it
  r = run_tessera({"coherence-test", "--litmus", "sb", "--iterations", "2000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "r1=0 r2=0")) << r.out;  // SC never does
  r = run_tessera({"coherence-test", "--litmus", "iriw"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "sb|mp|lb")) << r.err;
}

TEST(CoherenceCli, ListShowsClusterParameters) {
  const auto r = run_tessera({"coherence-test", "--list"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* key : {"cluster.protocol", "cluster.bus.request_table", "cluster.store_buffer", "cluster.l1i.ways",
                          "coherence_test.lines"})
    EXPECT_TRUE(contains(r.out, key)) << key;
}

}  // namespace
