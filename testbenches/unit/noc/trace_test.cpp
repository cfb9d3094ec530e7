// Trace-driven injection: records become packets at their cycles; malformed
// traces are errors naming file and line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "noc/traffic.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::measure;
using tessera::noc::test::params;

std::string write_trace(const std::string& name, const std::string& text) {
  const std::string path = std::string(NOC_TEST_TMP_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Trace, PacketsLeaveAtTheirCyclesWithZeroLoadLatency) {
  // Two packets far apart on a 4x4 mesh: each sees zero-load latency.
  // 0 -> 15: 6 hops, 3 flits: 7 * 5 + 2 + 2 = 39. 5 -> 6: 1 hop, 1 flit:
  // 2 * 5 + 2 = 12 (the 2: the source queue and the injection channel;
  // docs/noc.md, "Timing").
  const std::string path = write_trace("two.trace", "# cycle src dst flits\n100 0 15 3\n500 5 6 1\n");
  MeasureOptions o = measure({{"noc.traffic", "trace"}, {"noc.trace", path}});
  const MeasureResult r = run_measurement(params({}), o);
  EXPECT_EQ(r.delivered_measured, 2u);
  EXPECT_DOUBLE_EQ(r.avg_latency, (39.0 + 12.0) / 2);
  EXPECT_DOUBLE_EQ(r.max_latency, 39.0);
  EXPECT_DOUBLE_EQ(r.avg_hops, 3.5);
  EXPECT_TRUE(r.checker_ok);
  EXPECT_FALSE(r.saturated);
}

TEST(Trace, MalformedTracesNameFileAndLine) {
  struct Bad {
    const char* text;
    const char* expect;
  };
  const Bad bad[] = {{"0 0 1\n5 0 99\n", ":2: node 99 does not exist"},
                     {"10 0 1\n5 0 2\n", ":2: cycle 5 is earlier"},
                     {"0 x 1\n", ":1: 'x' is not a non-negative integer"},
                     {"0 1\n", ":1: expected 'cycle src dst"},
                     {"0 1 2 4 3\n", ":1: message class 3"}};
  int i = 0;
  for (const Bad& b : bad) {
    const std::string path = write_trace("bad" + std::to_string(i++) + ".trace", b.text);
    try {
      TraceSource(path, 16, 1, 1);
      FAIL() << b.text;
    } catch (const tessera::sim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(path + b.expect), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(TraceSource("/nonexistent/trace", 16, 1, 1), tessera::sim::ConfigError);
}

}  // namespace
