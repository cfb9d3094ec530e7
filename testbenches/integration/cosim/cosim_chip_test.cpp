// Co-simulation in the whole chip, through the tessera binary: a lockstep
// run with an RTL block built with a known bug stops at the first
// difference with exit status 8, a report naming the cycle and the
// instance, and an FST waveform of the RTL's last cycles that gtkwave's
// fst2vcd reads; co-simulation keys with values or parameters the RTL was
// not built for are configuration errors (status 2) naming the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tessera_run.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;

std::string elf(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

// Runs a mutant of libtessera_rtl_mutants.so (a plugin of implementations
// with a known bug) in lockstep and checks the report and its waveform.
void expect_caught(const std::string& platform, const std::string& program, const std::string& impl_key,
                   const std::string& mutation, const std::string& instance_prefix) {
  const std::string dir = tessera::test::temp_path("waves_" + mutation);
  std::filesystem::remove_all(dir);
  const RunResult r = run_tessera(
      {"run", platform, elf(program), "-q", "--plugin", tessera::test::build_path("libtessera_rtl_mutants.so"), "--set",
       impl_key + "=lockstep:" + mutation, "--set", "rtl.wave_dir=" + dir, "--set", "rtl.wave_cycles=32"});
  EXPECT_EQ(r.status, 8) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m, std::regex("lockstep mismatch in (" + instance_prefix + "\\S*) \\((.*)\\) at cycle (\\d+)")))
      << r.err;
  EXPECT_GT(std::stoull(m[3]), 0u);
  std::smatch w;
  ASSERT_TRUE(std::regex_search(r.err, w, std::regex("RTL waveform of the last cycles: (\\S+\\.fst)"))) << r.err;
  const std::string wave = w[1];
  EXPECT_EQ(wave.rfind(dir, 0), 0u) << wave;
  ASSERT_TRUE(std::filesystem::exists(wave)) << wave;
  const std::string vcd = tessera::test::command_output(std::string(FST2VCD) + " " + wave + " 2>&1");
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos) << vcd.substr(0, 2000);
  EXPECT_NE(vcd.find("\n#"), std::string::npos) << "no time steps in the waveform";
  std::filesystem::remove_all(dir);
}

TEST(CosimMutation, LockstepCatchesSharedBanksWithoutBroadcast) {
  // sgemm's tiles are read by every thread of a row: broadcasts.
  expect_caught("chip", "sgemm", "sm.shared_impl", "shared_no_broadcast", "chip\\.sm");
}

TEST(CosimMutation, LockstepCatchesARouterReturningCreditsEarly) {
  expect_caught("chip_noc", "vecadd", "noc.router_impl", "router_early_credit", "chip\\.noc");
}

// A waveform directory the mismatch could not be written to is refused
// when the lockstep blocks are built, before the run: never a late error
// that would hide the mismatch (status 8).
TEST(CosimConfig, AWaveDirectoryThatCannotBeWrittenIsRefusedBeforeTheRun) {
  const std::string file = tessera::test::temp_path("not_a_directory");
  std::ofstream(file) << "a file\n";
  for (const auto& [platform, key] : {std::pair<std::string, std::string>{"chip", "sm.shared_impl"},
                                      std::pair<std::string, std::string>{"chip_noc", "noc.router_impl"}}) {
    const RunResult r = run_tessera(
        {"run", platform, elf("vecadd"), "-q", "--set", key + "=lockstep", "--set", "rtl.wave_dir=" + file + "/waves"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("rtl.wave_dir '" + file + "/waves': " + file + " is not a directory"), std::string::npos)
        << r.err;
  }
}

TEST(CosimConfig, UnknownImplIsAConfigurationErrorListingTheChoices) {
  const RunResult r = run_tessera({"run", "chip", elf("vecadd"), "-q", "--set", "sm.shared_impl=gates"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("sm.shared_impl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lockstep"), std::string::npos) << r.err;
}

TEST(CosimConfig, BankCountTheRtlWasNotBuiltWithIsAConfigurationError) {
  const RunResult r =
      run_tessera({"run", "chip", elf("vecadd"), "-q", "--set", "sm.shared_impl=rtl", "--set", "sm.shared_banks=16"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("sm.shared_banks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("32"), std::string::npos) << r.err;
}

TEST(CosimConfig, RouterAllocatorTheRtlDoesNotImplementIsAConfigurationError) {
  const RunResult r = run_tessera(
      {"run", "chip_noc", elf("vecadd"), "-q", "--set", "noc.router_impl=rtl", "--set", "noc.allocator=islip"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("noc.allocator"), std::string::npos) << r.err;
}

}  // namespace
