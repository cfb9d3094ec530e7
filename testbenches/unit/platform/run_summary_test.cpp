// RunSummary: totals summed by name over instances, lines in order (ties in
// the order added), a line id shown once and formatted from the totals when
// printed.
#include "platforms/run_summary.h"

#include <gtest/gtest.h>

#include <string>

namespace run_summary_test {

using tessera::platform::RunSummary;

TEST(RunSummary, TotalsSumByNameAndAreZeroWhenAbsent) {
  RunSummary s;
  s.add("warp_insts", 3);
  s.add("warp_insts", 4);
  s.add_real("seconds", 0.25);
  s.add_real("seconds", 0.5);
  EXPECT_EQ(s.get("warp_insts"), 7u);
  EXPECT_EQ(s.get("thread_insts"), 0u);
  EXPECT_DOUBLE_EQ(s.get_real("seconds"), 0.75);
  EXPECT_DOUBLE_EQ(s.get_real("none"), 0.0);
}

TEST(RunSummary, LinesGoByOrderThenByTheOrderAdded) {
  RunSummary s;
  s.line(60, "hbm0", [](const RunSummary&) { return std::string("hbm0\n"); });
  s.line(20, "warps", [](const RunSummary&) { return std::string("warps\n"); });
  s.line(60, "hbm1", [](const RunSummary&) { return std::string("hbm1\n"); });
  s.line(10, "cycles", [](const RunSummary&) { return std::string("cycles\n"); });
  EXPECT_EQ(s.lines(0, 100), "cycles\nwarps\nhbm0\nhbm1\n");
  EXPECT_EQ(s.lines(11, 60), "warps\n");
  EXPECT_EQ(s.lines(60, 61), "hbm0\nhbm1\n");
}

TEST(RunSummary, ALineAddedByEveryInstanceShowsOnceWithTheSumOverThem) {
  RunSummary s;
  for (const uint64_t warps : {100u, 20u, 3u}) {  // three SM clusters
    s.add("warp_insts", warps);
    s.line(20, "warp_insts",
           [](const RunSummary& t) { return "warp instructions " + std::to_string(t.get("warp_insts")) + "\n"; });
  }
  // A total added after the line is still in it: lines format when printed.
  s.add("warp_insts", 1000);
  EXPECT_EQ(s.lines(0, 100), "warp instructions 1123\n");
}

}  // namespace run_summary_test
