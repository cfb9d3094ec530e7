// Plugins built outside Tessera's tree (docs/plugins.md): examples/plugin
// and the block it checks, copied to a directory outside the repository,
// configured with find_package(Tessera) against this build and built; its
// C++ component type runs in the chip, and its C++ reference of
// dma_scale_sum holds the RTL in lockstep: the shipped block passes, a
// planted bug is caught in the cycle of the bad write with a report and the
// block's waveform, a write the block never makes is caught at the end.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tessera_run.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::run_tessera;
using tessera::test::RunResult;

// The example plugin and dma_scale_sum in <scratch>/outside (their relative
// layout kept), configured and built once for the suite.
class Plugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("TESSERA_RTL_CACHE");  // the user's cache, shared with every build
    root_ = tessera::test::temp_path("outside");
    fs::remove_all(root_);
    fs::create_directories(root_ + "/examples/rtl");
    fs::copy(EXAMPLES_DIR + "/plugin", root_ + "/examples/plugin", fs::copy_options::recursive);
    fs::remove_all(root_ + "/examples/plugin/build");  // a build of the source tree's, if any
    fs::copy(EXAMPLES_DIR + "/rtl/dma_scale_sum", root_ + "/examples/rtl/dma_scale_sum", fs::copy_options::recursive);
    const std::string src = root_ + "/examples/plugin", build = src + "/build";
    log_ = tessera::test::command_output(std::string(CMAKE_COMMAND) + " -S " + src + " -B " + build +
                                         " -DTessera_DIR=" + TESSERA_BUILD_DIR + " 2>&1 && " +
                                         std::string(CMAKE_COMMAND) + " --build " + build + " 2>&1 && echo BUILT");
    plugin_ = build + "/libtessera_example_plugin.so";
  }
  void SetUp() override {
    ASSERT_NE(log_.find("BUILT"), std::string::npos) << log_;
    ASSERT_TRUE(fs::exists(plugin_)) << log_;
  }
  static std::string netlist() { return root_ + "/examples/plugin/chip_plugin.yaml"; }

  static std::string root_, log_, plugin_;
};
std::string Plugin::root_, Plugin::log_, Plugin::plugin_;

TEST_F(Plugin, ItsComponentTypeIsListedAndRunsInTheChip) {
  RunResult r = run_tessera({"netlist", "--types", "--plugin", plugin_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("adder_regs: registers A (0x0), B (0x4) and SUM = A + B (0x8)"), std::string::npos) << r.out;
  r = run_tessera({"netlist", "--types"});
  EXPECT_EQ(r.out.find("adder_regs"), std::string::npos);
  // The netlist's plugins: list loads it.
  r = run_tessera({"run", netlist(), FW_DIR + "/examples/adder_demo.elf"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("adder_demo: ok"), std::string::npos) << r.out;
}

TEST_F(Plugin, TheShippedBlockPassesLockstepWithItsReference) {
  const std::string waves = tessera::test::temp_path("lockstep-waves");
  const RunResult r =
      run_tessera({"run", netlist(), FW_DIR + "/examples/dma_demo.elf", "--set", "rtl.wave_dir=" + waves}, 300);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": ok"), std::string::npos) << r.out;
}

// A copy of the block with `edit` applied, in lockstep; returns the run.
RunResult run_mutant(const std::string& root, const std::string& name, const std::string& from, const std::string& to,
                     const std::string& waves) {
  const std::string dir = root + "/" + name;
  fs::create_directories(dir);
  std::string sv = tessera::test::read_file(root + "/examples/rtl/dma_scale_sum/dma_scale_sum.sv");
  const size_t at = sv.find(from);
  if (at == std::string::npos) return RunResult{};
  sv.replace(at, from.size(), to);
  std::ofstream(dir + "/dma_scale_sum.sv") << sv;
  std::string yaml = tessera::test::read_file(root + "/examples/plugin/chip_plugin.yaml");
  yaml = std::regex_replace(yaml, std::regex("\\.\\./rtl/dma_scale_sum/dma_scale_sum\\.sv"), dir + "/dma_scale_sum.sv");
  yaml = std::regex_replace(yaml, std::regex("plugins: \\[build/"), "plugins: [" + root + "/examples/plugin/build/");
  std::ofstream(dir + "/chip.yaml") << yaml;
  return run_tessera({"run", dir + "/chip.yaml", FW_DIR + "/examples/dma_demo.elf", "--set", "rtl.wave_dir=" + waves},
                     300);
}

TEST_F(Plugin, LockstepCatchesABadWriteInItsCycle) {
  // Word 10 of every chunk (beat 5, lanes 0-3) is one too large.
  const std::string waves = tessera::test::temp_path("mutant-waves");
  const RunResult r =
      run_mutant(root_, "off_by_one", "data[2*beat] * scale}", "data[2*beat] * scale + {31'b0, beat == 8'd5}}", waves);
  EXPECT_EQ(r.status, 8) << r.out << r.err;
  // acc0 writes 5 * 31 = 155 (0x9b) there, acc1 3 * 930 = 2790 (0x...e6):
  // whichever device writes its first chunk first is caught.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m,
                                std::regex("lockstep mismatch in (acc[01]) \\(dma_scale_sum\\) at cycle (\\d+): 1 of 1 "
                                           "outputs differ")))
      << r.err;
  const std::string device = m[1];
  EXPECT_NE(r.err.find("beat                5 (m_axi_wdata byte lane 0)"), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex(device == "acc0" ? "! byte at 0x[0-9a-f]+28  0x9b   0x9c"
                                                                   : "! byte at 0x[0-9a-f]+30  0xe6   0xe7")))
      << r.err;
  // The block's waveform up to that cycle; fst2vcd reads it.
  const std::string fst = waves + "/" + device + "-lockstep.fst";
  EXPECT_NE(r.err.find("RTL waveform of the last cycles: " + fst), std::string::npos) << r.err;
  const std::string vcd = tessera::test::command_output(std::string(FST2VCD) + " " + fst + " 2>&1");
  EXPECT_NE(vcd.find("m_axi_wdata"), std::string::npos) << vcd.substr(0, 2000);
}

TEST_F(Plugin, AWriteTheBlockNeverMakesIsCaughtAtTheEnd) {
  // The last beat of an odd chunk writes nothing (strobes 0x00 for 0x0F):
  // acc1's 77th word is never written.
  const RunResult r =
      run_mutant(root_, "dropped", "8'h0F : 8'hFF", "8'h00 : 8'hFF", tessera::test::temp_path("dropped-waves"));
  EXPECT_EQ(r.status, 8) << r.out << r.err;
  EXPECT_NE(r.err.find("lockstep mismatch in acc1 (dma_scale_sum) at the end of the run: 4 bytes the reference wrote "
                       "were never written by the block"),
            std::string::npos)
      << r.err;
}

TEST_F(Plugin, ALibraryThatIsNoPluginIsRefused) {
  const RunResult r =
      run_tessera({"run", "chip", FW_DIR + "/vecadd.elf", "--plugin", "/lib/x86_64-linux-gnu/libz.so.1"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("is not a Tessera plugin (it has no tessera_plugin_abi"), std::string::npos) << r.err;
  const RunResult missing = run_tessera({"run", "chip", FW_DIR + "/vecadd.elf", "--plugin", "/nowhere/lib.so"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--plugin: plugin '/nowhere/lib.so' is not a file"), std::string::npos) << missing.err;
}

TEST_F(Plugin, ANetlistWithoutItsPluginIsRefused) {
  std::string yaml = tessera::test::read_file(netlist());
  yaml = std::regex_replace(yaml, std::regex("plugins: .*\n"), "");
  const std::string path = root_ + "/examples/plugin/no_plugin.yaml";
  std::ofstream(path) << yaml;
  const RunResult r = run_tessera({"run", path, FW_DIR + "/examples/dma_demo.elf"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("unknown component type 'adder_regs'"), std::string::npos) << r.err;
}

}  // namespace
