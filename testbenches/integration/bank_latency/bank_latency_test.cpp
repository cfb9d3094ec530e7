// The shared-memory n-way bank-conflict latency curve (docs/architecture.md,
// "Memory system"; docs/validation.md, "Shared-memory bank conflicts").
//
// The curve (sm/shared_banks.h, ConflictCurve) is checked directly; then the
// microbenchmark firmware/microbench/smem_latency.c runs through the
// simulator. It times 256 dependent shared loads per conflict degree k with
// clock() (firmware/microbench/chase.h), and its window is, by the timing
// rules of docs/architecture.md:
//   sw (sink, global memory; waits for the warm-up's last load) issues in
//   cycle R and occupies the LD/ST unit for 32 / 8 lanes = 4 cycles; the
//   clock read dual-issues with it (SP unit, independent): t0 = R. The first
//   timed load needs the LD/ST unit: it issues at R + 4; every further load
//   issues when the previous one's value is readable, L(k) cycles later (the
//   bank array is long free again: k <= 32 passes < L). The closing sw
//   issues when the 256th load's value is readable, R + 4 + 256 L(k), and the
//   second clock read dual-issues with it. So t1 - t0 = 256 L(k) + 4, with
//   L(k) = sm.shared_latency (28) + the curve's cycles for k passes.
//
// The default curve is calibrated to Mei and Chu's GTX 980 (Maxwell)
// measurements of the same chase (docs/validation.md, "Shared-memory bank
// conflicts"): 28.03, 30.02, 34.02, 42.03, 58.03 and 90.03 cycles per load at
// 1, 2, 4, 8, 16 and 32 ways.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "sm/shared_banks.h"
#include "tessera_run.h"

using tessera::sm::ConflictCurve;
using tessera::sm::parse_conflict_curve;
using tessera::test::run_tessera;

namespace {

constexpr unsigned kSteps = 256;         // CHASE_STEPS
constexpr unsigned kWindow = 4;          // the opening store's LD/ST occupancy (above)
constexpr unsigned kSharedLatency = 28;  // sm.shared_latency
const unsigned kWays[] = {1, 2, 4, 8, 16, 32};
// Published cycles per load at those ways (Mei and Chu, GTX 980; the Maxwell
// column of their released latency.txt at strides 0, 2, 4, 8, 16 and 32 words).
const double kPublished[] = {28.034375, 30.015625, 34.015625, 42.025, 58.025, 90.025};

std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }
std::string program() { return std::string(PROGRAMS_DIR) + "/smem_latency.elf"; }

// The whole-window cycles the microbenchmark prints per conflict degree:
// "smem  k-way conflict: N cycles for 256 dependent loads".
std::map<unsigned, unsigned long> window_cycles(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"run", platform("sm1"), program()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_tessera(args);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS smem_latency"), std::string::npos) << r.out;
  std::map<unsigned, unsigned long> cycles;
  const std::regex line(R"(smem +(\d+)-way conflict: (\d+) cycles for 256 dependent loads)");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), line), end; it != end; ++it)
    cycles[std::stoul((*it)[1])] = std::stoul((*it)[2]);
  EXPECT_EQ(cycles.size(), 6u) << r.out;
  return cycles;
}

unsigned long expected_window(unsigned added_cycles) { return kSteps * (kSharedLatency + added_cycles) + kWindow; }

std::string parse_error(const std::string& text) {
  try {
    parse_conflict_curve(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "'" << text << "' was accepted";
  return "";
}

}  // namespace

TEST(ConflictCurve, DefaultAddsTwoCyclesPerFurtherPass) {
  const ConflictCurve c = parse_conflict_curve(tessera::sm::kDefaultConflictCycles);
  for (unsigned n = 1; n <= 32; ++n) EXPECT_EQ(c.extra(n), 2 * (n - 1)) << n << " passes";
  EXPECT_EQ(c.extra(0), 0u);
  EXPECT_EQ(c.extra(64), 126u);  // the 16-to-32 slope (2 per pass) continues
  // The struct's own default is the key's default.
  EXPECT_EQ(ConflictCurve{}.cycles, c.cycles);
}

TEST(ConflictCurve, LinearBetweenTheGivenPointsRoundedDownAndBeyond) {
  const ConflictCurve c = parse_conflict_curve("3, 5,20,40,100");
  EXPECT_EQ(c.extra(1), 0u);
  EXPECT_EQ(c.extra(2), 3u);
  EXPECT_EQ(c.extra(3), 4u);  // 3 + 2 * 1/2
  EXPECT_EQ(c.extra(4), 5u);
  EXPECT_EQ(c.extra(5), 8u);  // 5 + 15 * 1/4 = 8.75
  EXPECT_EQ(c.extra(8), 20u);
  EXPECT_EQ(c.extra(12), 30u);  // 20 + 20 * 4/8
  EXPECT_EQ(c.extra(16), 40u);
  EXPECT_EQ(c.extra(17), 43u);  // 40 + 60 * 1/16 = 43.75
  EXPECT_EQ(c.extra(32), 100u);
  EXPECT_EQ(c.extra(33), 103u);  // 100 + 60 * 1/16
  EXPECT_EQ(c.extra(48), 160u);
}

TEST(ConflictCurve, MalformedOrImpossibleCurvesSayWhatIsWrong) {
  EXPECT_NE(parse_error("1,3,7,15").find("fewer than five cycle counts"), std::string::npos);
  EXPECT_NE(parse_error("1,3,x,15,31").find("'x' (for 8 ways) is not a whole number"), std::string::npos);
  EXPECT_NE(parse_error("1,3,7,15,31,63").find("'31,63' (for 32 ways)"), std::string::npos);
  EXPECT_NE(parse_error("1,3,-7,15,31").find("'-7' (for 8 ways)"), std::string::npos);
  EXPECT_NE(parse_error("1,,7,15,31").find("'' (for 4 ways)"), std::string::npos);
  EXPECT_NE(parse_error("0,3,7,15,31").find("0 cycles for 2 ways is less than 1"), std::string::npos);
  EXPECT_NE(parse_error("1,3,7,15,20").find("20 cycles for 32 ways is less than 31"), std::string::npos);
  EXPECT_NE(parse_error("9,3,7,15,31").find("3 cycles for 4 ways is less than the 9 given for 2 ways"),
            std::string::npos);
}

TEST(BankLatency, MicrobenchmarkFollowsTheDefaultCurveExactly) {
  const auto cycles = window_cycles();
  const ConflictCurve c = parse_conflict_curve(tessera::sm::kDefaultConflictCycles);
  for (unsigned k : kWays) EXPECT_EQ(cycles.at(k), expected_window(c.extra(k))) << k << "-way";
  // By hand, 256 * (28 + 2 (k - 1)) + 4: 1-way 256 * 28 + 4, 2-way 256 * 30 +
  // 4, 4-way 256 * 34 + 4, 8-way 256 * 42 + 4, 16-way 256 * 58 + 4, 32-way
  // 256 * 90 + 4.
  const unsigned long by_hand[] = {7172, 7684, 8708, 10756, 14852, 23044};
  for (unsigned i = 0; i < 6; ++i) EXPECT_EQ(cycles.at(kWays[i]), by_hand[i]) << kWays[i] << "-way";
}

// Each simulated per-load latency within 10% of the published one (Mei and
// Chu's GTX 980 figures; docs/validation.md).
TEST(BankLatency, DefaultCurveIsWithinTenPercentOfPublishedMaxwell) {
  const auto cycles = window_cycles();
  for (unsigned i = 0; i < 6; ++i) {
    const double per_load = static_cast<double>(cycles.at(kWays[i])) / kSteps;
    EXPECT_NEAR(per_load, kPublished[i], 0.1 * kPublished[i]) << kWays[i] << "-way";
  }
}

// Another curve through the key (the former default, one cycle per further
// pass), in the C++ model and with the RTL bank unit in lockstep: the extra
// latency follows the key in both, and the bank array's occupancy (one pass
// per cycle) is unchanged.
TEST(BankLatency, ConfiguredCurveAppliesInModelAndLockstep) {
  const std::string curve = "sm.shared_conflict_cycles=1,3,7,15,31";
  const unsigned added[] = {0, 1, 3, 7, 15, 31};
  for (const std::string impl : {"model", "lockstep"}) {
    const auto cycles = window_cycles({"--set", curve, "--set", "sm.shared_impl=" + impl});
    for (unsigned i = 0; i < 6; ++i)
      EXPECT_EQ(cycles.at(kWays[i]), expected_window(added[i])) << kWays[i] << "-way, " << impl;
  }
  // The default curve in lockstep too.
  const auto lockstep = window_cycles({"--set", "sm.shared_impl=lockstep"});
  const ConflictCurve c = parse_conflict_curve(tessera::sm::kDefaultConflictCycles);
  for (unsigned k : kWays) EXPECT_EQ(lockstep.at(k), expected_window(c.extra(k))) << k << "-way, lockstep";
}

TEST(BankLatency, ImpossibleCurveIsAConfigurationError) {
  const auto r = run_tessera({"run", platform("sm1"), program(), "--set", "sm.shared_conflict_cycles=1,3,7,15"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("sm.shared_conflict_cycles: '1,3,7,15' has fewer than five cycle counts"), std::string::npos)
      << r.err;
}
