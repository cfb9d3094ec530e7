// NoC trace reader: numbers are decimal (leading zeros included) or 0x hex,
// never octal, never silently clamped or truncated to int; every error names
// origin and line.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "noc/traffic.h"
#include "sim/config.h"

namespace tessera::noc {
namespace {

std::vector<TraceRecord> read(const std::string& text, int default_flits = 4) {
  std::istringstream in(text);
  return read_trace(in, "t.trace", 16, 2, default_flits);
}

std::string error_of(const std::string& text, int default_flits = 4) {
  try {
    read(text, default_flits);
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(NocTraceFields, LeadingZerosAreDecimalNotOctal) {
  // "050" was cycle 40 (strtoll base 0; found by fuzz_noc_trace), and "09"
  // was not a number at all.
  const auto r = read("09 0 1\n# cycle src dst flits\n050 0 15 3\n250 5 6 1\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].cycle, 9u);
  EXPECT_EQ(r[1].cycle, 50u);
  EXPECT_EQ(r[2].cycle, 250u);
  EXPECT_EQ(r[1].dst, 15);
}

TEST(NocTraceFields, HexadecimalWithPrefix) {
  const auto r = read("0x10 0xa 0XF 0x20 1\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cycle, 16u);
  EXPECT_EQ(r[0].src, 10);
  EXPECT_EQ(r[0].dst, 15);
  EXPECT_EQ(r[0].flits, 32);
  EXPECT_EQ(r[0].cls, 1);
}

TEST(NocTraceFields, OverflowIsAnErrorNotAClamp) {
  // strtoll turned this into INT64_MAX without a word.
  EXPECT_NE(error_of("99999999999999999999 0 1\n")
                .find("t.trace:1: '99999999999999999999' is larger than "
                      "9223372036854775807"),
            std::string::npos);
  EXPECT_NE(error_of("9223372036854775808 0 1\n").find("is larger than"), std::string::npos);
  EXPECT_EQ(read("9223372036854775807 0 1\n").at(0).cycle, 9223372036854775807ull);
}

TEST(NocTraceFields, ValuesAreRangeCheckedBeforeNarrowingToInt) {
  // 2^32 + 1 flits became a 1-flit packet, class 2^32 became class 0 and
  // node 2^32 became node 0.
  EXPECT_NE(error_of("0 0 1 4294967297\n").find("t.trace:1: packet length 4294967297 outside 1..65535 flits"),
            std::string::npos);
  EXPECT_NE(error_of("0 0 1 4 4294967296\n").find("t.trace:1: message class 4294967296 but noc.classes is 2"),
            std::string::npos);
  EXPECT_NE(error_of("0 4294967296 1\n").find("t.trace:1: node 4294967296 does not exist (nodes 0..15)"),
            std::string::npos);
}

TEST(NocTraceFields, BadDefaultPacketLengthIsReportedWithItsValue) {
  // With three fields the message printed v[3], one past the end.
  EXPECT_NE(error_of("0 0 1\n", 0).find("t.trace:1: packet length 0 outside 1..65535 flits"), std::string::npos);
  EXPECT_NE(error_of("0 0 1\n", 70000).find("t.trace:1: packet length 70000 outside"), std::string::npos);
}

TEST(NocTraceFields, SignsAndExtraFieldsAreRefused) {
  EXPECT_NE(error_of("+1 0 1\n").find("t.trace:1: '+1' is not a non-negative integer"), std::string::npos);
  EXPECT_NE(error_of("-0 0 1\n").find("t.trace:1: '-0' is not a non-negative integer"), std::string::npos);
  EXPECT_NE(error_of("0x 0 1\n").find("t.trace:1: '0x' is not a non-negative integer"), std::string::npos);
  EXPECT_NE(error_of("1 0 1 1 0 7\n").find("t.trace:1: expected 'cycle src dst [flits [class]]'"), std::string::npos);
}

}  // namespace
}  // namespace tessera::noc
