// SAXPY strips (vle32, vle32, vfmacc.vf, vse32 with VL = MVL = 64) on the
// vector unit: element operations per host second (the counter
// `element_ops`), for the timing model alone and for the whole unit
// (decode, functional execution, timing). Run by hand:
//   ./build/testbenches/bench/vector_bench
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "vector/vector_timing.h"
#include "vector/vector_unit.h"

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

class Flat : public tessera::isa::vec::VectorMemory {
 public:
  explicit Flat(size_t bytes) : m(bytes, 0) {}
  tessera::isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override {
    if (addr + bytes > m.size()) return tessera::isa::MemStatus::kAccessFault;
    std::memcpy(data, &m[addr], bytes);
    return tessera::isa::MemStatus::kOk;
  }
  tessera::isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) override {
    if (addr + bytes > m.size()) return tessera::isa::MemStatus::kAccessFault;
    std::memcpy(&m[addr], data, bytes);
    return tessera::isa::MemStatus::kOk;
  }
  std::vector<uint8_t> m;
};

// The whole unit: SAXPY over 64,000 floats in strips of 64 (VLEN 2048).
void saxpy_unit(benchmark::State& state) {
  using tessera::isa::vec::decode_vector;
  // GNU as 2.40, -march=rv32imafv.
  const tessera::isa::vec::VInst program[] = {
      decode_vector(0x0d0572d7),  // vsetvli t0,a0,e32,m1,ta,ma
      decode_vector(0x0205e087),  // vle32.v v1,(a1)
      decode_vector(0x02066107),  // vle32.v v2,(a2)
      decode_vector(0xb2155157),  // vfmacc.vf v2,fa0,v1
      decode_vector(0x02066127),  // vse32.v v2,(a2)
  };
  tessera::vector::VectorParams p;
  p.timing.lanes = static_cast<unsigned>(state.range(0));
  constexpr uint32_t kN = 64000, kX = 0x1000, kY = kX + 4 * kN;
  Flat mem(kY + 4 * kN);
  uint64_t elements = 0;
  for (auto _ : state) {
    tessera::vector::VectorUnit unit(p);
    tessera::isa::ThreadState s{};
    s.x[10] = kN;
    s.x[11] = kX;
    s.x[12] = kY;
    s.set_fs(10, 0x3fc00000);  // 1.5f
    while (s.x[10] != 0) {
      for (const auto& inst : program) unit.execute(inst, s, mem, 0);
      const uint32_t vl = s.x[5];
      s.x[10] -= vl;
      s.x[11] += 4 * vl;
      s.x[12] += 4 * vl;
    }
    elements += unit.timing().stats().element_ops;
    benchmark::DoNotOptimize(unit.timing().drain());
  }
  state.counters["element_ops"] = benchmark::Counter(static_cast<double>(elements), benchmark::Counter::kIsRate);
}
BENCHMARK(saxpy_unit)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
