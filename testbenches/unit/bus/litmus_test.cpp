// Litmus outcome counts at engine level: sequential consistency never shows
// a forbidden outcome; TSO shows store buffering (r1=0 r2=0) and still
// forbids the message-passing and load-buffering outcomes (x86-TSO).
#include <gtest/gtest.h>

#include "bus/litmus.h"
#include "cluster_harness.h"

namespace tessera::bus::test {
namespace {

constexpr uint64_t kIterations = 2000;

TEST(Litmus, SequentialConsistencyNeverShowsForbiddenOutcomes) {
  for (auto p : all_protocols()) {
    for (const auto& test : litmus_names()) {
      const auto r = run_litmus(small_params(p, 2), test, kIterations, 1);
      ASSERT_TRUE(r.failure.empty()) << r.failure;
      uint64_t total = 0;
      for (const auto& [o, n] : r.outcomes) total += n;
      EXPECT_EQ(total, kIterations);
      EXPECT_EQ(r.forbidden_count(), 0u) << test << " " << mem::protocol_name(p);
      // The timing is random enough to see more than one outcome.
      EXPECT_GE(r.outcomes.size(), 2u) << test << " " << mem::protocol_name(p);
    }
  }
}

TEST(Litmus, TsoShowsStoreBufferingOnly) {
  for (auto p : {mem::Protocol::kMesi, mem::Protocol::kDragon}) {
    auto params = small_params(p, 2);
    params.tso = true;
    const auto sb = run_litmus(params, "sb", kIterations, 1);
    ASSERT_TRUE(sb.failure.empty()) << sb.failure;
    EXPECT_GT(sb.forbidden_count(), 0u) << mem::protocol_name(p);
    EXPECT_EQ(run_litmus(params, "mp", kIterations, 1).forbidden_count(), 0u);
    EXPECT_EQ(run_litmus(params, "lb", kIterations, 1).forbidden_count(), 0u);
  }
}

TEST(Litmus, UnknownTestListsValidOnes) {
  try {
    run_litmus(small_params(mem::Protocol::kMesi, 2), "iriw", 1, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sb|mp|lb"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera::bus::test
