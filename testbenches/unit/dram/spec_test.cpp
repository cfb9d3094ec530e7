// Speed-bin presets, their validation, the dram.* parameters, the address
// map and the trace format.
#include <gtest/gtest.h>

#include <sstream>

#include "dram/address_map.h"
#include "dram/traffic.h"
#include "dram_harness.h"
#include "sim/config.h"

namespace tessera::dram::test {
namespace {

std::string config_error(const Settings& settings, const std::string& spec = "hbm2") {
  try {
    make_config(settings, spec);
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(DramSpec, PresetsLoadAndHaveThePublishedPeakBandwidth) {
  // Peak = 1024 data pins per stack x data rate / 8.
  const std::pair<const char*, double> expected[] = {{"hbm2", 256.0}, {"hbm2e", 409.6}, {"hbm3", 819.2}};
  for (const auto& [name, gbps] : expected) {
    const DramSpec s = load_preset(name);
    EXPECT_NO_THROW(validate(s)) << name;
    EXPECT_NEAR(s.peak_bandwidth_gbps(), gbps, 1e-9) << name;
    EXPECT_EQ(s.org.burst_bytes(), 32u) << name;
  }
  // 4-high of 8 Gb dies = 4 GiB; 8-high of 16 Gb dies = 16 GiB.
  EXPECT_EQ(load_preset("hbm2").capacity_bytes(), 4ull << 30);
  EXPECT_EQ(load_preset("hbm2e").capacity_bytes(), 16ull << 30);
  EXPECT_EQ(load_preset("hbm3").capacity_bytes(), 16ull << 30);
}

TEST(DramSpec, PresetDocumentMissingAValueIsRejectedNamingIt) {
  const std::string text = R"(name: x
standard: JESD235
data_rate_gbps: 2.0
tck_ps: 1000
organisation: {channels_per_stack: 8, dies: 4, pseudo_channels: 2, bank_groups: 4, banks_per_group: 4,
               rows: 16384, columns: 32, pc_width_bits: 64, burst_length: 4, beats_per_clock: 2}
timing: {CL: 14}
)";
  try {
    parse_spec_yaml(text, "x.yaml");
    FAIL() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("x.yaml timing: missing 'CWL'"), std::string::npos) << e.what();
  }
}

TEST(DramSpec, UnknownSpecListsTheValidOnes) {
  try {
    load_preset("hbm9");
    FAIL() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("hbm9"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("hbm2, hbm2e, hbm3"), std::string::npos) << e.what();
  }
}

TEST(DramSpec, RasShorterThanRcdIsRejectedNamingBoth) {
  const std::string e = config_error({{"timing.tRAS", "10"}});
  EXPECT_NE(e.find("tRAS (10) < tRCDRD (14)"), std::string::npos) << e;
}

TEST(DramSpec, RcShorterThanRasPlusRpIsRejectedNamingAllThree) {
  const std::string e = config_error({{"timing.tRC", "40"}});
  EXPECT_NE(e.find("tRC (40) < tRAS (34) + tRP (14)"), std::string::npos) << e;
}

TEST(DramSpec, RefreshLongerThanItsIntervalIsRejected) {
  EXPECT_NE(config_error({{"timing.tREFI", "200"}}).find("tREFI (200) <= tRFC (350)"), std::string::npos);
  EXPECT_NE(config_error({{"timing.tREFISB", "100"}}).find("tREFISB (100) <= tRFCSB (160)"), std::string::npos);
}

TEST(DramSpec, BadParametersAreErrorsNamingTheKey) {
  EXPECT_NE(config_error({{"scheduler", "lifo"}}).find("dram.scheduler"), std::string::npos);
  EXPECT_NE(config_error({{"stacks", "3"}}).find("dram.stacks = 3 must be a power of two"), std::string::npos);
  // The low watermark must stay below the high one (default 40).
  EXPECT_NE(config_error({{"write_low_watermark", "40"}}).find("dram.write_low_watermark (40)"), std::string::npos);
  // The stagger was a bool before it had three modes: "true" names them.
  const std::string stagger = config_error({{"refresh_stagger", "true"}});
  EXPECT_NE(stagger.find("dram.refresh_stagger"), std::string::npos) << stagger;
  EXPECT_NE(stagger.find("pseudo_channels"), std::string::npos) << stagger;
  EXPECT_NE(config_error({{"timing.tRCD", "10"}}).find("dram.timing.tRCD"), std::string::npos);  // unknown key
}

TEST(DramAddressMap, FieldsSitWhereTheOrderStringPutsThem) {
  const DramSpec s = load_preset("hbm2");
  const AddressMap m(s, "ro-ba-co-bg-pc-ch", false);
  // Bits: 5 byte-in-burst, 3 ch, 1 pc, 2 bg, 5 co, 2 ba, 14 ro.
  EXPECT_EQ(m.decode(0x20).channel, 1u);
  EXPECT_EQ(m.decode(0x100).pc, 1u);
  EXPECT_EQ(m.decode(0x200).bank_group, 1u);
  EXPECT_EQ(m.decode(0x800).column, 1u);
  EXPECT_EQ(m.decode(0x10000).bank, 1u);
  EXPECT_EQ(m.decode(0x40000).row, 1u);
  EXPECT_EQ(m.decode(0x1F).channel, 0u);  // within one burst
}

TEST(DramAddressMap, EncodeInvertsDecodeWithAndWithoutTheXorHash) {
  const DramSpec s = load_preset("hbm3");
  for (bool hash : {false, true}) {
    const AddressMap m(s, "ro-bg-ba-co-pc-ch", hash);
    for (uint64_t a : {0x0ull, 0x12345660ull, 0x3FFFFFFE0ull, 0x2AAAAAAA0ull}) EXPECT_EQ(m.encode(m.decode(a)), a) << a;
  }
}

TEST(DramAddressMap, XorHashSpreadsOneBankAcrossBanksByRow) {
  const DramSpec s = load_preset("hbm2");
  const AddressMap plain(s, "ro-ba-co-bg-pc-ch", false), hashed(s, "ro-ba-co-bg-pc-ch", true);
  // Row r, bank 0: with the hash the bank is r's low 2 bits, the bank group the next 2.
  const uint64_t row5 = 5ull << 18;
  EXPECT_EQ(plain.decode(row5).bank, 0u);
  EXPECT_EQ(hashed.decode(row5).bank, 1u);        // 5 & 3
  EXPECT_EQ(hashed.decode(row5).bank_group, 1u);  // (5 >> 2) & 3
}

TEST(DramAddressMap, BadOrderStringsAreErrorsNamingTheField) {
  const DramSpec s = load_preset("hbm2");
  const auto error = [&](const std::string& order) {
    try {
      AddressMap m(s, order, false);
    } catch (const sim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("ro-ba-co-bg-pc-xx").find("unknown field 'xx'"), std::string::npos);
  EXPECT_NE(error("ro-ba-co-bg-pc").find("field 'ch' is missing"), std::string::npos);
  EXPECT_NE(error("ro-ba-co-bg-pc-ch-ro").find("field 'ro' appears twice"), std::string::npos);
}

TEST(DramTrace, ParsesCyclesOperationsAndHexAddresses) {
  std::istringstream in("# comment\n\n0 R 0x40\n  12 W 1f00\n12 r 0X0\n");
  const auto t = parse_trace(in, "t.trace");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].cycle, 0u);
  EXPECT_FALSE(t[0].is_write);
  EXPECT_EQ(t[0].address, 0x40u);
  EXPECT_EQ(t[1].cycle, 12u);
  EXPECT_TRUE(t[1].is_write);
  EXPECT_EQ(t[1].address, 0x1f00u);
  EXPECT_EQ(t[2].line, 5u);
}

TEST(DramTrace, MalformedLinesAreReportedWithTheirLineNumber) {
  const auto error = [](const std::string& text) {
    std::istringstream in(text);
    try {
      parse_trace(in, "t.trace");
    } catch (const sim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("0 R 0x40\n5 X 0x40\n").find("t.trace:2: bad operation 'X'"), std::string::npos);
  EXPECT_NE(error("0 R 0x40\n\n7 W\n").find("t.trace:3: too few fields"), std::string::npos);
  EXPECT_NE(error("abc R 0x40\n").find("t.trace:1: bad cycle 'abc'"), std::string::npos);
  EXPECT_NE(error("1 R 0xZZ\n").find("t.trace:1: bad hex address '0xZZ'"), std::string::npos);
  EXPECT_NE(error("1 R 0x10 9\n").find("t.trace:1: too many fields"), std::string::npos);
  EXPECT_NE(error("9 R 0\n3 R 0\n").find("t.trace:2: cycle 3 is before"), std::string::npos);
}

}  // namespace
}  // namespace tessera::dram::test
