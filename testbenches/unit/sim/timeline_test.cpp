// sim::Timeline: the JSON it writes (metadata per track, B/E slices, "i"
// instants, nested async stages), microsecond timestamps exact to the
// picosecond, the window cutting slices at its edges, sampling, close()
// ending what is still open, and bad paths and windows.
#include "sim/timeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sim/config.h"
#include "timeline_schema.h"

namespace {

using tessera::sim::Timeline;
using tessera::sim::TimelineOptions;

std::string tmp(const std::string& name) { return std::string(SIM_TEST_TMP_DIR) + "/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TimelineOptions options(const std::string& path) {
  TimelineOptions o;
  o.path = path;
  return o;
}

// The events of phase `ph`.
std::vector<nlohmann::json> events(const std::string& text, const std::string& ph) {
  std::vector<nlohmann::json> out;
  const nlohmann::json doc = nlohmann::json::parse(text);
  for (const auto& e : doc.at("traceEvents"))
    if (e.at("ph") == ph) out.push_back(e);
  return out;
}

TEST(Timeline, WritesNamedTracksNestedSlicesAndInstants) {
  const std::string path = tmp("timeline_basic.json");
  {
    Timeline t(options(path), 1000);
    const int a = t.track("sm0", "block slot 0");
    EXPECT_EQ(t.track("sm0", "block slot 0"), a);  // the same names, the same track
    const int b = t.track("sm0", "block slot 1");
    t.begin(a, "kernel 0", 1000);
    t.begin(a, "block 0", 2000, R"({"x":1})");
    t.instant(b, "RD", 2500);
    t.end(a, 5000);
    t.slice(b, "block 1", 3000, 4000);
    t.end(a, 1234567);
    t.close(2000000);
  }
  const std::string text = slurp(path);
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(text, s), "");
  ASSERT_EQ(s.slices.size(), 3u);
  EXPECT_EQ(s.slices[0].name, "block 0");
  EXPECT_EQ(s.slices[0].process, "sm0");
  EXPECT_EQ(s.slices[0].thread, "block slot 0");
  EXPECT_DOUBLE_EQ(s.slices[0].start_us, 0.002);
  EXPECT_DOUBLE_EQ(s.slices[2].end_us, 1.234567);  // ps / 1e6, to the ps
  EXPECT_EQ(s.instants_by_name["RD"], 1u);
  EXPECT_NE(text.find("\"ts\":1.234567"), std::string::npos);
  EXPECT_NE(text.find("\"displayTimeUnit\":\"ns\""), std::string::npos);
  const auto begins = events(text, "B");
  ASSERT_EQ(begins.size(), 3u);
  EXPECT_EQ(begins[1].at("args").at("x"), 1);
  // Both threads belong to one process.
  EXPECT_EQ(s.process_of_pid_count["sm0"], 2u);
}

TEST(Timeline, AsyncStagesNestByIdAndOnlyOpenTransactionsGetStages) {
  const std::string path = tmp("timeline_async.json");
  {
    Timeline t(options(path), 1000);
    const int m = t.track("memory", "sm0");
    t.async_begin(m, "read", 7, 100);
    EXPECT_TRUE(t.async_open(7));
    t.async_stage_begin(m, "l2 slice1", 7, 200);
    t.async_stage_begin(m, "l2 slice1", 8, 200);  // not open: nothing
    t.async_end(m, {}, 7, 300);
    t.async_end(m, {}, 7, 400);
    EXPECT_FALSE(t.async_open(7));
    t.async_end(m, {}, 7, 500);         // no longer open: nothing
    t.async_begin(m, "write", 9, 600);  // still open at close: ended there
    t.close(700);
  }
  const std::string text = slurp(path);
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(text, s), "");
  EXPECT_EQ(events(text, "b").size(), 3u);
  const auto ends = events(text, "e");
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_EQ(ends[0].at("name"), "l2 slice1");
  EXPECT_EQ(ends[1].at("name"), "read");
  EXPECT_EQ(ends[1].at("id"), "0x7");
  EXPECT_EQ(ends[2].at("name"), "write");
  EXPECT_EQ(ends[2].at("ts"), 0.0007);
}

TEST(Timeline, SamplesEveryNthTransactionOfEachKind) {
  TimelineOptions o = options(tmp("timeline_sample.json"));
  o.sample = 4;
  Timeline t(o, 1000);
  unsigned kind0 = 0, kind1 = 0;
  for (int i = 0; i < 20; ++i) kind0 += t.sample(0);
  for (int i = 0; i < 7; ++i) kind1 += t.sample(1);
  EXPECT_EQ(kind0, 5u);
  EXPECT_EQ(kind1, 1u);
  t.close(0);
}

TEST(Timeline, WindowCutsSlicesAtItsEdgesAndDropsWhatIsOutside) {
  const std::string path = tmp("timeline_window.json");
  {
    TimelineOptions o = options(path);
    o.window = true;
    o.window_start = 10;  // SM cycles of 1000 ps: [10000, 20000) ps
    o.window_end = 20;
    Timeline t(o, 1000);
    const int a = t.track("sm0", "kernel"), b = t.track("sm0", "block slot 0"), m = t.track("memory", "sm0");
    t.begin(a, "kernel 0", 0);          // straddles both edges
    t.slice(b, "block 0", 1000, 9000);  // before: dropped
    t.instant(b, "early", 9999);        // before: dropped
    t.begin(b, "block 1", 9000);        // from before into the window
    t.instant(b, "inside", 12000);
    t.end(b, 15000);
    t.slice(b, "block 2", 19000, 25000);  // cut at the end
    t.async_begin(m, "read", 1, 5000);    // begins before: dropped with its end
    t.async_end(m, {}, 1, 12000);
    t.async_begin(m, "read", 2, 19500);  // begins inside: keeps its end
    t.async_end(m, {}, 2, 26000);
    t.slice(b, "block 3", 21000, 22000);  // after: dropped
    t.end(a, 30000);
    t.close(40000);
  }
  const std::string text = slurp(path);
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(text, s), "");
  std::map<std::string, std::pair<double, double>> got;
  for (const auto& sl : s.slices) got[sl.name] = {sl.start_us, sl.end_us};
  ASSERT_EQ(got.size(), 3u) << text;
  EXPECT_EQ(got["kernel 0"], std::make_pair(0.01, 0.02));
  EXPECT_EQ(got["block 1"], std::make_pair(0.01, 0.015));
  EXPECT_EQ(got["block 2"], std::make_pair(0.019, 0.02));
  EXPECT_EQ(s.instants_by_name.size(), 1u);
  EXPECT_EQ(s.instants_by_name["inside"], 1u);
  EXPECT_EQ(s.async_by_name["read"], 1u);
  const auto ends = events(text, "e");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].at("ts"), 0.026);
}

TEST(Timeline, CloseEndsOpenSlicesAtTheEnd) {
  const std::string path = tmp("timeline_close.json");
  {
    Timeline t(options(path), 1000);
    const int a = t.track("cluster", "core1");
    t.begin(a, "parked", 0);
    t.close(5000);
  }
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(slurp(path), s), "");
  ASSERT_EQ(s.slices.size(), 1u);
  EXPECT_DOUBLE_EQ(s.slices[0].end_us, 0.005);
}

TEST(Timeline, UnwritablePathIsAConfigErrorNamingTheOption) {
  try {
    Timeline t(options("/nonexistent-dir/t.json"), 1000);
    FAIL() << "opened an unwritable path";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--timeline"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/t.json"), std::string::npos) << e.what();
  }
}

TEST(Timeline, WindowParsing) {
  TimelineOptions o;
  tessera::sim::parse_timeline_window("100:250", o);
  EXPECT_TRUE(o.window);
  EXPECT_EQ(o.window_start, 100u);
  EXPECT_EQ(o.window_end, 250u);
  for (const char* bad : {"250:100", "5:5", "1000", ":5", "a:b", "1:2@sm", "-1:5"})
    EXPECT_THROW(tessera::sim::parse_timeline_window(bad, o), tessera::sim::ConfigError) << bad;
}

}  // namespace
