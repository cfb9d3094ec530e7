// Simulation speed in cycle mode, reported as simulated warp instructions
// per host second (the simulator's own measurement of its run, from the
// stats JSON): the FMA-bound kernel (compute) and the tiled SGEMM and the
// shared-atomic histogram (memory system), each on 1 SM and on 16 SMs.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tessera_run.h"

namespace {

void run_kernel(benchmark::State& state, const std::string& program) {
  const std::string sms = std::to_string(state.range(0));
  const std::string stats = "/tmp/tessera_bench_" + program + "_" + sms + ".json";
  const std::string elf = std::string(BENCH_DIR) + "/" + program + ".elf";
  double warp_insts = 0, host = 0, cycles = 0;
  for (auto _ : state) {
    const auto r = tessera::test::run_tessera({"run", std::string(PLATFORM_DIR) + "/chip.yaml", elf, "--set",
                                               "gpu.num_sms=" + sms, "--stats", stats, "--quiet"},
                                              600);
    if (r.status != 0) {
      state.SkipWithError(("tessera failed: " + r.err).c_str());
      return;
    }
    const auto j = nlohmann::json::parse(tessera::test::read_file(stats))["summary"];
    warp_insts += j["warp_insts"].get<double>();
    cycles += j["sim_cycles"].get<double>();
    host += j["host_seconds"].get<double>();
  }
  state.counters["warp_insts"] = benchmark::Counter(warp_insts, benchmark::Counter::kAvgIterations);
  state.counters["sim_cycles"] = benchmark::Counter(cycles, benchmark::Counter::kAvgIterations);
  state.counters["warp_insts_per_host_s"] = benchmark::Counter(host > 0 ? warp_insts / host : 0);
}

void fma_kernel(benchmark::State& state) { run_kernel(state, "fma_bench"); }
void sgemm_kernel(benchmark::State& state) { run_kernel(state, "sgemm_bench"); }
void histogram_kernel(benchmark::State& state) { run_kernel(state, "histogram_bench"); }

}  // namespace

BENCHMARK(fma_kernel)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(sgemm_kernel)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(histogram_kernel)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
