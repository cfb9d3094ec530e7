// The RTL blocks in the chip's waveform (docs/cosim.md, "Waveforms of the
// RTL"), read back from the FST `tessera run --vcd` writes.
//
// The bank RAM's golden values come from the histogram program's own input
// (firmware/programs/histogram.c): 2^16 bytes of Numerical Recipes' LCG
// (state 2024, value = the top byte after each step), 32 blocks of 256
// threads with a grid stride of 8192, so block 0 counts the values i with
// i mod 8192 < 256 into its __shared__ bins. On sm1 block 0 is the first
// block placed, in the shared window at offset 0, so bin b is word b: bank
// b mod 32, row b / 32. Its count grows by one per atomic until the next
// block in that window clears it: the word's first peak is block 0's count.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "rtl/common/rtl_wave.h"
#include "tessera_run.h"
#include "test_paths.h"
#include "wave_reader.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;
using tessera::test::WaveFile;

std::string elf(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

WaveFile trace(const std::vector<std::string>& args) {
  const std::string fst = tessera::test::temp_path("rtl.fst");
  std::vector<std::string> a = args;
  a.insert(a.end(), {"-q", "--set", "clock.sm_mhz=1000", "--vcd", fst});
  const RunResult r = run_tessera(a);
  EXPECT_EQ(r.status, 0) << r.err;
  WaveFile w = WaveFile::read(fst);
  std::filesystem::remove(fst);
  return w;
}

// Block 0's bin counts, from the program's generator (see the top).
std::array<uint64_t, 256> block0_bins() {
  std::array<uint64_t, 256> bins{};
  uint32_t state = 2024u;
  for (uint32_t i = 0; i < (1u << 16); ++i) {
    state = state * 1664525u + 1013904223u;
    if (i % 8192 < 256) ++bins[state >> 24];
  }
  return bins;
}

constexpr const char* kBank = "chip.sm0.shared_banks.rtl";

TEST(WavesRtl, BankUnitSignalsAreUnderTheSm) {
  const WaveFile w =
      trace({"run", "sm1", elf("histogram"), "--set", "sm.shared_impl=rtl", "--trace-scope", "sm0.shared_banks"});
  const std::string top = std::string(kBank) + ".";
  EXPECT_EQ(w.width(top + "req_valid"), 1u);
  EXPECT_EQ(w.width(top + "req_op"), 4u);
  EXPECT_EQ(w.width(top + "req_word[31]"), 14u);  // 16384 words
  EXPECT_EQ(w.width(top + "resp_data[0]"), 32u);
  EXPECT_EQ(w.width(top + "shared_bank_unit.busy_q"), 1u);
  EXPECT_EQ(w.width(top + "shared_bank_unit.passes_q"), 6u);
  // Every word of the RAM: 32 banks of 512 rows.
  EXPECT_EQ(w.paths_matching(top + "shared_bank_unit.g_bank[[]*].mem[[]*]").size(), 16384u);
  EXPECT_EQ(w.width(top + "shared_bank_unit.g_bank[31].mem[511]"), 32u);
  // --trace-scope sm0.shared_banks keeps nothing else.
  EXPECT_TRUE(w.paths_matching("chip.sm0.sched*").empty());
  // The unit answered requests: resp_valid went high.
  EXPECT_FALSE(w.times_of(top + "resp_valid", 1).empty());
}

TEST(WavesRtl, BankRamHoldsWhatTheProgramWrote) {
  const WaveFile w =
      trace({"run", "sm1", elf("histogram"), "--set", "sm.shared_impl=rtl", "--trace-scope", "sm0.shared_banks.rtl"});
  const std::array<uint64_t, 256> want = block0_bins();
  uint64_t total = 0;
  for (unsigned b = 0; b < 256; ++b) {
    const std::string word = std::string(kBank) + ".shared_bank_unit.g_bank[" + std::to_string(b % 32) + "].mem[" +
                             std::to_string(b / 32) + "]";
    ASSERT_TRUE(w.has(word)) << word;
    uint64_t peak = 0, last = 0;
    bool stepwise = true;
    for (const auto& c : w.changes(word)) {
      if (c.value == last) continue;  // the values at the start
      if (c.value < last) break;      // the next block in the window cleared it
      stepwise = stepwise && c.value == last + 1;
      peak = last = c.value;
    }
    EXPECT_EQ(peak, want[b]) << "bin " << b << " (" << word << ")";
    EXPECT_TRUE(stepwise) << word << ": one atomicAdd per pass, so the count grows one at a time";
    total += peak;
  }
  EXPECT_EQ(total, 2048u);  // block 0's 256 threads x 8 values
}

TEST(WavesRtl, LockstepTracesTheRtlToo) {
  const WaveFile w = trace(
      {"run", "sm1", elf("histogram"), "--set", "sm.shared_impl=lockstep", "--trace-scope", "sm0.shared_banks.rtl"});
  EXPECT_EQ(w.width(std::string(kBank) + ".shared_bank_unit.g_bank[0].mem[0]"), 32u);
  EXPECT_FALSE(w.times_of(std::string(kBank) + ".resp_valid", 1).empty());
}

TEST(WavesRtl, RouterBusesAreSplitPerPortAndVc) {
  // chip_noc: 5-port mesh routers, 4 VCs, 32-byte flits (PAYLOAD_W 256).
  const WaveFile w =
      trace({"run", "chip_noc", elf("vecadd"), "--set", "noc.router_impl=rtl", "--trace-scope", "noc.r5"});
  const std::string r = "chip.noc.r5.rtl.";
  for (unsigned p = 0; p < 5; ++p) {
    const std::string port = "port" + std::to_string(p);
    EXPECT_EQ(w.width(r + "in_hdr." + port), 32u) << port;
    EXPECT_EQ(w.width(r + "out_hdr." + port), 32u) << port;
    EXPECT_EQ(w.width(r + "cin." + port), 8u) << port;
    EXPECT_EQ(w.width(r + "cout." + port), 8u) << port;
    EXPECT_EQ(w.width(r + "ev_switch." + port), 1u) << port;
    for (unsigned lo = 0; lo < 256; lo += 64) {
      const std::string piece = "bits" + std::to_string(lo + 63) + "_" + std::to_string(lo);
      EXPECT_EQ(w.width(r + "in_payload." + port + "." + piece), 64u) << port << piece;
    }
    for (unsigned v = 0; v < 4; ++v)
      EXPECT_EQ(w.width(r + "noc_router.owned_q." + port + "_vc" + std::to_string(v)), 1u);
  }
  // No flat copy of a split bus.
  EXPECT_FALSE(w.has(r + "in_hdr"));
  EXPECT_FALSE(w.has(r + "cin"));
  // Flits went through router 5: some input header had its valid bit (31).
  bool valid = false;
  for (unsigned p = 0; p < 5; ++p)
    for (const auto& c : w.changes(r + "in_hdr.port" + std::to_string(p))) valid = valid || (c.value >> 31) != 0;
  EXPECT_TRUE(valid);
  // --trace-scope noc.r5 keeps router 5 only.
  EXPECT_TRUE(w.paths_matching("chip.noc.r6.*").empty());
}

TEST(WavesRtl, TraceScopeDropsTheRtl) {
  const WaveFile w =
      trace({"run", "sm1", elf("histogram"), "--set", "sm.shared_impl=rtl", "--trace-scope", "sm0.sched0"});
  EXPECT_FALSE(w.paths_matching("chip.sm0.sched0.*").empty());
  EXPECT_TRUE(w.paths_matching("*.rtl.*").empty());
}

std::string stats_without_host(const std::string& path) {
  std::istringstream in(tessera::test::read_file(path));
  std::string out, line;
  while (std::getline(in, line))
    if (line.find("host_seconds") == std::string::npos && line.find("per_host_second") == std::string::npos)
      out += line + "\n";
  return out;
}

TEST(WavesRtl, TracingTheRtlChangesNoStatistic) {
  struct Case {
    const char* platform;
    const char* key;
  };
  for (const Case& c : {Case{"sm1", "sm.shared_impl=rtl"}, Case{"chip_noc", "noc.router_impl=rtl"}}) {
    const std::string plain = tessera::test::temp_path("plain.json"), traced = tessera::test::temp_path("traced.json");
    const std::string fst = tessera::test::temp_path("all.fst");
    RunResult r = run_tessera({"run", c.platform, elf("histogram"), "-q", "--set", c.key, "--stats", plain});
    ASSERT_EQ(r.status, 0) << r.err;
    r = run_tessera({"run", c.platform, elf("histogram"), "-q", "--set", c.key, "--stats", traced, "--vcd", fst});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string a = stats_without_host(plain), b = stats_without_host(traced);
    EXPECT_GT(a.size(), 1000u);
    EXPECT_TRUE(a == b) << c.platform << " " << c.key << ": statistics differ with --vcd";
    std::filesystem::remove(plain);
    std::filesystem::remove(traced);
    std::filesystem::remove(fst);
  }
}

// Bits of Verilator's storage: CData..QData little-endian, wide values as
// 32-bit words, a field anywhere in them.
TEST(WavesRtl, ExtractsFieldsOfPackedValues) {
  const uint8_t q[8] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01};
  EXPECT_EQ(tessera::rtl::extract_bits(q, 8, 0, 64), 0x0123456789abcdefull);
  EXPECT_EQ(tessera::rtl::extract_bits(q, 8, 8, 8), 0xcdu);
  EXPECT_EQ(tessera::rtl::extract_bits(q, 8, 4, 12), 0xcdeu);
  EXPECT_EQ(tessera::rtl::extract_bits(q, 8, 60, 4), 0x0u);
  // 160 bits (VlWide<5>): word p holds port p's 32-bit header.
  uint8_t wide[20];
  for (unsigned i = 0; i < 20; ++i) wide[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(tessera::rtl::extract_bits(wide, 20, 32, 32), 0x07060504u);
  EXPECT_EQ(tessera::rtl::extract_bits(wide, 20, 128, 32), 0x13121110u);
  // 64 bits at an odd offset span nine bytes.
  EXPECT_EQ(tessera::rtl::extract_bits(wide, 20, 12, 64), 0x0807060504030201ull >> 4 | 0x9ull << 60);
}

}  // namespace
