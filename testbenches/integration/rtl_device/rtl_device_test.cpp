// Users' RTL devices in the chip, through the tessera binary: the example
// of examples/rtl/dma_scale_sum (two DMA accelerators the control core
// programs, waits for in wfi and checks) on chip and chip_noc, with the
// device statistics derived by hand; the library cache; the devices' AXI
// channels in the chip's waveform; and the blocks and netlists Tessera
// must refuse (status 2, the pin or key named) or stop (status 3).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tessera_run.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::run_tessera;
using tessera::test::RunResult;

const std::string kDemo = FW_DIR + "/examples/dma_demo.elf";

// The tests use the user's cache (~/.cache/tessera/rtl-devices), as
// tessera run does: the first run of a block builds it, the others load it
// (concurrent runs take turns on its lock), in this build and in others.
class RtlDevice : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("TESSERA_RTL_CACHE"); }
};

std::map<std::string, uint64_t> device_stats(const std::string& json_path, const std::string& device) {
  std::ifstream in(json_path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::map<std::string, uint64_t> out;
  for (const auto& [key, value] : j.at("chip").at(device).items())
    if (value.is_number_unsigned()) out[key] = value.get<uint64_t>();
  return out;
}

// The counts of each device, by hand from dma_scale_sum.sv and dma_demo.c.
// A chunk is at most 2 * MAX_BEATS = 32 words (128 bytes); a burst moves a
// chunk in ceil(words / 2) beats of 8 bytes, reading whole beats and
// writing only the chunk's words (the last beat of an odd chunk has strobes
// 0x0F).
// acc0: 1000 words of a 128-byte-aligned buffer: 31 chunks of 32 words and
//   one of 8: 32 bursts each way, 31 * 16 + 4 = 500 beats, 4000 bytes, and
//   each burst one 128-byte line (32 line requests each way).
// acc1: 77 words 8 bytes into a line: chunks of 32, 32 and 13 words, 3
//   bursts, 16 + 16 + 7 = 39 beats; reads 39 * 8 = 312 bytes and writes
//   77 * 4 = 308. Bytes [8, 136) touch 2 lines, [136, 264) 2, and
//   [264, 320) (read) or [264, 316) (written) 1: 5 line requests each way.
// Registers: 5 writes to start and 1 to clear done; reads: ID, the status
//   polls the program prints, STATUS and SUM in its check.
void expect_demo_statistics(const RunResult& r, const std::string& stats_path) {
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("status polls (\\d+) and (\\d+): ok"))) << r.out << r.err;
  const uint64_t polls[2] = {std::stoull(m[1]), std::stoull(m[2])};
  struct Want {
    uint64_t bursts, beats, read_bytes, write_bytes, requests;
  };
  const Want want[2] = {{32, 500, 4000, 4000, 32}, {3, 39, 312, 308, 5}};
  for (int d = 0; d < 2; ++d) {
    SCOPED_TRACE("acc" + std::to_string(d));
    auto s = device_stats(stats_path, "acc" + std::to_string(d));
    EXPECT_EQ(s["read_bursts"], want[d].bursts);
    EXPECT_EQ(s["write_bursts"], want[d].bursts);
    EXPECT_EQ(s["read_beats"], want[d].beats);
    EXPECT_EQ(s["write_beats"], want[d].beats);
    EXPECT_EQ(s["read_bytes"], want[d].read_bytes);
    EXPECT_EQ(s["write_bytes"], want[d].write_bytes);
    EXPECT_EQ(s["read_requests"], want[d].requests);
    EXPECT_EQ(s["write_requests"], want[d].requests);
    EXPECT_EQ(s["reg_writes"], 6u);
    EXPECT_EQ(s["reg_reads"], 3 + polls[d]);
    EXPECT_EQ(s["reg_errors"], 0u);
    EXPECT_EQ(s["interrupts"], 1u);
    // Stepped while it works, not in the idle cycles before the start and after the end.
    EXPECT_GT(s["cycles"], s["read_latency_cycles"] / want[d].bursts);
  }
}

TEST_F(RtlDevice, TwoAcceleratorsOnTheCrossbar) {
  const std::string stats = tessera::test::temp_path("dma_chip.json");
  const RunResult r = run_tessera({"run", EXAMPLE_DIR + "/chip_dma.yaml", kDemo, "--stats", stats}, 300);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expect_demo_statistics(r, stats);
  EXPECT_NE(r.err.find("rtl device acc0"), std::string::npos) << r.err;
}

TEST_F(RtlDevice, TwoAcceleratorsOnTheNetwork) {
  const std::string stats = tessera::test::temp_path("dma_noc.json");
  const RunResult r = run_tessera({"run", EXAMPLE_DIR + "/chip_noc_dma.yaml", kDemo, "--stats", stats}, 300);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expect_demo_statistics(r, stats);
}

// Kernels program the devices (dma_kernel_demo.c: block b's thread 0
// drives device b through sms.mmio, polling STATUS): each device moves 600
// words of a 4 KiB-aligned buffer, 18 chunks of 32 and one of 24, so 19
// bursts each way, 18 * 16 + 12 = 300 beats, 2400 bytes, one line request a
// burst; 5 register writes to start and 1 to clear done; the reads are ID,
// the polls the program prints, and SUM; no interrupt (not enabled).
TEST_F(RtlDevice, KernelsProgramTheDevices) {
  for (const std::string netlist : {"chip_dma.yaml", "chip_noc_dma.yaml"}) {
    SCOPED_TRACE(netlist);
    const std::string stats = tessera::test::temp_path("dma_kernel_" + netlist + ".json");
    const RunResult r = run_tessera(
        {"run", EXAMPLE_DIR + "/" + netlist, FW_DIR + "/examples/dma_kernel_demo.elf", "--stats", stats}, 300);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("600 words each, status polls (\\d+) and (\\d+): ok"))) << r.out;
    for (int d = 0; d < 2; ++d) {
      SCOPED_TRACE("acc" + std::to_string(d));
      auto s = device_stats(stats, "acc" + std::to_string(d));
      for (const char* k : {"read_bursts", "write_bursts", "read_requests", "write_requests"})
        EXPECT_EQ(s[k], 19u) << k;
      EXPECT_EQ(s["read_beats"], 300u);
      EXPECT_EQ(s["write_beats"], 300u);
      EXPECT_EQ(s["read_bytes"], 2400u);
      EXPECT_EQ(s["write_bytes"], 2400u);
      EXPECT_EQ(s["reg_writes"], 6u);
      EXPECT_EQ(s["reg_reads"], 2 + std::stoull(m[1 + d]));
      EXPECT_EQ(s["interrupts"], 0u);
    }
  }
}

// What a kernel may not do to a device register: a run stops (status 3)
// naming the access, the pc and the thread.
TEST_F(RtlDevice, AKernelsBadDeviceAccessStopsTheRun) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"amo", "device register access at 0x10010000 (amoadd.w"},
      {"byte", "device register access at 0x1001001c (lbu"},
      {"unbound", "load access fault at unmapped address 0x10013000"},
      {"mixed", "the lanes of one instruction access both device registers and memory"},
      {"slverr", "device register access at 0x10010040 (lw\ta4,64(a5)) answered with an error (SLVERR or DECERR)"},
  };
  for (const auto& [which, message] : cases) {
    SCOPED_TRACE(which);
    const RunResult r = run_tessera({"run", EXAMPLE_DIR + "/chip_dma.yaml", KERNEL_ACCESS_ELF, "-q", "--", which});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("kernel_device_access.c:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("thread (0,0,0) lane 0"), std::string::npos) << r.err;
  }
  // Without sms.mmio, a kernel reaches no device: MMIO is unmapped for it.
  const RunResult plain = run_tessera({"run", "chip", KERNEL_ACCESS_ELF, "-q", "--", "byte"});
  EXPECT_EQ(plain.status, 3) << plain.err;
  EXPECT_NE(plain.err.find("unmapped address 0x1001001c"), std::string::npos) << plain.err;
}

// The devices' cover points (--rtl-coverage), summed over acc0 and acc1
// and derived by hand as above: bursts of 16 beats (5-16) but acc0's last
// (4 beats: 2-4) and acc1's last (7 beats: 5-16), so 34 and 1 each way;
// one partial strobe (acc1's odd chunk, which is also dma_scale_sum.sv's
// own point odd_chunk); 12 register writes; the reads of both devices; one
// interrupt each; nothing refused, narrow, or cut at 4 KiB (the demo's
// chunks never reach a 4 KiB boundary before their 32 words). Runs on the
// crossbar and on the network merge into twice the counts.
TEST_F(RtlDevice, ItsCoverPointsAreCountedAndMerged) {
  const std::string xbar = tessera::test::temp_path("dma_cov_chip.json");
  const std::string noc = tessera::test::temp_path("dma_cov_noc.json");
  const std::string both = tessera::test::temp_path("dma_cov_both.json");
  const RunResult a = run_tessera({"run", EXAMPLE_DIR + "/chip_dma.yaml", kDemo, "--rtl-coverage", xbar}, 300);
  ASSERT_EQ(a.status, 0) << a.out << a.err;
  const RunResult b = run_tessera({"run", EXAMPLE_DIR + "/chip_noc_dma.yaml", kDemo, "--rtl-coverage", noc}, 300);
  ASSERT_EQ(b.status, 0) << b.out << b.err;
  const RunResult m = run_tessera({"rtl-coverage", "merge", both, xbar, noc});
  ASSERT_EQ(m.status, 0) << m.out << m.err;
  const auto polls = [](const RunResult& r) {
    std::smatch p;
    EXPECT_TRUE(std::regex_search(r.out, p, std::regex("status polls (\\d+) and (\\d+): ok"))) << r.out;
    return p.empty() ? 0 : std::stoull(p[1]) + std::stoull(p[2]);
  };
  const uint64_t reads[2] = {6 + polls(a), 6 + polls(b)};
  const std::string block = "rtl_device:dma_scale_sum(MAX_BEATS=16)";
  const std::map<std::string, uint64_t> each = {
      {"regs.write", 12},
      {"regs.error", 0},
      {"read.burst.1", 0},
      {"read.burst.2-4", 1},
      {"read.burst.5-16", 34},
      {"read.burst.17-256", 0},
      {"read.narrow", 0},
      {"write.burst.2-4", 1},
      {"write.burst.5-16", 34},
      {"write.narrow", 0},
      {"write.partial_strobe", 1},
      {"irq[0].rise", 2},
      {"cover.dma_scale_sum.odd_chunk", 1},
      {"cover.dma_scale_sum.cut_at_4k", 0},
      {"cover.dma_scale_sum.refused_start", 0},
  };
  for (const auto& [path, runs] : std::vector<std::pair<std::string, uint64_t>>{{xbar, 1}, {noc, 1}, {both, 2}}) {
    SCOPED_TRACE(path);
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("runs"), runs);
    const nlohmann::json& blk = j.at("blocks").at(block);
    EXPECT_EQ(blk.at("instances"), 2 * runs);
    // 22 AXI points (the block has every interface and busy), 1 interrupt
    // line, and the block's 3 own.
    EXPECT_EQ(blk.at("declared"), 26u);
    for (const auto& [point, hits] : each) EXPECT_EQ(blk.at("points").at(point), hits * runs) << point;
    const uint64_t want_reads = path == xbar ? reads[0] : path == noc ? reads[1] : reads[0] + reads[1];
    EXPECT_EQ(blk.at("points").at("regs.read"), want_reads);
  }
  EXPECT_NE(m.out.find(block + ": "), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("cover.dma_scale_sum.cut_at_4k"), std::string::npos) << m.out;  // listed unreached
}

// A block is verilated once per sources, top and parameters: two instances
// share one build, a second run loads it, another parameter builds anew.
TEST_F(RtlDevice, TheLibraryIsBuiltOnceAndThenLoaded) {
  const std::string cache = tessera::test::temp_path("device-cache");
  fs::remove_all(cache);
  setenv("TESSERA_RTL_CACHE", cache.c_str(), 1);
  const std::regex building("building RTL device 'dma_scale_sum'");
  const auto builds = [&](const RunResult& r) {
    return std::distance(std::sregex_iterator(r.err.begin(), r.err.end(), building), std::sregex_iterator());
  };
  RunResult r = run_tessera({"run", EXAMPLE_DIR + "/chip_dma.yaml", kDemo}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(builds(r), 1) << r.err;
  EXPECT_NE(r.err.find("built RTL device 'dma_scale_sum' in"), std::string::npos) << r.err;
  r = run_tessera({"run", EXAMPLE_DIR + "/chip_dma.yaml", kDemo}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(builds(r), 0) << r.err;

  // MAX_BEATS 8: chunks of 16 words, acc0's 1000 words in 63 bursts.
  std::string yaml = tessera::test::read_file(EXAMPLE_DIR + "/chip_dma.yaml");
  for (size_t at; (at = yaml.find("MAX_BEATS: 16")) != std::string::npos;) yaml.replace(at, 13, "MAX_BEATS: 8");
  yaml = std::regex_replace(yaml, std::regex("dma_scale_sum\\.sv"), EXAMPLE_DIR + "/dma_scale_sum.sv");
  const std::string netlist = tessera::test::temp_path("chip_dma8.yaml"), stats = tessera::test::temp_path("d8.json");
  std::ofstream(netlist) << yaml;
  r = run_tessera({"run", netlist, kDemo, "--stats", stats}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(builds(r), 1) << r.err;
  EXPECT_EQ(device_stats(stats, "acc0")["read_bursts"], 63u);
  EXPECT_EQ(device_stats(stats, "acc0")["read_beats"], 500u);
  fs::remove_all(cache);
}

TEST_F(RtlDevice, ItsChannelsAreInTheChipsWaveform) {
  const std::string fst = tessera::test::temp_path("dma.fst");
  const RunResult r =
      run_tessera({"run", EXAMPLE_DIR + "/chip_dma.yaml", kDemo, "--vcd", fst, "--trace-scope", "chip.acc1*"}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string vcd = tessera::test::command_output(std::string(FST2VCD) + " " + fst + " 2>&1");
  for (const char* scope : {"$scope module acc1 $end", "$scope module m_axi $end", "$scope module s_axil $end"})
    EXPECT_NE(vcd.find(scope), std::string::npos) << scope;
  // acc1's three read bursts: m_axi.arvalid rises three times.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(vcd, m, std::regex("\\$scope module m_axi \\$end\\s+\\$var wire 1 (\\S+) arvalid")))
      << vcd.substr(0, 3000);
  const std::string rise = "1" + std::string(m[1]);
  std::istringstream lines(vcd);
  int rises = 0;
  for (std::string line; std::getline(lines, line);) rises += line == rise;
  EXPECT_EQ(rises, 3);
}

// A netlist with one device of `top` from `sources` (block files) at the
// chip's crossbar and the cluster's MMIO.
std::string one_device_netlist(const std::string& name, const std::string& device_yaml,
                               const std::vector<std::string>& bindings) {
  std::string yaml = "platform: " + name +
                     "\ncluster:\n  cores: 2\ninstances:\n  l2: {type: l2}\n  xbar: {type: crossbar}\n"
                     "  memory: {type: fixed_memory}\n  sms: {type: sm_cluster}\n  dispatcher: {type: dispatcher}\n"
                     "  cluster: {type: control_cluster}\n  mmio: {type: mmio}\n" +
                     device_yaml +
                     "bindings:\n  - sms.mem -> xbar.sm\n  - xbar.out -> l2.sm\n  - l2.mem -> memory.port\n"
                     "  - dispatcher.sms -> sms.launch\n  - dispatcher.irq -> cluster.irq\n"
                     "  - cluster.mmio -> mmio.regs\n  - mmio.dispatcher -> dispatcher.regs\n";
  for (const std::string& b : bindings) yaml += "  - " + b + "\n";
  const std::string path = tessera::test::temp_path(name + ".yaml");
  std::ofstream(path) << yaml;
  return path;
}

TEST_F(RtlDevice, APinOfTheWrongWidthIsRefusedWithItsName) {
  const std::string netlist = one_device_netlist(
      "narrow",
      "  dev: {type: rtl_device, sources: [" + BLOCKS_DIR + "/narrow_wdata.sv], top: narrow_wdata, base: 0x10010000}\n",
      {"cluster.mmio -> dev.regs"});
  const RunResult r = run_tessera({"run", netlist, kDemo});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("instance 'dev': top 'narrow_wdata': pin 's_axil_wdata' is [15:0], 16 bits"), std::string::npos)
      << r.err;
}

TEST_F(RtlDevice, BadNetlistsAreRefusedNamingWhatIsWrong) {
  const std::string block = BLOCKS_DIR + "/silent_slave.sv";
  struct Case {
    std::string device, expect;
    std::vector<std::string> bindings;
  };
  const Case cases[] = {
      {"  dev: {type: rtl_device, sources: [nowhere.sv], top: x, base: 0x10010000}\n",
       "instance 'dev': sources: cannot read",
       {"cluster.mmio -> dev.regs"}},
      {"  dev: {type: rtl_device, sources: " + block + ", top: silent_slave}\n",
       "'sources' of a rtl_device must be a list ([a, b])",
       {"cluster.mmio -> dev.regs"}},
      {"  dev: {type: rtl_device, sources: [" + block + "], top: silent_slave}\n",
       "needs base: (its register window's address in the MMIO region)",
       {"cluster.mmio -> dev.regs"}},
      {"  dev: {type: rtl_device, sources: [" + block + "], top: silent_slave, base: 0x10000800}\n",
       "overlaps instance 'mmio'",
       {"cluster.mmio -> dev.regs"}},
      {"  dev: {type: rtl_device, sources: [" + block + "], top: silent_slave, base: 0x10010000}\n",
       "socket 'irq' is bound but top 'silent_slave' has no output irq",
       {"cluster.mmio -> dev.regs", "dev.irq -> cluster.irq"}},
      {"  dev: {type: rtl_device, sources: [" + block + "], top: no_such_top, base: 0x10010000}\n",
       "Verilator refused top 'no_such_top'",
       {"cluster.mmio -> dev.regs"}},
      {"  dev: {type: rtl_device, sources: [" + block + "], top: silent_slave, base: 0x10010000, clock: fast}\n",
       "clock 'fast' is not cpu, sm or a frequency in MHz",
       {"cluster.mmio -> dev.regs"}},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expect);
    const RunResult r =
        run_tessera({"run", one_device_netlist("bad" + std::to_string(n++), c.device, c.bindings), kDemo});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

TEST_F(RtlDevice, ARegisterAccessThatIsNeverAnsweredStopsTheRun) {
  const std::string netlist = one_device_netlist(
      "silent",
      "  dev: {type: rtl_device, sources: [" + BLOCKS_DIR +
          "/silent_slave.sv], top: silent_slave, base: 0x10010000, params: {rtl_device.reg_timeout: 50}}\n",
      {"cluster.mmio -> dev.regs"});
  // dma_demo's first access reads acc0's ID register (offset 0x1c).
  const RunResult r = run_tessera({"run", netlist, kDemo});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("dev (RTL device 'silent_slave')"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a register read at offset 0x1c got no R response in 50 cycles (rtl_device.reg_timeout)"),
            std::string::npos)
      << r.err;
}

TEST_F(RtlDevice, BurstsOutsideMemoryOrAcross4KiBStopTheRun) {
  const std::string block = BLOCKS_DIR + "/lone_burst.sv";
  const struct {
    std::string params, expect;
  } cases[] = {
      {"{ADDR: \"32'h00000100\"}", "read (m_axi_ar*) burst [0x100, 0x107] is outside global memory"},
      {"{ADDR: \"32'h80000ff0\", LEN: 3}", "read (m_axi_ar*) burst [0x80000ff0, 0x8000100f] crosses a 4 KiB boundary"},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expect);
    const std::string netlist = one_device_netlist(
        "burst" + std::to_string(n++),
        "  dev: {type: rtl_device, sources: [" + block + "], top: lone_burst, parameters: " + c.params + "}\n",
        {"dev.mem -> xbar.sm"});
    const RunResult r = run_tessera({"run", netlist, FW_DIR + "/vecadd.elf"}, 300);
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

}  // namespace
