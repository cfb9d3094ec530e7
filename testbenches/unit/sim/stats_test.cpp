// StatGroup: the hierarchy, counters read at dump time, formulas,
// histograms, nested JSON and the flat text dump.
#include "sim/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace {

using tessera::sim::StatGroup;

TEST(StatGroup, PathIsDottedFromRoot) {
  StatGroup chip("chip");
  StatGroup sm0("sm0", &chip);
  StatGroup sched1("sched1", &sm0);
  EXPECT_EQ(chip.path(), "chip");
  EXPECT_EQ(sm0.path(), "chip.sm0");
  EXPECT_EQ(sched1.path(), "chip.sm0.sched1");
  EXPECT_EQ(sched1.parent(), &sm0);
  EXPECT_EQ(chip.parent(), nullptr);
  EXPECT_EQ(sched1.name(), "sched1");
}

TEST(StatGroup, NestedJsonWithCountersReadAtDumpTime) {
  StatGroup chip("chip");
  StatGroup sm0("sm0", &chip);
  StatGroup sm1("sm1", &chip);
  StatGroup sched0("sched0", &sm0);
  uint64_t issued = 0, cycles = 10, other = 3;
  sched0.add_counter("issued", &issued, "warp instructions issued");
  sm0.add_counter("cycles", &cycles, "cycles");
  sm1.add_counter("cycles", &other, "cycles");
  issued = 42;  // registered by pointer: the dump sees the latest value
  const nlohmann::json j = chip.to_json();
  EXPECT_EQ(j["sm0"]["sched0"]["issued"].get<uint64_t>(), 42u);
  EXPECT_EQ(j["sm0"]["cycles"].get<uint64_t>(), 10u);
  EXPECT_EQ(j["sm1"]["cycles"].get<uint64_t>(), 3u);
  EXPECT_TRUE(j["sm0"].is_object());
  EXPECT_EQ(j.size(), 2u);  // only the two children
  issued = 43;
  EXPECT_EQ(chip.to_json()["sm0"]["sched0"]["issued"].get<uint64_t>(), 43u);
}

TEST(StatGroup, DescribeGivesEveryStatisticsPathItsDescription) {
  StatGroup chip("chip");
  StatGroup sm0("sm0", &chip);
  uint64_t issued = 0, longest = 0;
  std::vector<uint64_t> buckets(4);
  sm0.add_counter("issued", &issued, "warp instructions issued");
  sm0.add_maximum("longest", &longest, "longest wait, cycles");
  sm0.add_formula(
      "ipc", [] { return 0.5; }, "warp instructions per cycle");
  chip.add_histogram("latency", &buckets, "load latency, cycles");
  nlohmann::json d;
  chip.describe(d);
  EXPECT_EQ(d, nlohmann::json({{"chip.latency", "load latency, cycles"},
                               {"chip.sm0.issued", "warp instructions issued"},
                               {"chip.sm0.longest", "longest wait, cycles"},
                               {"chip.sm0.ipc", "warp instructions per cycle"}}));
}

TEST(StatGroup, LargeCounterIsExact) {
  StatGroup g("g");
  uint64_t big = std::numeric_limits<uint64_t>::max() - 1;
  g.add_counter("big", &big, "big");
  EXPECT_EQ(g.to_json()["big"].get<uint64_t>(), big);
}

TEST(StatGroup, FormulaEvaluatedAtDumpTimeAndNonFiniteIsNull) {
  StatGroup sm("sm0");
  uint64_t insts = 0, cycles = 0;
  sm.add_counter("insts", &insts, "instructions");
  sm.add_counter("cycles", &cycles, "cycles");
  sm.add_formula(
      "ipc", [&] { return static_cast<double>(insts) / static_cast<double>(cycles); }, "IPC");
  // 0/0 = NaN: JSON has no NaN, so the value is null.
  EXPECT_TRUE(sm.to_json()["ipc"].is_null());
  insts = 30;
  cycles = 20;
  EXPECT_DOUBLE_EQ(sm.to_json()["ipc"].get<double>(), 1.5);
  sm.add_formula(
      "inf", [] { return std::numeric_limits<double>::infinity(); }, "infinite");
  EXPECT_TRUE(sm.to_json()["inf"].is_null());
}

TEST(StatGroup, HistogramIsArray) {
  StatGroup g("mem");
  std::vector<uint64_t> buckets{5, 0, 2, 9};
  g.add_histogram("latency", &buckets, "latency histogram");
  buckets[1] = 7;
  const nlohmann::json j = g.to_json();
  ASSERT_TRUE(j["latency"].is_array());
  EXPECT_EQ(j["latency"].get<std::vector<uint64_t>>(), (std::vector<uint64_t>{5, 7, 2, 9}));
  EXPECT_EQ(nlohmann::json::parse(j.dump())["latency"].size(), 4u);
}

TEST(StatGroup, DumpTextHasFullPathsValuesAndDescriptions) {
  StatGroup chip("chip");
  StatGroup sm0("sm0", &chip);
  uint64_t issued = 5;
  std::vector<uint64_t> h{1, 2, 3};
  sm0.add_counter("issued", &issued, "warp instructions issued");
  sm0.add_histogram("hist", &h, "a histogram");
  sm0.add_formula(
      "half", [] { return 0.5; }, "one half");
  std::string out;
  chip.dump_text(out);
  EXPECT_NE(out.find("chip.sm0.issued 5 # warp instructions issued\n"), std::string::npos) << out;
  EXPECT_NE(out.find("chip.sm0.hist 1,2,3 # a histogram\n"), std::string::npos) << out;
  EXPECT_NE(out.find("chip.sm0.half 0.5 # one half\n"), std::string::npos) << out;
}

TEST(StatGroup, DestroyedChildLeavesTheTree) {
  StatGroup chip("chip");
  uint64_t a = 1;
  {
    StatGroup tmp("tmp", &chip);
    tmp.add_counter("a", &a, "a");
    EXPECT_TRUE(chip.to_json().contains("tmp"));
  }
  EXPECT_FALSE(chip.to_json().contains("tmp"));
}

TEST(StatGroup, DestroyedParentDetachesChildren) {
  auto parent = std::make_unique<StatGroup>("chip");
  StatGroup child("sm0", parent.get());
  parent.reset();
  EXPECT_EQ(child.parent(), nullptr);
  EXPECT_EQ(child.path(), "sm0");
}

TEST(StatGroup, EmptyGroupIsEmptyObject) {
  StatGroup g("g");
  EXPECT_TRUE(g.to_json().is_object());
  EXPECT_TRUE(g.to_json().empty());
}

}  // namespace

// A span's share (a region of interest, a kernel): counters and histogram
// buckets gain what they gained between snapshot and accumulate, summed
// over several spans; maxima and formulas are left out; a counter that went
// down has no share (null); one added after the snapshot starts from 0.
TEST(StatGroup, ASpansShareIsWhatEachCounterGainedInIt) {
  StatGroup root("chip");
  StatGroup sm("sm0", &root);
  uint64_t insts = 10, wait_max = 7, level = 5;
  std::vector<uint64_t> hist = {1, 2};
  sm.add_counter("insts", &insts, "");
  sm.add_maximum("wait_max", &wait_max, "");
  sm.add_counter("level", &level, "");
  sm.add_histogram("hist", &hist, "");
  sm.add_formula(
      "ipc", [] { return 0.5; }, "");
  tessera::sim::StatCounts start, share;
  root.snapshot(start);
  insts += 5;
  hist = {3, 2, 4};  // a bucket added within the span
  level = 4;         // a level that went down
  uint64_t late = 6;
  StatGroup late_group("sm1", &root);
  late_group.add_counter("insts", &late, "");
  root.accumulate(start, share);
  // A second span: 100 more instructions, the rest unchanged.
  root.snapshot(start);
  insts += 100;
  root.accumulate(start, share);
  const auto j = root.to_json(share);
  EXPECT_EQ(j["sm0"]["insts"], 105);
  EXPECT_EQ(j["sm0"]["hist"], nlohmann::json::parse("[2, 0, 4]"));
  EXPECT_TRUE(j["sm0"]["level"].is_null());
  EXPECT_FALSE(j["sm0"].contains("wait_max"));
  EXPECT_FALSE(j["sm0"].contains("ipc"));
  EXPECT_EQ(j["sm1"]["insts"], 6);
  // The whole-run JSON still has the maximum and the formula.
  EXPECT_EQ(root.to_json()["sm0"]["wait_max"], 7);
  EXPECT_EQ(root.to_json()["sm0"]["ipc"], 0.5);
}
