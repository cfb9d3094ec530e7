// A control core's translation of instructions into cluster operations and
// the replay that retires them (models/cpu/hart.h), without SystemC.
#include <gtest/gtest.h>

#include "cpu/hart.h"

namespace tessera::cpu {
namespace {

// RV32 encodings (RISC-V unprivileged spec, chapter 34 tables).
uint32_t i_type(uint32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opcode) {
  return (imm & 0xFFF) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opcode;
}
uint32_t s_type(uint32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  return ((imm >> 5) & 0x7F) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (imm & 0x1F) << 7 | 0x23;
}
uint32_t amo(uint32_t funct5, uint32_t rs2, uint32_t rs1, uint32_t rd) {
  return funct5 << 27 | rs2 << 20 | rs1 << 15 | 2u << 12 | rd << 7 | 0x2F;
}
constexpr uint32_t kA0 = 10, kA1 = 11, kA2 = 12;

struct HartTest : ::testing::Test {
  int mmio_calls = 0;
  Hart hart{2, [this](bool, uint32_t, unsigned, uint32_t*) { return ++mmio_calls, true; }};
  void SetUp() override {
    hart.state.pc = 0x80000100;
    hart.state.x[kA1] = 0x80001000;
    hart.state.x[kA2] = 0x123456F0;
  }
};

TEST_F(HartTest, LoadsBecomeLoadsOfTheirSizeAtRs1PlusImm) {
  const isa::Inst lb = isa::decode(i_type(3, kA1, 0, kA0, 0x03));
  EXPECT_EQ(classify(lb), MemClass::kAccess);
  const bus::Op op = memory_op(lb, hart.state);
  EXPECT_EQ(op.kind, bus::OpKind::kLoad);
  EXPECT_EQ(op.addr, 0x80001003u);
  EXPECT_EQ(op.size, 1u);
  // Replay sign-extends the engine's zero-extended byte.
  EXPECT_EQ(hart.replay(lb, 0x80).trap, isa::Trap::kNone);
  EXPECT_EQ(hart.state.x[kA0], 0xFFFFFF80u);
  EXPECT_EQ(hart.state.pc, 0x80000104u);
}

TEST_F(HartTest, StoresCarryTheMaskedValueAndReplayTouchesNothing) {
  const isa::Inst sb = isa::decode(s_type(5, kA2, kA1, 0));
  const bus::Op op = memory_op(sb, hart.state);
  EXPECT_EQ(op.kind, bus::OpKind::kStore);
  EXPECT_EQ(op.addr, 0x80001005u);
  EXPECT_EQ(op.value, 0xF0u);
  EXPECT_EQ(hart.replay(sb, 0).trap, isa::Trap::kNone);
  EXPECT_EQ(mmio_calls, 0);
}

TEST_F(HartTest, AmosUseRs1AloneAndReturnTheOldValue) {
  const isa::Inst amoadd = isa::decode(amo(0x00, kA2, kA1, kA0));
  const bus::Op op = memory_op(amoadd, hart.state);
  EXPECT_EQ(op.kind, bus::OpKind::kAmo);
  EXPECT_EQ(op.amo, bus::AmoKind::kAdd);
  EXPECT_EQ(op.addr, 0x80001000u);
  EXPECT_EQ(op.value, 0x123456F0u);
  hart.replay(amoadd, 41);
  EXPECT_EQ(hart.state.x[kA0], 41u);
  EXPECT_EQ(memory_op(isa::decode(amo(0x14, kA2, kA1, kA0)), hart.state).amo, bus::AmoKind::kMax);
}

TEST_F(HartTest, ScWritesZeroOnSuccessAndOneOnFailure) {
  const isa::Inst sc = isa::decode(amo(0x03, kA2, kA1, kA0));
  EXPECT_EQ(memory_op(sc, hart.state).kind, bus::OpKind::kSc);
  hart.replay(sc, 0);
  EXPECT_EQ(hart.state.x[kA0], 0u);
  hart.state.pc = 0x80000100;
  hart.replay(sc, 1);
  EXPECT_EQ(hart.state.x[kA0], 1u);
}

TEST_F(HartTest, FencesWaitForTheStoreBufferAndSmInstructionsFault) {
  const isa::Inst fence = isa::decode(0x0FF0000F);  // fence iorw, iorw
  EXPECT_EQ(classify(fence), MemClass::kFence);
  EXPECT_EQ(memory_op(fence, hart.state).kind, bus::OpKind::kFence);
  const isa::Inst ldg = isa::decode(i_type(0, kA1, 2, kA0, 0x2B));  // ldg.w
  EXPECT_EQ(classify(ldg), MemClass::kDirect);
  EXPECT_EQ(hart.execute_direct(ldg).trap, isa::Trap::kLoadAccessFault);
}

TEST_F(HartTest, MmioGoesToTheShellAndCsrsReportTheHart) {
  hart.state.x[kA1] = kMmioBase + 0x40;
  EXPECT_EQ(hart.execute_direct(isa::decode(i_type(0, kA1, 2, kA0, 0x03))).trap, isa::Trap::kNone);
  EXPECT_EQ(mmio_calls, 1);
  hart.ready_at = 1234;
  hart.execute_direct(isa::decode(i_type(0xF14, 0, 2, kA0, 0x73)));  // csrrs a0, mhartid, x0
  EXPECT_EQ(hart.state.x[kA0], 2u);
  hart.execute_direct(isa::decode(i_type(0xC00, 0, 2, kA0, 0x73)));  // csrrs a0, cycle, x0
  EXPECT_EQ(hart.state.x[kA0], 1234u);
}

}  // namespace
}  // namespace tessera::cpu
