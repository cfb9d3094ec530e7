// Every self-checking firmware program passes on every reference platform;
// the same inputs give bit-identical statistics; waveforms are written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "host_time.h"
#include "tessera_run.h"

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

const char* const kPrograms[] = {
    "vecadd", "saxpy", "sinx", "matrixadd", "conv1d", "divergent", "atomic_counter", "histogram", "reduction", "sgemm",
    "ldg_lut", "particles_global_lock", "particles_cell_locks", "particles_partial_grids", "particles_sort",
    // warp-level primitives (testbenches/integration/warp_prims)
    "warp_reduce", "ballot_compact",
    // firmware/microbench: latency microbenchmarks that also check where their pointer chases end
    "smem_latency", "mem_latency",
    // CUDA-style: captured launch arguments in a loop, dim3 {16, 16}, kernel printf
    "kernel_printf"};
const char* const kPlatforms[] = {"sm1", "chip", "chip52", "chip_hbm", "chip_noc"};

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

class ProgramTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(ProgramTest, PassesItsOwnCheck) {
  const auto [program, plat] = GetParam();
  const std::string stats = temp_path(std::string(program) + "_" + plat + ".json");
  // A cycle limit far above any program's needs turns a livelock into a
  // failure instead of a hang.
  const auto r = run_tessera({"run", platform(plat), fw(program), "--stats", stats, "--max-cycles", "50000000"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(stats));
  const auto& s = j["summary"];
  EXPECT_EQ(s.size(), 7u);
  for (const char* key : {"sim_cycles", "warp_insts", "thread_insts", "host_seconds", "warp_insts_per_host_second",
                          "host_seconds_in_kernels", "kernel_warp_insts_per_host_second"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_GT(s["warp_insts"].get<uint64_t>(), 0u);
  // Every program launches kernels: the host time while they ran is part of the whole.
  EXPECT_GT(s["host_seconds_in_kernels"].get<double>(), 0.0);
  EXPECT_LE(s["host_seconds_in_kernels"].get<double>(), s["host_seconds"].get<double>());
  EXPECT_GE(s["thread_insts"].get<uint64_t>(), s["warp_insts"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(AllPrograms, ProgramTest,
                         ::testing::Combine(::testing::ValuesIn(kPrograms), ::testing::ValuesIn(kPlatforms)),
                         [](const ::testing::TestParamInfo<ProgramTest::ParamType>& param_info) {
                           return std::string(std::get<0>(param_info.param)) + "_on_" + std::get<1>(param_info.param);
                         });

// A sector requested while it is already being fetched is counted as merged,
// neither hit nor miss: with 4x the memory latency more requests find their
// sectors in flight, but the misses (sectors fetched) and hits + merged stay
// the same, and so does the hit rate.
TEST(L2Statistics, HitRateDoesNotDependOnMemoryLatency) {
  nlohmann::json l2[2];
  const char* const latencies[2] = {"200", "800"};
  for (int i = 0; i < 2; ++i) {
    const std::string stats = temp_path(std::string("l2_latency_") + latencies[i] + ".json");
    const auto r = run_tessera({"run", platform("chip"), fw("histogram"), "-q", "--set",
                                std::string("memory.latency=") + latencies[i], "--stats", stats});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    l2[i] = nlohmann::json::parse(read_file(stats))["chip"]["l2"];
  }
  uint64_t merged[2] = {0, 0};
  for (int s = 0; s < 4; ++s) {
    const std::string slice = "slice" + std::to_string(s);
    const auto& a = l2[0][slice];
    const auto& b = l2[1][slice];
    EXPECT_EQ(a["miss_sectors"], b["miss_sectors"]) << slice;
    EXPECT_EQ(a["hit_sectors"].get<uint64_t>() + a["mshr_merged_sectors"].get<uint64_t>(),
              b["hit_sectors"].get<uint64_t>() + b["mshr_merged_sectors"].get<uint64_t>())
        << slice;
    EXPECT_EQ(a["sector_hit_rate"], b["sector_hit_rate"]) << slice;
    merged[0] += a["mshr_merged_sectors"].get<uint64_t>();
    merged[1] += b["mshr_merged_sectors"].get<uint64_t>();
  }
  EXPECT_GT(merged[1], merged[0]);  // the longer latency leaves more sectors in flight
}

using tessera::test::without_host_time;

TEST(Determinism, SameInputsGiveBitIdenticalStatistics) {
  for (const char* program : {"conv1d", "atomic_counter"}) {
    const std::string a = temp_path("det_a.json"), b = temp_path("det_b.json");
    ASSERT_EQ(run_tessera({"run", platform("chip"), fw(program), "--stats", a}).status, 0);
    ASSERT_EQ(run_tessera({"run", platform("chip"), fw(program), "--stats", b}).status, 0);
    const auto ja = without_host_time(nlohmann::json::parse(read_file(a)));
    const auto jb = without_host_time(nlohmann::json::parse(read_file(b)));
    EXPECT_EQ(ja.dump(), jb.dump()) << program;
  }
}

// Skipping idle cycles changes no statistic: IdleSkipping.* in
// testbenches/integration/stats_equivalence ticks every cycle and compares
// with the reference the skipping runs match.

TEST(Waveform, VcdHasOneScopePerSchedulerAndHonoursTraceScope) {
  const std::string vcd = temp_path("conv1d.vcd");
  ASSERT_EQ(run_tessera({"run", platform("chip"), fw("conv1d"), "--vcd", vcd}).status, 0);
  const std::string all = read_file(vcd);
  EXPECT_NE(all.find("$scope module sm0 $end"), std::string::npos);
  EXPECT_NE(all.find("$scope module sm3 $end"), std::string::npos);
  EXPECT_NE(all.find("$scope module sched3 $end"), std::string::npos);
  for (const char* signal : {" issued_warp ", " pc ", " unit ", " stall ", " active_lanes "})
    EXPECT_NE(all.find(signal), std::string::npos) << signal;
  EXPECT_NE(all.find("$enddefinitions"), std::string::npos);

  const std::string only = temp_path("conv1d_sm1.vcd");
  ASSERT_EQ(run_tessera({"run", platform("chip"), fw("conv1d"), "--vcd", only, "--trace-scope", "sm1.*"}).status, 0);
  const std::string part = read_file(only);
  EXPECT_NE(part.find("$scope module sm1 $end"), std::string::npos);
  EXPECT_EQ(part.find("$scope module sm0 $end"), std::string::npos);
}

}  // namespace
