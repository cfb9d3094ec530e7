// The vector unit: RVV instructions executed by the ISA library and timed by
// VectorTiming, on SAXPY strip-mined over n = 100 with VLEN 2048 (MVL 64 at
// SEW 32). Encodings from GNU as 2.40 (-march=rv32imafv), text beside each.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "vector/vector_unit.h"

namespace tessera::vector {
namespace {

using isa::vec::decode_vector;

constexpr uint32_t kVsetvliE32 = 0x0d0572d7;  // vsetvli t0,a0,e32,m1,ta,ma
constexpr uint32_t kVleX = 0x0205e087;        // vle32.v v1,(a1)
constexpr uint32_t kVleY = 0x02066107;        // vle32.v v2,(a2)
constexpr uint32_t kVfmacc = 0xb2155157;      // vfmacc.vf v2,fa0,v1
constexpr uint32_t kVseY = 0x02066127;        // vse32.v v2,(a2)
constexpr uint32_t kVleMasked = 0x0005e187;   // vle32.v v3,(a1),v0.t

// Flat little-endian memory from address 0.
class Flat : public isa::vec::VectorMemory {
 public:
  explicit Flat(size_t bytes) : m(bytes, 0) {}
  isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override {
    if (addr + bytes > m.size()) return isa::MemStatus::kAccessFault;
    std::memcpy(data, &m[addr], bytes);
    ++reads;
    return isa::MemStatus::kOk;
  }
  isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) override {
    if (addr + bytes > m.size()) return isa::MemStatus::kAccessFault;
    std::memcpy(&m[addr], data, bytes);
    return isa::MemStatus::kOk;
  }
  float f(uint32_t addr) const {
    float v;
    std::memcpy(&v, &m[addr], 4);
    return v;
  }
  void set(uint32_t addr, float v) { std::memcpy(&m[addr], &v, 4); }
  std::vector<uint8_t> m;
  unsigned reads = 0;
};

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(VectorUnit, StripMinedSaxpyComputesTheScalarResultWithTheChainedTiming) {
  constexpr uint32_t kX = 0x1000, kY = 0x2000, kN = 100;
  const float a = 1.5f;
  Flat mem(0x3000);
  std::vector<float> expect(kN);
  for (uint32_t i = 0; i < kN; ++i) {
    const float x = 0.25f * static_cast<float>(i) - 3.0f, y = static_cast<float>(i % 7) + 0.5f;
    mem.set(kX + 4 * i, x);
    mem.set(kY + 4 * i, y);
    expect[i] = std::fma(a, x, y);  // vfmacc rounds once
  }
  VectorUnit unit(VectorParams{});
  isa::ThreadState s{};
  s.x[10] = kN;  // a0: elements left
  s.x[11] = kX;  // a1
  s.x[12] = kY;  // a2
  s.set_fs(10, bits(a));
  std::vector<IssueResult> stores;
  while (s.x[10] != 0) {
    for (uint32_t word : {kVsetvliE32, kVleX, kVleY, kVfmacc, kVseY}) {
      const VectorUnit::Step step = unit.execute(decode_vector(word), s, mem, 0);
      ASSERT_EQ(step.result.trap, isa::Trap::kNone) << std::hex << word;
      EXPECT_EQ(step.timed, word != kVsetvliE32);
      if (word == kVseY) stores.push_back(step.timing);
    }
    const uint32_t vl = s.x[5];  // t0
    s.x[10] -= vl;
    s.x[11] += 4 * vl;
    s.x[12] += 4 * vl;
  }
  for (uint32_t i = 0; i < kN; ++i) {
    EXPECT_EQ(mem.f(kY + 4 * i), expect[i]) << "element " << i;
  }
  // Strips of 64 and 36 (VLMAX = 2048 / 32). Each is three convoys: vle
  // v1 | vle v2 + vfmacc (the accumulator chained to its load) | vse.
  // Strip 1: 12 + 64 = 76; the vfmacc's elements enter at 88..151 and it
  // completes at 159; the store at 159 + 12 + 64 = 235. Strip 2 (the store
  // holds the memory unit): 235 + 12 + 36 = 283; 283 + 12 + 35 + 7 + 1 =
  // 338; 338 + 12 + 36 = 386.
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(stores[0].complete, 235u);
  EXPECT_EQ(stores[1].complete, 386u);
  const TimingStats t = unit.timing().stats();
  EXPECT_EQ(t.convoys, 6u);
  EXPECT_EQ(t.instructions, 8u);
  EXPECT_EQ(t.element_ops, 4u * kN);
  EXPECT_EQ(t.memory_elements, 3u * kN);
  EXPECT_EQ(t.chained_operands, 2u);
  EXPECT_EQ(t.bank_conflict_stalls, 0u);
}

TEST(VectorUnit, MaskedOffElementsTakeTheirSlotWithoutAMemoryAccess) {
  // vl 8, v0 = 0b01010101: four elements load, all eight take a slot: the
  // load completes at 12 + 8 = 20 as an unmasked one would. Elements 1, 3,
  // 5 and 7 would touch bank 0 of a 1-bank memory: only the four loads
  // wait for it (busy 12): entries at 0, 12 (2), 24 (4), 36 (6), 37: 37 + 13 = 50.
  VectorParams p;
  Flat mem(0x3000);
  for (uint32_t i = 0; i < 8; ++i) mem.set(0x1000 + 4 * i, static_cast<float>(i));
  isa::ThreadState s{};
  s.x[10] = 8;
  s.x[11] = 0x1000;
  {
    VectorUnit unit(p);
    unit.state().set_mask_bit(0, 0, true);
    ASSERT_EQ(unit.execute(decode_vector(kVsetvliE32), s, mem, 0).result.trap, isa::Trap::kNone);
    for (unsigned i = 0; i < 8; ++i) unit.state().set_mask_bit(0, i, i % 2 == 0);
    mem.reads = 0;
    const VectorUnit::Step step = unit.execute(decode_vector(kVleMasked), s, mem, 0);
    ASSERT_EQ(step.result.trap, isa::Trap::kNone);
    EXPECT_EQ(mem.reads, 4u);
    EXPECT_EQ(step.timing.complete, 20u);
    EXPECT_EQ(unit.state().element(3, 2, 32), bits(2.0f));
  }
  p.timing.banks = 1;
  VectorUnit one_bank(p);
  ASSERT_EQ(one_bank.execute(decode_vector(kVsetvliE32), s, mem, 0).result.trap, isa::Trap::kNone);
  for (unsigned i = 0; i < 8; ++i) one_bank.state().set_mask_bit(0, i, i % 2 == 0);
  EXPECT_EQ(one_bank.execute(decode_vector(kVleMasked), s, mem, 0).timing.complete, 50u);
}

TEST(VectorUnit, SharedUnitHoldsARegisterContextPerCore) {
  // Two contexts: context 0 sets vl 8 and loads X into its v1; context 1
  // still has the reset vtype (vill), so the same load is illegal there, and
  // after its own vsetvli (vl 4) it loads Y into its v1, leaving context 0's
  // v1 as it was.
  VectorParams p;
  p.timing.contexts = 2;
  VectorUnit unit(p);
  ASSERT_EQ(unit.contexts(), 2u);
  Flat mem(0x3000);
  for (uint32_t i = 0; i < 8; ++i) {
    mem.set(0x1000 + 4 * i, static_cast<float>(i));
    mem.set(0x2000 + 4 * i, static_cast<float>(100 + i));
  }
  isa::ThreadState s{};
  s.x[10] = 8;
  s.x[11] = 0x1000;
  ASSERT_EQ(unit.execute(decode_vector(kVsetvliE32), s, mem, 0, nullptr, 0).result.trap, isa::Trap::kNone);
  ASSERT_EQ(unit.execute(decode_vector(kVleX), s, mem, 0, nullptr, 0).result.trap, isa::Trap::kNone);
  EXPECT_EQ(unit.execute(decode_vector(kVleX), s, mem, 0, nullptr, 1).result.trap, isa::Trap::kIllegalInstruction);
  s.x[10] = 4;
  s.x[11] = 0x2000;
  ASSERT_EQ(unit.execute(decode_vector(kVsetvliE32), s, mem, 0, nullptr, 1).result.trap, isa::Trap::kNone);
  ASSERT_EQ(unit.execute(decode_vector(kVleX), s, mem, 0, nullptr, 1).result.trap, isa::Trap::kNone);
  EXPECT_EQ(unit.state(0).vl, 8u);
  EXPECT_EQ(unit.state(1).vl, 4u);
  EXPECT_EQ(unit.state(0).element(1, 7, 32), bits(7.0f));
  EXPECT_EQ(unit.state(1).element(1, 3, 32), bits(103.0f));
  EXPECT_EQ(unit.state(1).element(1, 5, 32), 0u);  // beyond its vl: never written
  // One timing model: both loads were timed by it (the illegal one was not).
  EXPECT_EQ(unit.stats().instructions, 2u);
  EXPECT_EQ(unit.stats().element_ops, 12u);
}

TEST(VectorUnit, FaultingInstructionIsNotTimed) {
  Flat mem(0x100);
  isa::ThreadState s{};
  s.x[10] = 64;
  s.x[11] = 0xF0;  // elements from 4 on fall outside the 256 bytes
  VectorUnit unit(VectorParams{});
  unit.execute(decode_vector(kVsetvliE32), s, mem, 0);
  const VectorUnit::Step step = unit.execute(decode_vector(kVleX), s, mem, 0);
  EXPECT_EQ(step.result.trap, isa::Trap::kLoadAccessFault);
  EXPECT_EQ(step.result.element, 4u);
  EXPECT_FALSE(step.timed);
  EXPECT_EQ(unit.timing().stats().instructions, 0u);
}

}  // namespace
}  // namespace tessera::vector
