// DRAM trace reader: fields are exactly what docs/dram.md says, decimal
// cycles and hexadecimal addresses with an optional 0x, and nothing that
// std::stoull would also have taken (a sign, a second prefix).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "dram/traffic.h"
#include "sim/config.h"

namespace tessera::dram {
namespace {

std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_trace(in, "t.trace");
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(DramTraceFields, SignedOrDoublyPrefixedAddressesAreRefused) {
  // "0x+0" was read as address 0 (found by fuzz_dram_trace).
  EXPECT_NE(error_of("# che0\n0 W 0x+0\n10 R 0x40\n").find("t.trace:2: bad hex address '0x+0'"), std::string::npos);
  EXPECT_NE(error_of("0 R 0x0x40\n").find("t.trace:1: bad hex address '0x0x40'"), std::string::npos);
  EXPECT_NE(error_of("0 R +40\n").find("t.trace:1: bad hex address '+40'"), std::string::npos);
  EXPECT_NE(error_of("0 R -40\n").find("t.trace:1: bad hex address '-40'"), std::string::npos);
  EXPECT_NE(error_of("0 R 0x\n").find("t.trace:1: bad hex address '0x'"), std::string::npos);
}

TEST(DramTraceFields, SignedCyclesAreRefused) {
  EXPECT_NE(error_of("+5 R 0x40\n").find("t.trace:1: bad cycle '+5'"), std::string::npos);
  EXPECT_NE(error_of("-0 R 0x40\n").find("t.trace:1: bad cycle '-0'"), std::string::npos);
  EXPECT_NE(error_of("0x10 R 0x40\n").find("t.trace:1: bad cycle '0x10'"), std::string::npos);
}

TEST(DramTraceFields, SixtyFourBitLimitsAreExact) {
  std::istringstream in("18446744073709551615 W ffffffffffffffff\n");
  const auto t = parse_trace(in, "t.trace");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].cycle, 18446744073709551615ull);
  EXPECT_EQ(t[0].address, 0xffffffffffffffffull);
  EXPECT_NE(error_of("18446744073709551616 R 0\n").find("bad cycle"), std::string::npos);
  EXPECT_NE(error_of("0 R 0x10000000000000000\n").find("bad hex address"), std::string::npos);
}

TEST(DramTraceFields, LeadingZerosAreDecimalCycles) {
  std::istringstream in("010 R 010\n");
  const auto t = parse_trace(in, "t.trace");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].cycle, 10u);
  EXPECT_EQ(t[0].address, 0x10u);
}

TEST(DramTraceFields, BlankMeansWhitespaceAsTheFieldsAreSplit) {
  // A line of only a vertical tab or form feed is blank, as the field
  // splitter sees it; '#' after leading whitespace starts a comment.
  std::istringstream in("\v\n\f \t\r\n   # comment\n5 r 40\n");
  const auto t = parse_trace(in, "t.trace");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].line, 4u);
  EXPECT_EQ(t[0].address, 0x40u);
}

}  // namespace
}  // namespace tessera::dram
