// The host side of benchmark programs on control core 0
// (docs/firmware-abi.md): a control core computing on registers alone for
// longer than the progress watchdog's window is not a livelock, while spin
// loops still are.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera_run.h"

namespace {

using tessera::test::parse_results;
using tessera::test::run_tessera;
using tessera::test::RunResult;

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

RunResult run(const std::string& program, const std::vector<std::string>& options,
              const std::vector<std::string>& program_args) {
  std::vector<std::string> args{"run", "sm1", fw(program), "-q"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program_args.begin(), program_args.end());
  return run_tessera(args);
}

// Numerical Recipes' LCG from 1, as host_compute.c runs it.
uint32_t lcg(uint32_t steps) {
  uint32_t x = 1;
  for (uint32_t i = 0; i < steps; ++i) x = x * 1664525u + 1013904223u;
  return x;
}

// host_compute.c's matmul: A[e] = e % 7 - 3, B[e] = e % 5 - 2 (row-major),
// the sum of (A*B)[i][j] * (i*n + j + 1).
long long matmul(int n) {
  long long sum = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int acc = 0;
      for (int k = 0; k < n; ++k) acc += ((i * n + k) % 7 - 3) * ((k * n + j) % 5 - 2);
      sum += static_cast<long long>(acc) * (i * n + j + 1);
    }
  return sum;
}

constexpr const char* kLivelock =
    "livelock: no instruction changed memory, wrote an MMIO register or computed a new value on a control core for "
    "10000000 SM cycles (watchdog.cycles)";

// ---------------------------------------------------------------- the watchdog and computing cores

// 3,000,000 LCG steps (a mul, an add, the loop) take about 18 M cycles
// with the default 10 M-cycle watchdog window; nothing is stored until the
// result is printed.
TEST(HostWatchdog, ARegisterOnlyLoopLongerThanTheWindowCompletes) {
  const RunResult r = run("host_compute", {}, {"lcg", "3000000"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("livelock"), std::string::npos) << r.err;
  const auto results = parse_results(r.out);
  ASSERT_EQ(results.count("lcg"), 1u) << r.out;
  EXPECT_EQ(results.at("lcg"), (std::vector<long long>{3000000, lcg(3000000)}));
}

// A CPU reference matrix multiply (96 x 96, about 15 M cycles) that loads
// its inputs and accumulates in registers, storing nothing until the end.
TEST(HostWatchdog, AMatrixMultiplyIntoRegistersCompletes) {
  const RunResult r = run("host_compute", {}, {"matmul", "96"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto results = parse_results(r.out);
  ASSERT_EQ(results.count("matmul"), 1u) << r.out;
  EXPECT_EQ(results.at("matmul"), (std::vector<long long>{96, matmul(96)}));
}

// Core 0 waits in tessera_core_join() (asleep in wfi, or polling
// HART_RUNNING) while core 1 computes.
TEST(HostWatchdog, ACoreWaitingForAComputingCoreCompletes) {
  const RunResult r = run("host_compute", {}, {"join", "3000000"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto results = parse_results(r.out);
  ASSERT_EQ(results.count("join"), 1u) << r.out;
  EXPECT_EQ(results.at("join"), (std::vector<long long>{3000000, lcg(3000000)}));
}

TEST(HostWatchdog, ASpinOnAFlagNobodySetsStillStops) {
  for (const char* program : {"host_compute", "host_compute_O0"}) {
    const RunResult r = run(program, {}, {"spin"});
    EXPECT_EQ(r.status, 5) << program << r.out << r.err;
    EXPECT_NE(r.err.find(kLivelock), std::string::npos) << program << r.err;
    EXPECT_NE(r.err.find("cluster.core0: "), std::string::npos) << program << r.err;  // the state dump
    EXPECT_EQ(r.out.find("ended"), std::string::npos) << program << r.out;
  }
}

TEST(HostWatchdog, TwoCoresWaitingForEachOtherStop) {
  for (const char* program : {"host_compute", "host_compute_O0"}) {
    const RunResult r = run(program, {}, {"spin_pair"});
    EXPECT_EQ(r.status, 5) << program << r.out << r.err;
    EXPECT_NE(r.err.find(kLivelock), std::string::npos) << program << r.err;
    EXPECT_NE(r.err.find("cluster.core1: "), std::string::npos) << program << r.err;
    EXPECT_EQ(r.err.find("cluster.core1: parked"), std::string::npos) << program << r.err;  // it spins too
    EXPECT_EQ(r.out.find("ended"), std::string::npos) << program << r.out;
  }
}

// The documented blind spot: a spin that counts its attempts changes a
// register each time round, so only --max-cycles ends it.
TEST(HostWatchdog, ASpinThatCountsItsAttemptsRunsToTheCycleLimit) {
  const RunResult r =
      run("host_compute", {"--set", "watchdog.cycles=100000", "--max-cycles", "2000000"}, {"spin_count"});
  EXPECT_EQ(r.status, 6) << r.out << r.err;
  EXPECT_EQ(r.err.find("livelock"), std::string::npos) << r.err;
}

}  // namespace
