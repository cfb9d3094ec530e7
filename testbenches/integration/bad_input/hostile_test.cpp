// Hostile input: what a user (or firmware) trying to break the simulator
// does, each a regression test of a defect that once got through. The real
// binary runs as a subprocess; every case must end with a clear message, the
// documented status (docs/firmware-abi.md) and no signal, hang or damage.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "integration/bad_input/bad_input_util.h"

namespace {

using namespace tessera::test::bad_input;
namespace fs = std::filesystem;

std::string hostile(const std::string& name) { return elf("hostile_" + name); }

// A fresh directory of the test's own, empty.
std::string scratch_dir(const std::string& name) {
  const fs::path dir = fs::path(BAD_INPUT_DIR) / ("scratch_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// ---------------------------------------------------------------- shell injection

TEST(Hostile, PlotPathIsNeverGivenToAShell) {
  const std::string dir = scratch_dir("plot");
  // Closing the quote the path used to be wrapped in, then a command that
  // would create INJECTED in the working directory.
  const fs::path marker = fs::current_path() / "INJECTED";
  fs::remove(marker);
  const std::string plot = dir + "/a.png' ; touch INJECTED ; echo '";
  const RunResult r = run_tessera({"noc", "--topology", "mesh", "--k", "4", "--cycles", "1000", "--sweep",
                                   "0.1:0.1:0.1", "--csv", dir + "/c.csv", "--plot", plot});
  EXPECT_FALSE(r.timed_out) << r;
  EXPECT_EQ(r.signal, 0) << r;
  EXPECT_FALSE(fs::exists(marker)) << "a command in the --plot path ran:\n" << r;
  // The plotter saw the whole string as one file name (and refused its
  // extension), so the run failed rather than succeeding with a side effect.
  EXPECT_NE(r.status, 0) << r;
  expect_contains(r, "plotting failed");
}

// ---------------------------------------------------------------- launches that overflow

TEST(Hostile, GridWhoseBlockCountWrapsIsABadLaunch) {
  const RunResult r = run_tessera({"run", "sm1", hostile("grid_overflow"), "-q"});
  expect_clean_exit(r, 4);
  expect_contains(r, "bad kernel launch");
  expect_contains(r, "grid (2147483648,2147483648,4)");
  expect_not_contains(r, "survived");
}

TEST(Hostile, BlockWhoseThreadCountWrapsIsABadLaunch) {
  const RunResult r = run_tessera({"run", "sm1", hostile("block_overflow"), "-q"});
  expect_clean_exit(r, 4);
  expect_contains(r, "block (2147483648,2147483648,4) has more than 2^64 threads");
  expect_contains(r, "sm.max_threads_per_block=1024");
  expect_not_contains(r, "survived");
}

// ---------------------------------------------------------------- netlists

TEST(Hostile, AliasBombNetlistIsRefusedQuickly) {
  std::string yaml = "platform: bomb\nl0: &l0 {a: 1, b: 2}\n";
  for (int i = 1; i <= 24; ++i)
    yaml += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " {x: *l" + std::to_string(i - 1) + ", y: *l" +
            std::to_string(i - 1) + "}\n";
  const std::string path = write_text("bomb.yaml", yaml);
  const RunResult r = run_tessera({"run", path, elf("ok"), "-q"});
  expect_clean_exit(r, 2);
  expect_contains(r, path);
  expect_contains(r, "more than 100000 nodes");
  EXPECT_LT(r.seconds, 5.0) << r;
}

TEST(Hostile, NonScalarPlatformNameIsAConfigErrorWithFileAndLine) {
  const std::string path = write_text("map_name.yaml", "gpu:\n  num_sms: 1\nplatform: [a, b]\n");
  const RunResult r = run_tessera({"run", path, elf("ok"), "-q"});
  expect_clean_exit(r, 2);
  expect_contains(r, path + ":3");
  expect_contains(r, "'platform' must be a text value");
  expect_not_contains(r, "uncaught");
}

TEST(Hostile, OctalLookingNumberIsRefused) {
  const std::string path = write_text("octal.yaml", "platform: octal\ngpu:\n  num_sms: 010\n");
  const RunResult r = run_tessera({"run", path, elf("ok"), "-q"});
  expect_clean_exit(r, 2);
  expect_contains(r, "gpu.num_sms: '010' is not an integer");
}

TEST(Hostile, DuplicateKeyAndSecondDocumentAreRefused) {
  const std::string dup = write_text("dup.yaml", "platform: dup\ngpu:\n  num_sms: 1\n  num_sms: 8\n");
  RunResult r = run_tessera({"run", dup, elf("ok"), "-q"});
  expect_clean_exit(r, 2);
  expect_contains(r, dup + ":4: duplicate key 'num_sms'");
  const std::string docs = write_text("docs.yaml", "platform: a\n---\nplatform: b\n");
  r = run_tessera({"run", docs, elf("ok"), "-q"});
  expect_clean_exit(r, 2);
  expect_contains(r, docs + ":2: a second YAML document");  // the "---"
}

// ---------------------------------------------------------------- numbers on the command line

TEST(Hostile, NegativeNumbersForUnsignedOptionsAreRefused) {
  const std::vector<std::vector<std::string>> cases{
      {"dram", "--requests", "-5"},
      {"coherence-test", "--ops", "-1"},
      {"coherence-test", "--litmus", "sb", "--iterations", "-1"},
      {"run", "sm1", elf("ok"), "--max-cycles", "-1"},
      {"dram", "--seed", "18446744073709551616"},
      {"coherence-test", "--seed", "-3"},
  };
  for (const auto& args : cases) {
    const RunResult r = run_tessera(args);
    expect_clean_exit(r, 2);
    expect_contains(r, "is not a whole number in [");
  }
}

TEST(Hostile, SweepRangeMustBeFiniteAndBounded) {
  for (const char* sweep : {"nan:nan:nan", "0:1:1e-300", "inf:1:0.1", "0.1:0.2:-0.1", "0.5:0.1:0.1"}) {
    const RunResult r = run_tessera({"noc", "--sweep", sweep});
    expect_clean_exit(r, 2);
    expect_contains(r, std::string("--sweep '") + sweep + "'");
    expect_not_contains(r, "loads from");
  }
}

// ---------------------------------------------------------------- outputs

TEST(Hostile, StatsWriteFailureIsReportedWithStatus7AndKeepsTheResult) {
  const RunResult r = run_tessera({"run", "sm1", elf("ok"), "--stats", "/dev/full"});
  expect_clean_exit(r, 7);
  expect_contains(r, "--stats: writing '/dev/full' failed: No space left on device");
  expect_contains(r, "program exited with status 0");  // the summary is still printed
  const RunResult vcd = run_tessera({"run", "sm1", elf("ok"), "--vcd", "/dev/full", "-q"});
  expect_clean_exit(vcd, 7);
  expect_contains(vcd, "--vcd: writing '/dev/full' failed");
}

TEST(Hostile, OutputMayNotOverwriteAnInput) {
  const std::string dir = scratch_dir("outputs");
  const std::string copy = dir + "/ok.elf";
  fs::copy_file(elf("ok"), copy);
  const auto size = fs::file_size(copy);
  for (const char* option : {"--stats", "--vcd"}) {
    const RunResult r = run_tessera({"run", "sm1", copy, option, copy, "-q"});
    expect_clean_exit(r, 2);
    expect_contains(r, std::string(option) + " '" + copy + "' is the input file");
    EXPECT_EQ(fs::file_size(copy), size) << option;
  }
  const std::string platform = dir + "/plat.yaml";
  fs::copy_file(std::string(TESSERA_SOURCE_PLATFORMS) + "/sm1.yaml", platform);
  const RunResult r = run_tessera({"run", platform, elf("ok"), "--stats", platform, "-q"});
  expect_clean_exit(r, 2);
  expect_contains(r, "is the input file");
}

// A run refused after its outputs were named leaves the files that were
// there as they were (outputs are staged beside them and put in place only
// at the end); one path for two outputs, or an input named as an output, is
// refused; a new output gets the permissions the umask gives.
TEST(Hostile, RefusedRunsLeaveExistingOutputsAsTheyWere) {
  const std::string dir = scratch_dir("kept");
  auto keep = [&](const std::string& name) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << "precious\n";
    return path;
  };
  auto contents = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string stats = keep("keep.json"), vcd = keep("keep.vcd"), timeline = keep("keep.timeline.json"),
                    ckpt = keep("keep.ckpt");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c :
       {Case{{"--stats", stats, "--set", "sm.scheduler=bogus"}, "sm.scheduler"},
        Case{{"--vcd", vcd, "--trace-scope", "nosuch"}, "nosuch"},
        Case{{"--timeline", timeline, "--set", "sm.scheduler=bogus"}, "sm.scheduler"},
        Case{{"--stats", ckpt, "--restore", ckpt}, "--stats '" + ckpt + "' is the input file"},
        Case{{"--stats", stats, "--timeline", stats}, "--timeline '" + stats + "' is also the run's --stats file"}}) {
    std::vector<std::string> args{"run", "chip", elf("ok"), "-q"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const RunResult r = run_tessera(args);
    expect_clean_exit(r, 2);
    expect_contains(r, c.message);
  }
  for (const std::string& path : {stats, vcd, timeline, ckpt}) EXPECT_EQ(contents(path), "precious\n") << path;
  // Nothing else was left behind: no staging file.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 4);

  // A run that succeeds replaces the file; a new one is 0666 less the umask.
  const std::string fresh = dir + "/fresh.json";
  const RunResult r = run_tessera({"run", "chip", elf("ok"), "-q", "--stats", stats, "--vcd", fresh});
  expect_clean_exit(r, 0);
  EXPECT_EQ(contents(stats).rfind("{", 0), 0u) << contents(stats);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(static_cast<mode_t>(fs::status(fresh).permissions()), 0666 & ~mask);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 5);
}

TEST(Hostile, CoherenceTestOutputsAreCheckedBeforeTheRun) {
  // 10^12 operations would run for days: the bad path must be found first.
  for (const char* option : {"--json", "--stats"}) {
    const RunResult r = run_tessera({"coherence-test", "--ops", "1000000000000", option, "/nonexistent-dir/o.json"});
    expect_clean_exit(r, 2);
    expect_contains(r, std::string(option) + ": cannot write '/nonexistent-dir/o.json'");
    EXPECT_LT(r.seconds, 5.0) << r;
  }
}

TEST(Hostile, NocOutputsAreCheckedBeforeTheSweep) {
  const RunResult r = run_tessera({"noc", "--k", "8", "--sweep", "0.01:0.5:0.01", "--csv", "/nonexistent-dir/c.csv"});
  expect_clean_exit(r, 2);
  expect_contains(r, "--csv: cannot write '/nonexistent-dir/c.csv'");
  expect_not_contains(r, "[1/");
}

// ---------------------------------------------------------------- the bus watchdog

TEST(Hostile, ShortestBusWatchdogIsNoFalseDeadlockOnTheCoherenceTester) {
  const RunResult r = run_tessera({"coherence-test", "--ops", "20000", "-q", "--set", "cluster.deadlock_cycles=100",
                                   "--set", "coherence_test.memory_latency=10000"});
  expect_clean_exit(r, 0);
  expect_not_contains(r, "deadlock");
}

// ---------------------------------------------------------------- stacks

TEST(Hostile, ControlCoreStackOverflowHitsItsGuard) {
  const RunResult r = run_tessera({"run", "sm1", hostile("host_stack_overflow"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "cluster.core0: stack overflow");
  expect_contains(r, "control core 0's stack [0x83ff0000, 0x84000000), 65536 bytes (__stack_size");
  expect_not_contains(r, "survived");
}

TEST(Hostile, SecondaryCoreStackOverflowHitsItsGuard) {
  const RunResult r = run_tessera({"run", "chip", hostile("hart_stack_overflow"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "cluster.core1: stack overflow");
  expect_contains(r, "control core 1's stack [0x83fec000, 0x83ff0000), 16384 bytes (__hart_stack_size");
  expect_not_contains(r, "survived");
}

TEST(Hostile, KernelStackOverflowNamesLocalBytes) {
  const RunResult r = run_tessera({"run", "sm1", hostile("kernel_stack_overflow"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "stack overflow");
  expect_contains(r, "below the thread's local memory [0x30000000, 0x30001000)");
  expect_contains(r, "sm.local_bytes = 4096");
  expect_contains(r, "thread (0,0,0)");
}

// A frame larger than the guard below the local window: sp itself is far
// below, in the shared window's address range, and the report still says
// stack overflow rather than shared memory.
TEST(Hostile, KernelFrameLargerThanTheGuardIsAStackOverflow) {
  const RunResult r = run_tessera({"run", "sm1", hostile("kernel_big_frame"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "stack overflow");
  expect_contains(r, "sm.local_bytes = 4096");
  expect_not_contains(r, "shared-memory window");
}

// ---------------------------------------------------------------- livelock

TEST(Hostile, HostSpinningForeverStopsAsLivelockByDefault) {
  const RunResult r = run_tessera({"run", "sm1", hostile("host_spin"), "-q"});
  expect_clean_exit(r, 5);
  expect_contains(r,
                  "livelock: no instruction changed memory, wrote an MMIO register or computed a new value on a "
                  "control core for 10000000 SM cycles (watchdog.cycles)");
  expect_contains(r, "cluster.core0: ");  // the state dump
  expect_not_contains(r, "survived");
}

TEST(Hostile, KernelSpinningOnAHeldLockStopsAsLivelock) {
  const RunResult r = run_tessera({"run", "chip", hostile("kernel_spin"), "-q", "--set", "watchdog.cycles=200000"});
  expect_clean_exit(r, 5);
  expect_contains(r, "for 200000 SM cycles (watchdog.cycles)");
  expect_contains(r, "sm0 warp slot  0: block (0,0,0)");  // every warp's state
  expect_not_contains(r, "survived");
}

TEST(Hostile, WatchdogCanBeTurnedOff) {
  const RunResult r =
      run_tessera({"run", "sm1", hostile("host_spin"), "-q", "--set", "watchdog.cycles=0", "--max-cycles", "20000000"});
  expect_clean_exit(r, 6);
  expect_not_contains(r, "livelock");
}

TEST(Hostile, ARunStopsAtItsOwnHostTimeout) {
  // Spinning forever with the watchdog off: only the run's own limit ends it
  // (a sweep's run whose driver is gone).
  const RunResult r = run_tessera({"run", "sm1", hostile("host_spin"), "-q", "--set", "watchdog.cycles=0",
                                   "--host-timeout", "0.5", "--stats", scratch_dir("host_timeout") + "/s.json"});
  expect_clean_exit(r, 11);
  expect_contains(r, "the run reached its host time limit of 0.5 s (--host-timeout) and was stopped");
  EXPECT_FALSE(fs::exists(fs::path(BAD_INPUT_DIR) / "scratch_host_timeout" / "s.json")) << r;
}

TEST(Hostile, AHostTimeoutOutOfRangeIsRefused) {
  const RunResult r = run_tessera({"run", "sm1", elf("ok"), "-q", "--host-timeout", "0"});
  expect_clean_exit(r, 2);
  expect_contains(r, "--host-timeout");
}

// ---------------------------------------------------------------- the ABI, strictly

TEST(Hostile, AtomicOnAnMmioRegisterIsAFault) {
  const RunResult r = run_tessera({"run", "sm1", hostile("mmio_amo"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "amoswap.w");
  expect_contains(r, "of MMIO register 0x10000004: MMIO registers take 32-bit loads and stores only");
}

TEST(Hostile, ByteStoreToAnMmioRegisterIsAFault) {
  const RunResult r = run_tessera({"run", "sm1", hostile("mmio_byte"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "sb");
  expect_contains(r, "of MMIO register 0x10000000");
  expect_not_contains(r, "survived");
}

TEST(Hostile, AtomicOnKernelLocalMemoryIsAFault) {
  const RunResult r = run_tessera({"run", "sm1", hostile("kernel_local_atomic"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "atomic on local memory at 0x3000");
  expect_contains(r, "atomics and LR/SC need shared or global memory");
}

TEST(Hostile, KernelStoreIntoCodeIsAFault) {
  const RunResult r = run_tessera({"run", "chip", hostile("kernel_code_store"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "store into the program's code at 0x8000");
  expect_contains(r, "thread (3,0,0)");
}

TEST(Hostile, ControlCoreStoreIntoCodeIsAFault) {
  const RunResult r = run_tessera({"run", "sm1", hostile("host_code_store"), "-q"});
  expect_clean_exit(r, 3);
  expect_contains(r, "into the program's code at 0x8000");
  expect_not_contains(r, "survived");
}

// abort() and a failed assert() on the control core end the run with
// status 128 + SIGABRT = 134, assert's message first (file, line, function).
TEST(Hostile, HostAssertAndAbortEndTheRunWithStatus134) {
  const RunResult failed_assert = run_tessera({"run", "sm1", hostile("host_assert")});
  expect_clean_exit(failed_assert, 134);
  expect_contains(failed_assert, "assertion \"out[0] == 1u\" failed: file");
  expect_contains(failed_assert, "hostile.c\", line");
  expect_contains(failed_assert, "function: main");
  expect_contains(failed_assert, "the program raised signal 6 (abort): exit status 134");
  expect_not_contains(failed_assert, "survived");
  const RunResult aborted = run_tessera({"run", "sm1", hostile("host_abort")});
  expect_clean_exit(aborted, 134);
  expect_contains(aborted, "the program raised signal 6 (abort): exit status 134");
  expect_not_contains(aborted, "survived");
}

TEST(Hostile, ExitStatusIsTheLowEightBits) {
  const RunResult r = run_tessera({"run", "sm1", hostile("exit_300")});
  expect_clean_exit(r, 300 % 256);
  expect_contains(r, "program exited with status 44 (EXIT was written 300)");
}

}  // namespace
