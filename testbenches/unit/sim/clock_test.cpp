// ClockDomain: the period a frequency gets and the rate its cycles really
// advance at (CLOCK_KHZ, docs/firmware-abi.md). Expected values by hand:
// the period is 10^6 / MHz ps rounded to the nearest ps (SystemC's default
// resolution), the rate 10^9 / period kHz rounded to the nearest kHz.
#include <gtest/gtest.h>

#include "sim/clock.h"

namespace {

using tessera::sim::ClockDomain;

TEST(ClockDomain, KhzIsTheFrequencyWhenThePeriodIsWholePicoseconds) {
  EXPECT_EQ(ClockDomain("c", 1000.0).khz(), 1000000u);      // 1000 ps
  EXPECT_EQ(ClockDomain("c", 500.0).khz(), 500000u);        // 2000 ps
  EXPECT_EQ(ClockDomain("c", 800.0).khz(), 800000u);        // 1250 ps
  EXPECT_EQ(ClockDomain("c", 10000.0).khz(), 10000000u);    // 100 ps
  EXPECT_EQ(ClockDomain("c", 100000.0).khz(), 100000000u);  // 10 ps, the largest clock.cpu_mhz
  EXPECT_EQ(ClockDomain("c", 1.0).khz(), 1000u);            // 10^6 ps, the smallest
}

TEST(ClockDomain, KhzIsTheRateOfTheRoundedPeriodOtherwise) {
  const ClockDomain c3000("c", 3000.0);  // 333.33 ps -> 333 ps
  EXPECT_EQ(c3000.period().value(), 333u);
  EXPECT_EQ(c3000.khz(), 3003003u);      // 10^9 / 333 = 3003003.003
  const ClockDomain c1400("c", 1400.0);  // 714.29 ps -> 714 ps
  EXPECT_EQ(c1400.period().value(), 714u);
  EXPECT_EQ(c1400.khz(), 1400560u);  // 10^9 / 714 = 1400560.22
}

}  // namespace
