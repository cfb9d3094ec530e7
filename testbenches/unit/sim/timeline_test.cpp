// sim::Timeline: the JSON it writes, event by event (complete "X" slices
// written when they end, a child that starts with its parent after it,
// tracks declared with their first event, "i" instants, the global failure
// marker, nested async stages and the flow arrow of a caused transaction,
// models' at_close writers),
// microsecond timestamps exact to the picosecond, the window cutting slices
// at its edges, sampling, close() ending what is still open, and bad paths,
// windows and sample counts. The expected lines are written by hand from
// the Trace Event Format (ts and dur in us = ps / 1e6).
#include "sim/timeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

// The file's events, one per line as written, without the separating
// commas; the file must also pass the schema check.
std::vector<std::string> event_lines(const std::string& text) {
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(text, s), "") << text;
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // the header, up to "traceEvents":[
  while (std::getline(in, line)) {
    if (line == "]}") break;
    if (!line.empty() && line.back() == ',') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

const char* const kSm0 = R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"sm0"}})";
const char* const kSm0Index = R"({"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":1}})";

TEST(Timeline, HeaderAndTrailerMakeOneJsonObject) {
  const std::string path = tmp("timeline_empty.json");
  {
    Timeline t(options(path), 1000);
    t.track("sm0", "kernel");  // no event: not declared
    t.close(0);
  }
  EXPECT_EQ(slurp(path),
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tessera\",\"ts_unit\":\"us (ps/1e6)\","
            "\"sm_period_ps\":1000,\"sample\":16},\"traceEvents\":[\n]}\n");
}

TEST(Timeline, SlicesAreCompleteEventsOnTracksDeclaredByTheirFirstEvent) {
  const std::string path = tmp("timeline_basic.json");
  {
    Timeline t(options(path), 1000);
    const int kernel = t.track("sm0", "kernel");
    EXPECT_EQ(t.track("sm0", "kernel"), kernel);  // the same names, the same track
    const int slot0 = t.track("sm0", "block slot 0");
    t.track("sm0", "block slot 1");  // never used: not in the file
    t.begin(kernel, "kernel 0", 1000, R"({"x":1})");
    t.slice(slot0, "block 0", 2000, 4000);
    t.instant(slot0, "RD", 4500);
    t.end(kernel, 1234567);
    t.close(2000000);
  }
  const std::vector<std::string> expected{
      kSm0,
      kSm0Index,
      R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"block slot 0"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":2}})",
      R"({"ph":"X","pid":1,"tid":2,"ts":0.002000,"dur":0.002000,"name":"block 0"})",
      R"({"ph":"i","pid":1,"tid":2,"ts":0.004500,"name":"RD","s":"t"})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"kernel"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.001000,"dur":1.233567,"name":"kernel 0","args":{"x":1}})",
  };
  EXPECT_EQ(event_lines(slurp(path)), expected);
}

TEST(Timeline, NestedSlicesEndInsideTheirParentAndAChildStartingWithItIsWrittenAfterIt) {
  const std::string path = tmp("timeline_nested.json");
  {
    Timeline t(options(path), 1000);
    const int a = t.track("cluster", "core1");
    t.begin(a, "outer", 1000);
    t.begin(a, "inner", 1000);  // starts with outer: Chrome nests equal starts in file order
    t.end(a, 2000);
    t.instant(a, "tick", 1000);
    t.slice(a, "later", 3000, 4000);
    t.end(a, 5000);
    t.close(6000);
  }
  const std::vector<std::string> expected{
      R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"cluster"}})",
      R"({"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":1}})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"core1"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.003000,"dur":0.001000,"name":"later"})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.001000,"dur":0.004000,"name":"outer"})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.001000,"dur":0.001000,"name":"inner"})",
      R"({"ph":"i","pid":1,"tid":1,"ts":0.001000,"name":"tick","s":"t"})",
  };
  EXPECT_EQ(event_lines(slurp(path)), expected);
}

TEST(Timeline, CloseFirstLetsModelsWriteWhatTheyKeepOpen) {
  const std::string path = tmp("timeline_at_close.json");
  uint64_t seen = 0;
  {
    Timeline t(options(path), 1000);
    const int core0 = t.track("cluster", "core0"), core1 = t.track("cluster", "core1");
    // A memory wait the model writes only when it ends: still in flight.
    t.at_close([&t, &seen, core1](uint64_t end_ps) {
      seen = end_ps;
      t.slice(core1, "memory", 2000, end_ps);
    });
    t.begin(core0, "parked", 0);
    t.close(10000);
  }
  EXPECT_EQ(seen, 10000u);
  const std::vector<std::string> expected{
      R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"cluster"}})",
      R"({"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":1}})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"core1"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":2}})",
      R"({"ph":"X","pid":1,"tid":2,"ts":0.002000,"dur":0.008000,"name":"memory"})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"core0"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.000000,"dur":0.010000,"name":"parked"})",
  };
  EXPECT_EQ(event_lines(slurp(path)), expected);
}

TEST(Timeline, CloseEndsOpenSlicesAndTransactionsAtTheEnd) {
  const std::string path = tmp("timeline_close.json");
  {
    Timeline t(options(path), 1000);
    const int parked = t.track("cluster", "core1"), ahead = t.track("cluster", "core2"), m = t.track("memory", "bus");
    t.begin(parked, "parked", 0);
    t.begin(ahead, "wfi (core join)", 7000);  // a core ahead of SystemC time: ends where it began
    t.async_begin(m, "BusRd core2", 9, 6000);
    t.async_stage_begin(m, "late", 9, 8000);
    t.close(5000);
  }
  const std::vector<std::string> expected{
      R"({"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"memory"}})",
      R"({"ph":"M","name":"process_sort_index","pid":2,"tid":0,"args":{"sort_index":2}})",
      R"({"ph":"M","name":"thread_name","pid":2,"tid":1,"args":{"name":"bus"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":2,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"b","pid":2,"tid":1,"ts":0.006000,"name":"BusRd core2","cat":"mem","id":"0x9"})",
      R"({"ph":"b","pid":2,"tid":1,"ts":0.008000,"name":"late","cat":"mem","id":"0x9"})",
      R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"cluster"}})",
      R"({"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":1}})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"core1"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.000000,"dur":0.005000,"name":"parked"})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"core2"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":2}})",
      R"j({"ph":"X","pid":1,"tid":2,"ts":0.007000,"dur":0.000000,"name":"wfi (core join)"})j",
      // Never before the latest begin of the id: its stages still nest.
      R"({"ph":"e","pid":2,"tid":1,"ts":0.008000,"name":"late","cat":"mem","id":"0x9"})",
      R"({"ph":"e","pid":2,"tid":1,"ts":0.008000,"name":"BusRd core2","cat":"mem","id":"0x9"})",
  };
  EXPECT_EQ(event_lines(slurp(path)), expected);
}

TEST(Timeline, FailureIsAGlobalInstantOrOneOnTheFailingUnitsTrack) {
  const std::string path = tmp("timeline_failure.json");
  {
    TimelineOptions o = options(path);
    o.window = true;  // the marker is written outside the window too
    o.window_start = 0;
    o.window_end = 1;
    Timeline t(o, 1000);
    const int sm = t.track("sm0", "kernel");
    t.failure(5000, "sm0: illegal instruction \"0x0\"\nat pc 0x80000100");
    t.failure(5000, "sm0 stopped", sm);
    t.close(5000);
  }
  const std::vector<std::string> expected{
      R"({"ph":"i","pid":0,"tid":0,"ts":0.005000,"name":"failure","s":"g","args":{"message":"sm0: illegal instruction \"0x0\"\u000aat pc 0x80000100"}})",
      kSm0,
      kSm0Index,
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"kernel"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"i","pid":1,"tid":1,"ts":0.005000,"name":"failure","s":"t","args":{"message":"sm0 stopped"}})",
  };
  const std::string text = slurp(path);
  EXPECT_EQ(event_lines(text), expected);
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(text, s), "");
  ASSERT_EQ(s.failures.size(), 2u);
  EXPECT_EQ(s.failures[0].scope, "g");
  EXPECT_EQ(s.failures[0].message, "sm0: illegal instruction \"0x0\"\nat pc 0x80000100");
}

TEST(Timeline, AsyncStagesNestByIdAndOnlyOpenTransactionsGetStages) {
  const std::string path = tmp("timeline_async.json");
  {
    Timeline t(options(path), 1000);
    const int m = t.track("memory", "sm0");
    t.async_begin(m, "read", 7, 100, R"({"line":"0x80"})");
    EXPECT_TRUE(t.async_open(7));
    t.async_begin(m, "read", 7, 150);  // the same id in flight: not recorded twice
    t.async_stage_begin(m, "l2 slice1", 7, 200);
    t.async_stage_begin(m, "l2 slice1", 8, 200);  // not open: nothing
    t.async_end(m, {}, 7, 300);
    t.async_end(m, {}, 7, 400);
    EXPECT_FALSE(t.async_open(7));
    t.async_end(m, {}, 7, 500);  // no longer open: nothing
    t.close(700);
  }
  const std::vector<std::string> expected{
      R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"memory"}})",
      R"({"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":1}})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"sm0"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"b","pid":1,"tid":1,"ts":0.000100,"name":"read","cat":"mem","id":"0x7","args":{"line":"0x80"}})",
      R"({"ph":"b","pid":1,"tid":1,"ts":0.000200,"name":"l2 slice1","cat":"mem","id":"0x7"})",
      R"({"ph":"e","pid":1,"tid":1,"ts":0.000300,"name":"l2 slice1","cat":"mem","id":"0x7"})",
      R"({"ph":"e","pid":1,"tid":1,"ts":0.000400,"name":"read","cat":"mem","id":"0x7"})",
  };
  EXPECT_EQ(event_lines(slurp(path)), expected);
}

TEST(Timeline, ACausedTransactionIsLinkedToItsCauseByAFlowArrow) {
  const std::string path = tmp("timeline_flow.json");
  {
    Timeline t(options(path), 1000);
    const int sm = t.track("memory", "sm0"), l2 = t.track("memory", "l2");
    t.async_begin(sm, "read", 7, 1000);
    t.async_stage_begin(l2, "l2 slice1", 7, 2000);
    // The miss in the L2 stage fetches a sector: an "n" in the cause (on
    // the track of its innermost stage) points at the fill.
    t.async_begin_caused(7, "l2 miss", l2, "l2 fill", 0x20, 3000, R"({"addr":"0x80"})");
    // A cause that is not recorded: a plain transaction.
    t.async_begin_caused(99, "l2 miss", l2, "l2 fill", 0x40, 3000);
    t.async_end(l2, {}, 0x20, 5000);
    t.async_end(l2, {}, 0x40, 5000);
    t.async_end(l2, {}, 7, 6000);
    t.async_end(sm, {}, 7, 7000);
    t.close(8000);
  }
  const std::string text = slurp(path);
  const std::vector<std::string> expected{
      R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"memory"}})",
      R"({"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":1}})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"sm0"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"b","pid":1,"tid":1,"ts":0.001000,"name":"read","cat":"mem","id":"0x7"})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"l2"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":2}})",
      R"({"ph":"b","pid":1,"tid":2,"ts":0.002000,"name":"l2 slice1","cat":"mem","id":"0x7"})",
      R"({"ph":"n","pid":1,"tid":2,"ts":0.003000,"name":"l2 miss","cat":"mem","id":"0x7","bind_id":1,"flow_out":true})",
      R"({"ph":"b","pid":1,"tid":2,"ts":0.003000,"name":"l2 fill","cat":"mem","id":"0x20","bind_id":1,"flow_in":true,"args":{"addr":"0x80"}})",
      R"({"ph":"b","pid":1,"tid":2,"ts":0.003000,"name":"l2 fill","cat":"mem","id":"0x40"})",
      R"({"ph":"e","pid":1,"tid":2,"ts":0.005000,"name":"l2 fill","cat":"mem","id":"0x20"})",
      R"({"ph":"e","pid":1,"tid":2,"ts":0.005000,"name":"l2 fill","cat":"mem","id":"0x40"})",
      R"({"ph":"e","pid":1,"tid":2,"ts":0.006000,"name":"l2 slice1","cat":"mem","id":"0x7"})",
      R"({"ph":"e","pid":1,"tid":1,"ts":0.007000,"name":"read","cat":"mem","id":"0x7"})",
  };
  EXPECT_EQ(event_lines(text), expected);
  tessera::test::TimelineSummary s;
  EXPECT_EQ(tessera::test::check_timeline(text, s), "");
  ASSERT_EQ(s.flows.size(), 1u);
  EXPECT_EQ(s.transactions[s.flows[0].first].id, "0x7");
  EXPECT_EQ(s.transactions[s.flows[0].second].id, "0x20");
  EXPECT_EQ(s.transactions[s.flows[0].first].stages, (std::vector<std::string>{"read", "l2 slice1"}));
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

TEST(Timeline, SampleOneRecordsEveryTransactionAndZeroIsRefused) {
  TimelineOptions o = options(tmp("timeline_sample1.json"));
  o.sample = 1;
  {
    Timeline t(o, 1000);
    for (int i = 0; i < 10; ++i) {
      EXPECT_TRUE(t.sample(0)) << i;
      EXPECT_TRUE(t.sample(1)) << i;
    }
    t.close(0);
  }
  o.sample = 0;
  try {
    Timeline t(o, 1000);
    FAIL() << "sample 0 accepted";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--timeline-sample 0"), std::string::npos) << e.what();
  }
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
    t.begin(a, "kernel 0", 0);  // straddles both edges
    t.begin(a, "phase", 5000);  // from before: cut to start with its parent, so written after it
    t.end(a, 15000);
    t.slice(b, "block 0", 1000, 9000);  // before: dropped
    t.instant(b, "early", 9999);        // before: dropped
    t.begin(b, "block 1", 9000);        // from before into the window
    t.instant(b, "inside", 12000);
    t.end(b, 15000);
    t.slice(b, "block 2", 19000, 25000);  // cut at the end
    t.slice(b, "block 4", 5000, 10000);   // ends at the window's start: nothing inside
    t.async_begin(m, "read", 1, 5000);    // begins before: dropped with its end
    t.async_end(m, {}, 1, 12000);
    t.async_begin(m, "read", 2, 19500);  // begins inside: keeps its end
    t.async_end(m, {}, 2, 26000);
    t.slice(b, "block 3", 21000, 22000);  // after: dropped
    t.end(a, 30000);
    t.close(40000);
  }
  const std::vector<std::string> expected{
      kSm0,
      kSm0Index,
      // Declared by "phase", which waits for its parent.
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"kernel"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"block slot 0"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":2}})",
      R"({"ph":"i","pid":1,"tid":2,"ts":0.012000,"name":"inside","s":"t"})",
      R"({"ph":"X","pid":1,"tid":2,"ts":0.010000,"dur":0.005000,"name":"block 1"})",
      R"({"ph":"X","pid":1,"tid":2,"ts":0.019000,"dur":0.001000,"name":"block 2"})",
      R"({"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"memory"}})",
      R"({"ph":"M","name":"process_sort_index","pid":2,"tid":0,"args":{"sort_index":2}})",
      R"({"ph":"M","name":"thread_name","pid":2,"tid":1,"args":{"name":"sm0"}})",
      R"({"ph":"M","name":"thread_sort_index","pid":2,"tid":1,"args":{"sort_index":1}})",
      R"({"ph":"b","pid":2,"tid":1,"ts":0.019500,"name":"read","cat":"mem","id":"0x2"})",
      R"({"ph":"e","pid":2,"tid":1,"ts":0.026000,"name":"read","cat":"mem","id":"0x2"})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.010000,"dur":0.010000,"name":"kernel 0"})",
      R"({"ph":"X","pid":1,"tid":1,"ts":0.010000,"dur":0.005000,"name":"phase"})",
  };
  EXPECT_EQ(event_lines(slurp(path)), expected);
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
