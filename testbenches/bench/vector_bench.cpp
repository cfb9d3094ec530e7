// The vector unit's timing model alone on SAXPY strips (vle32, vfmacc.vf,
// vle32, vse32 with VL = MVL = 64): element operations timed per host
// second (the counter `element_ops`). Run by hand:
//   ./build/testbenches/bench/vector_bench
#include <benchmark/benchmark.h>

#include "vector/vector_timing.h"

namespace {

using tessera::vector::Chaining;
using tessera::vector::IssueResult;
using tessera::vector::kNoReg;
using tessera::vector::TimingParams;
using tessera::vector::Unit;
using tessera::vector::VectorOp;
using tessera::vector::VectorTiming;

void saxpy_timing(benchmark::State& state) {
  TimingParams p;
  p.lanes = static_cast<unsigned>(state.range(0));
  p.chaining = Chaining::kFlexible;
  constexpr uint32_t kVl = 64;
  VectorOp lx, ly, fma, sy;
  lx.unit = ly.unit = sy.unit = Unit::kMemory;
  lx.vl = ly.vl = fma.vl = sy.vl = kVl;
  lx.vd = 1;
  ly.vd = 2;
  lx.stride = ly.stride = sy.stride = 4;
  fma.unit = Unit::kMul;
  fma.vd = 2;
  fma.vs = {1, 2, kNoReg};
  sy.is_store = true;
  sy.vs[0] = 2;
  uint64_t elements = 0, cycle = 0;
  for (auto _ : state) {
    VectorTiming v(p);
    uint64_t x = 0x100000, y = 0x200000;
    for (int strip = 0; strip < 1000; ++strip) {
      lx.base = x;
      ly.base = sy.base = y;
      v.issue(lx, cycle);
      v.issue(ly, cycle);
      v.issue(fma, cycle);
      const IssueResult r = v.issue(sy, cycle);
      cycle = r.accepted;
      x += 4 * kVl;
      y += 4 * kVl;
    }
    elements += v.stats().element_ops;
    benchmark::DoNotOptimize(v.drain());
  }
  state.counters["element_ops"] = benchmark::Counter(static_cast<double>(elements), benchmark::Counter::kIsRate);
}
BENCHMARK(saxpy_timing)->Arg(1)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
