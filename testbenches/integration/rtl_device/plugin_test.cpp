// Plugins built outside Tessera's tree (docs/plugins.md): examples/plugin
// and the block it checks, copied to a directory outside the repository,
// configured with find_package(Tessera) against this build and built; its
// C++ component type runs in the chip, and its C++ reference of
// dma_scale_sum holds the RTL in lockstep: the shipped block passes, a
// planted bug is caught in the cycle of the bad write with a report and the
// block's waveform, a write the block never makes is caught at the end.
// Its alternative shared-memory bank unit (the implementation user_bank)
// runs in lockstep with the SM's C++ model; a copy of the plugin with a bug
// planted in that unit is caught, naming the cycle.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

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

// Configures and builds the plugin in `src` against this build; ends with
// BUILT when it did. Through the compiler cache when there is one, with
// paths relative to the repository (as Tessera's own build), so that a
// fresh clone reuses what another clone compiled.
std::string build_plugin(const std::string& src, const std::string& build) {
  const std::string launcher =
      tessera::test::command_output("command -v ccache").empty() ? "" : " -DCMAKE_CXX_COMPILER_LAUNCHER=ccache";
  const std::string root = fs::path(EXAMPLES_DIR).parent_path().string();
  return tessera::test::command_output(std::string(CMAKE_COMMAND) + " -S " + src + " -B " + build +
                                       " -DTessera_DIR=" + TESSERA_BUILD_DIR + launcher +
                                       " 2>&1 && CCACHE_BASEDIR=" + root + " CCACHE_NOHASHDIR=1 " +
                                       std::string(CMAKE_COMMAND) + " --build " + build + " 2>&1 && echo BUILT");
}

// Writes `text` to `path` unless it already holds it: a file rewritten with
// the same bytes would still make the plugin's build redo its steps.
void write_if_changed(const fs::path& path, const std::string& text) {
  if (fs::exists(path) && tessera::test::read_file(path.string()) == text) return;
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Makes `to` a copy of the tree `from` (its build/ directory and the file
// `except` left out), touching only the files that differ.
void sync_tree(const fs::path& from, const fs::path& to, const std::string& except = "") {
  for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == "build") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().filename() != except)
      write_if_changed(to / fs::relative(it->path(), from), tessera::test::read_file(it->path().string()));
  }
}

// Holds an exclusive lock on `path` while it lives: the test processes,
// which ctest runs side by side, take turns on the shared plugin build.
class DirLock {
 public:
  explicit DirLock(const std::string& path) : fd_(open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~DirLock() {
    if (fd_ >= 0) close(fd_);
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_;
};

// The example plugin and dma_scale_sum in PLUGIN_WORK_DIR/outside (their
// relative layout kept), outside the source tree and configured with
// find_package(Tessera) against this build. Every test process (one per
// test under ctest) brings the copy up to date and builds it under a lock;
// the first builds it, the others find it built.
class Plugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("TESSERA_RTL_CACHE");  // the user's cache, shared with every build
    root_ = std::string(PLUGIN_WORK_DIR) + "/outside";
    fs::create_directories(root_);
    const DirLock lock(root_ + "/.lock");
    sync_tree(EXAMPLES_DIR + "/plugin", root_ + "/examples/plugin");
    sync_tree(EXAMPLES_DIR + "/rtl/dma_scale_sum", root_ + "/examples/rtl/dma_scale_sum");
    const std::string src = root_ + "/examples/plugin", build = src + "/build";
    log_ = build_plugin(src, build);
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
  write_if_changed(dir + "/dma_scale_sum.sv", sv);
  std::string yaml = tessera::test::read_file(root + "/examples/plugin/chip_plugin.yaml");
  yaml = std::regex_replace(yaml, std::regex("\\.\\./rtl/dma_scale_sum/dma_scale_sum\\.sv"), dir + "/dma_scale_sum.sv");
  yaml = std::regex_replace(yaml, std::regex("plugins: \\[build/"), "plugins: [" + root + "/examples/plugin/build/");
  write_if_changed(dir + "/chip.yaml", yaml);
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

TEST_F(Plugin, ItsBankUnitRunsInLockstepWithTheModel) {
  const RunResult r = run_tessera(
      {"run", "sm1", FW_DIR + "/histogram.elf", "--plugin", plugin_, "--set", "sm.shared_impl=lockstep:user_bank",
       "--set", "rtl.wave_dir=" + tessera::test::temp_path("user-bank-waves")},
      300);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS histogram"), std::string::npos) << r.out;
  // Without the plugin the name is unknown, and the error lists what is.
  const RunResult missing =
      run_tessera({"run", "sm1", FW_DIR + "/histogram.elf", "--set", "sm.shared_impl=lockstep:user_bank"});
  EXPECT_EQ(missing.status, 2) << missing.err;
  EXPECT_NE(missing.err.find("sm.shared_impl: no shared_bank_unit implementation is named 'user_bank'; registered: "
                             "shipped"),
            std::string::npos)
      << missing.err;
  // It was built for 64 KiB of shared memory only.
  const RunResult size = run_tessera({"run", "sm1", FW_DIR + "/histogram.elf", "--plugin", plugin_, "--set",
                                      "sm.shared_impl=rtl:user_bank", "--set", "sm.shared_bytes=98304"});
  EXPECT_EQ(size.status, 2) << size.err;
  EXPECT_NE(size.err.find("sm.shared_bytes: 98304 is not supported with sm.shared_impl=rtl:user_bank: the "
                          "shared_bank_unit implementation 'user_bank' is built for sm.shared_banks=32 "
                          "sm.shared_bytes=65536 sm.shared_atomic_cycles=2"),
            std::string::npos)
      << size.err;
}

TEST_F(Plugin, ABugPlantedInItsBankUnitIsCaughtInLockstep) {
  // A copy of the plugin whose bank unit adds one too many in atomic adds
  // (histogram's shared-memory bins). The add answers the right old value,
  // so the pins agree until a later request reads a bin back; the unit
  // declares its RAMs' write ports, and lockstep stops in the cycle of the
  // first bad write, naming the bank and word: the RTL writes one more
  // than the model, and no pin differs.
  const std::string src = root_ + "/bug_plugin", build = src + "/build";
  sync_tree(EXAMPLES_DIR + "/plugin", src, "user_bank_unit.sv");
  std::string sv = tessera::test::read_file(EXAMPLES_DIR + "/plugin/user_bank_unit.sv");
  const std::string from = "OpAdd: return old + v;";
  const size_t at = sv.find(from);
  ASSERT_NE(at, std::string::npos);
  sv.replace(at, from.size(), "OpAdd: return old + v + 32'd1;");
  write_if_changed(src + "/user_bank_unit.sv", sv);
  const std::string log = build_plugin(src, build);
  ASSERT_NE(log.find("BUILT"), std::string::npos) << log;
  const std::string waves = tessera::test::temp_path("user-bank-bug-waves");
  const RunResult r =
      run_tessera({"run", "sm1", FW_DIR + "/histogram.elf", "--plugin", build + "/libtessera_example_plugin.so",
                   "--set", "sm.shared_impl=lockstep:user_bank", "--set", "rtl.wave_dir=" + waves},
                  300);
  EXPECT_EQ(r.status, 8) << r.out << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m, std::regex("lockstep mismatch in ([a-z0-9_.]+[.]shared_banks) \\(shared_bank_unit\\) at cycle (\\d+)")))
      << r.err;
  ASSERT_TRUE(std::regex_search(
      r.err, m,
      std::regex(
          "! bank (\\d+) RAM \\(word at 0x([0-9a-f]+)\\) +row (\\d+) <- ([0-9a-f]{8}) +row \\3 <- ([0-9a-f]{8})")))
      << r.err;
  EXPECT_EQ(std::stoul(m[2], nullptr, 16) / 4, std::stoul(m[3]) * 32 + std::stoul(m[1])) << m[0];
  EXPECT_EQ(std::stoul(m[5], nullptr, 16), std::stoul(m[4], nullptr, 16) + 1) << m[0];
  EXPECT_EQ(r.err.find("! req_ready"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("! resp_"), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("serving\\.op +amoadd\\.w"))) << r.err;
  EXPECT_NE(r.err.find("RTL waveform of the last cycles: " + waves + "/"), std::string::npos) << r.err;
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
