// Executor, integer side: RV32I, M, Zicsr, control transfer and the Tessera
// control instructions. Expected values are worked out from the spec text.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::isa {
namespace {

using namespace test;

constexpr uint32_t kA0 = 10, kA1 = 11, kA2 = 12;

// Runs "op a0,a1,a2" with a1=x, a2=y and returns a0.
uint32_t rr(uint32_t f3, uint32_t f7, uint32_t x, uint32_t y) {
  Harness h;
  h.t.x[kA1] = x;
  h.t.x[kA2] = y;
  h.step(enc::op(f3, f7, kA0, kA1, kA2));
  return h.t.x[kA0];
}
// Runs "opimm a0,a1,imm" with a1=x.
uint32_t ri(uint32_t f3, uint32_t x, int32_t imm) {
  Harness h;
  h.t.x[kA1] = x;
  h.step(enc::opimm(f3, kA0, kA1, imm));
  return h.t.x[kA0];
}

TEST(ExecuteInt, Arithmetic) {
  EXPECT_EQ(rr(0, 0, 0x7FFFFFFF, 1), 0x80000000u);  // add wraps
  EXPECT_EQ(rr(0, 0x20, 0, 1), 0xFFFFFFFFu);        // sub
  EXPECT_EQ(rr(2, 0, 0xFFFFFFFF, 0), 1u);           // slt: -1 < 0
  EXPECT_EQ(rr(3, 0, 0xFFFFFFFF, 0), 0u);           // sltu: 0xffffffff > 0
  EXPECT_EQ(rr(3, 0, 0, 1), 1u);
  EXPECT_EQ(rr(4, 0, 0xF0F0F0F0, 0xFF00FF00), 0x0FF00FF0u);     // xor
  EXPECT_EQ(rr(6, 0, 0xF0F0F0F0, 0x0F000000), 0xFFF0F0F0u);     // or
  EXPECT_EQ(rr(7, 0, 0xF0F0F0F0, 0xFF00FF00), 0xF000F000u);     // and
  EXPECT_EQ(ri(0, 5, -2048), static_cast<uint32_t>(5 - 2048));  // addi
  EXPECT_EQ(ri(0, 0, 2047), 2047u);
  EXPECT_EQ(ri(2, 0xFFFFFFFE, -1), 1u);  // slti: -2 < -1
  EXPECT_EQ(ri(3, 5, -1), 1u);           // sltiu: imm sign-extends to 0xffffffff
  EXPECT_EQ(ri(3, 0xFFFFFFFF, -1), 0u);
  EXPECT_EQ(ri(4, 0x12345678, -1), 0xEDCBA987u);  // xori -1 is not
  EXPECT_EQ(ri(6, 0x00000F00, 0x0F0), 0x00000FF0u);
  EXPECT_EQ(ri(7, 0xFFFFFFFF, -2048), 0xFFFFF800u);
}

TEST(ExecuteInt, ShiftsMaskToFiveBits) {
  EXPECT_EQ(rr(1, 0, 1, 31), 0x80000000u);  // sll
  EXPECT_EQ(rr(1, 0, 1, 32), 1u);           // shift amount 32 & 31 = 0
  EXPECT_EQ(rr(1, 0, 1, 0xFFFFFFE1), 2u);   // only the low 5 bits (1) count
  EXPECT_EQ(rr(5, 0, 0x80000000, 31), 1u);  // srl is logical
  EXPECT_EQ(rr(5, 0, 0x80000000, 33), 0x40000000u);
  EXPECT_EQ(rr(5, 0x20, 0x80000000, 31), 0xFFFFFFFFu);  // sra is arithmetic
  EXPECT_EQ(rr(5, 0x20, 0x80000000, 36), 0xF8000000u);  // by 4
  EXPECT_EQ(rr(5, 0x20, 0x40000000, 30), 1u);
  EXPECT_EQ(ri(1, 3, 31), 0x80000000u);                  // slli
  EXPECT_EQ(ri(5, 0x80000000, 4), 0x08000000u);          // srli
  EXPECT_EQ(ri(5, 0x80000000, 0x400 | 4), 0xF8000000u);  // srai
  EXPECT_EQ(ri(5, 0x7FFFFFFF, 0x400 | 0), 0x7FFFFFFFu);
}

TEST(ExecuteInt, UpperImmediates) {
  Harness h;
  h.step(enc::u(0x37, kA0, 0xFFFFF));  // lui a0,0xfffff
  EXPECT_EQ(h.t.x[kA0], 0xFFFFF000u);
  h.t.pc = 0x80000000;
  h.step(enc::u(0x17, kA1, 0x80000));  // auipc a1,0x80000: 0x80000000 + 0x80000000 wraps to 0
  EXPECT_EQ(h.t.x[kA1], 0u);
  h.t.pc = 0x1000;
  h.step(enc::u(0x17, kA1, 0xFFFFF));  // auipc: 0x1000 - 0x1000
  EXPECT_EQ(h.t.x[kA1], 0u);
}

TEST(ExecuteInt, Multiply) {
  EXPECT_EQ(rr(0, 1, 0x12345678, 0x10), 0x23456780u);  // mul keeps the low word
  EXPECT_EQ(rr(0, 1, 0xFFFFFFFF, 0xFFFFFFFF), 1u);     // (-1)*(-1)
  // mulh: (-2^31)*(-2^31) = 2^62 -> high word 0x40000000.
  EXPECT_EQ(rr(1, 1, 0x80000000, 0x80000000), 0x40000000u);
  // mulh: (-1)*3 = -3 = 0xffffffff_fffffffd -> high 0xffffffff.
  EXPECT_EQ(rr(1, 1, 0xFFFFFFFF, 3), 0xFFFFFFFFu);
  // mulhsu: signed -1 times unsigned 0xffffffff = -(2^32-1) = 0xffffffff_00000001.
  EXPECT_EQ(rr(2, 1, 0xFFFFFFFF, 0xFFFFFFFF), 0xFFFFFFFFu);
  // mulhsu: 2 * unsigned 2^31 = 2^32 -> high 1 (mulh would see -2^31).
  EXPECT_EQ(rr(2, 1, 2, 0x80000000), 1u);
  EXPECT_EQ(rr(1, 1, 2, 0x80000000), 0xFFFFFFFFu);
  // mulhu: (2^32-1)^2 = 0xfffffffe_00000001.
  EXPECT_EQ(rr(3, 1, 0xFFFFFFFF, 0xFFFFFFFF), 0xFFFFFFFEu);
}

TEST(ExecuteInt, DivideRoundsTowardZero) {
  EXPECT_EQ(rr(4, 1, 7, static_cast<uint32_t>(-2)), static_cast<uint32_t>(-3));  // div
  EXPECT_EQ(rr(6, 1, 7, static_cast<uint32_t>(-2)), 1u);                         // rem has the dividend's sign
  EXPECT_EQ(rr(4, 1, static_cast<uint32_t>(-7), 2), static_cast<uint32_t>(-3));
  EXPECT_EQ(rr(6, 1, static_cast<uint32_t>(-7), 2), static_cast<uint32_t>(-1));
  EXPECT_EQ(rr(5, 1, 0xFFFFFFFF, 2), 0x7FFFFFFFu);  // divu
  EXPECT_EQ(rr(7, 1, 0xFFFFFFFF, 10), 5u);          // remu: 4294967295 % 10
}

TEST(ExecuteInt, DivideByZeroAndOverflow) {
  // Spec table 7.1: x/0 = all ones (-1 signed, 2^32-1 unsigned); x%0 = x.
  EXPECT_EQ(rr(4, 1, 123, 0), 0xFFFFFFFFu);
  EXPECT_EQ(rr(4, 1, static_cast<uint32_t>(-123), 0), 0xFFFFFFFFu);
  EXPECT_EQ(rr(5, 1, 123, 0), 0xFFFFFFFFu);
  EXPECT_EQ(rr(6, 1, static_cast<uint32_t>(-123), 0), static_cast<uint32_t>(-123));
  EXPECT_EQ(rr(7, 1, 123, 0), 123u);
  // Overflow: -2^31 / -1 = -2^31, remainder 0.
  EXPECT_EQ(rr(4, 1, 0x80000000, 0xFFFFFFFF), 0x80000000u);
  EXPECT_EQ(rr(6, 1, 0x80000000, 0xFFFFFFFF), 0u);
  // Unsigned: no overflow case, 0x80000000 / 0xffffffff = 0.
  EXPECT_EQ(rr(5, 1, 0x80000000, 0xFFFFFFFF), 0u);
  EXPECT_EQ(rr(7, 1, 0x80000000, 0xFFFFFFFF), 0x80000000u);
}

TEST(ExecuteInt, X0StaysZero) {
  Harness h;
  h.step(enc::opimm(0, 0, 0, 5));  // addi zero,zero,5
  EXPECT_EQ(h.t.x[0], 0u);
  h.t.x[kA1] = 7;
  h.step(enc::op(0, 0, 0, kA1, kA1));  // add zero,a1,a1
  EXPECT_EQ(h.t.x[0], 0u);
  h.step(enc::u(0x37, 0, 0x12345));  // lui zero
  EXPECT_EQ(h.t.x[0], 0u);
  const uint32_t pc = h.t.pc;
  EXPECT_EQ(h.run(enc::j(0, 8)).trap, Trap::kNone);  // jal zero,+8 (no link)
  EXPECT_EQ(h.t.pc, pc + 8);
  EXPECT_EQ(h.t.x[0], 0u);
  // A load into x0 still accesses memory (and may fault) but writes nothing.
  h.env.set_word(0x1100, 0xDEADBEEF);
  h.t.x[kA1] = 0x1100;
  h.step(enc::load(2, 0, kA1, 0));
  EXPECT_EQ(h.t.x[0], 0u);
  EXPECT_EQ(h.env.loads, 1);
}

TEST(ExecuteInt, Branches) {
  struct Case {
    uint32_t f3, a, b;
    bool taken;
  };
  const Case cases[] = {
      {0, 5, 5, true},          {0, 5, 6, false},                                      // beq
      {1, 5, 6, true},          {1, 5, 5, false},                                      // bne
      {4, 0xFFFFFFFF, 0, true}, {4, 0, 0xFFFFFFFF, false}, {4, 3, 3, false},           // blt: signed
      {5, 0, 0xFFFFFFFF, true}, {5, 3, 3, true},           {5, 0xFFFFFFFF, 0, false},  // bge
      {6, 0, 0xFFFFFFFF, true}, {6, 0xFFFFFFFF, 0, false}, {6, 3, 3, false},           // bltu: unsigned
      {7, 0xFFFFFFFF, 0, true}, {7, 3, 3, true},           {7, 0, 0xFFFFFFFF, false},  // bgeu
  };
  for (const Case& c : cases) {
    for (int32_t offset : {-4096, -8, 16, 4094 & ~3}) {
      Harness h;
      h.t.pc = 0x10000;
      h.t.x[kA1] = c.a;
      h.t.x[kA2] = c.b;
      const ExecResult r = h.run(enc::b(c.f3, kA1, kA2, offset));
      EXPECT_EQ(r.trap, Trap::kNone);
      EXPECT_EQ(h.t.pc, c.taken ? 0x10000u + static_cast<uint32_t>(offset) : 0x10004u)
          << "funct3 " << c.f3 << " a " << c.a << " b " << c.b << " offset " << offset;
    }
  }
}

TEST(ExecuteInt, MisalignedJumpTargetTraps) {
  // Without the C extension a taken branch or jump to pc % 4 != 0 raises an
  // instruction-address-misaligned exception (spec 2.2, 2.5); nothing changes.
  Harness h;
  h.t.pc = 0x10000;
  h.t.x[kA1] = 1;
  ThreadState before = h.t;
  ExecResult r = h.run(enc::b(0, kA1, kA1, 6));  // beq a1,a1,+6: taken
  EXPECT_EQ(r.trap, Trap::kInstructionMisaligned);
  EXPECT_EQ(r.fault_addr, 0x10006u);
  EXPECT_TRUE(same_state(before, h.t));
  r = h.run(enc::b(1, kA1, kA1, 6));  // bne not taken: no exception
  EXPECT_EQ(r.trap, Trap::kNone);
  EXPECT_EQ(h.t.pc, 0x10004u);

  before = h.t;
  r = h.run(enc::j(1, 2));  // jal ra,+2
  EXPECT_EQ(r.trap, Trap::kInstructionMisaligned);
  EXPECT_TRUE(same_state(before, h.t));

  h.t.x[kA1] = 0x2002;
  before = h.t;
  r = h.run(enc::i(0x67, 0, 1, kA1, 0));  // jalr ra,0(a1) -> 0x2002
  EXPECT_EQ(r.trap, Trap::kInstructionMisaligned);
  EXPECT_EQ(r.fault_addr, 0x2002u);
  EXPECT_TRUE(same_state(before, h.t));
}

TEST(ExecuteInt, Jumps) {
  Harness h;
  h.t.pc = 0x10000;
  h.step<false>(enc::opimm(0, 0, 0, 0));              // nop, pc 0x10004
  EXPECT_EQ(h.run(enc::j(1, -4)).trap, Trap::kNone);  // jal ra,-4
  EXPECT_EQ(h.t.pc, 0x10000u);
  EXPECT_EQ(h.t.x[1], 0x10008u);
  EXPECT_EQ(h.run(enc::j(5, 0xFFFFE & ~3)).trap, Trap::kNone);  // jal t0, +1 MiB - 4
  EXPECT_EQ(h.t.pc, 0x10000u + 0xFFFFCu);
  EXPECT_EQ(h.t.x[5], 0x10004u);

  // jalr clears bit 0 of the target; rd == rs1 reads the old value.
  h.t.pc = 0x4000;
  h.t.x[kA0] = 0x2001;
  EXPECT_EQ(h.run(enc::i(0x67, 0, kA0, kA0, 3)).trap, Trap::kNone);  // jalr a0,3(a0) -> 0x2004
  EXPECT_EQ(h.t.pc, 0x2004u);
  EXPECT_EQ(h.t.x[kA0], 0x4004u);
  h.t.x[kA1] = 0x3000;
  EXPECT_EQ(h.run(enc::i(0x67, 0, kA1, kA1, -2048)).trap, Trap::kNone);
  EXPECT_EQ(h.t.pc, 0x2800u);
}

TEST(ExecuteInt, SystemInstructions) {
  Harness h;
  h.t.x[kA0] = 42;
  ThreadState before = h.t;
  EXPECT_EQ(h.run(0x00000073).trap, Trap::kEcall);  // pc not advanced
  EXPECT_TRUE(same_state(before, h.t));
  EXPECT_EQ(h.run(0x00100073).trap, Trap::kEbreak);
  EXPECT_TRUE(same_state(before, h.t));
  EXPECT_EQ(h.run(0x10500073).trap, Trap::kWfi);  // wfi: pc advanced
  EXPECT_EQ(h.t.pc, before.pc + 4);
  h.step(0x0FF0000F);  // fence: no-op
  h.step(0x8330000F);  // fence.tso
  h.step(0x0000100F);  // fence.i
  EXPECT_EQ(h.t.pc, before.pc + 16);
  EXPECT_EQ(h.env.loads + h.env.stores, 0);
}

TEST(ExecuteInt, TesseraControl) {
  Harness h;
  const uint32_t pc = h.t.pc;
  EXPECT_EQ(h.run(enc::r(0x0B, 1, 0, 0, 0, 0)).trap, Trap::kBarrier);  // bar.sync
  EXPECT_EQ(h.t.pc, pc + 4);
  EXPECT_EQ(h.run(enc::r(0x0B, 1, 1, 0, 0, 0)).trap, Trap::kThreadExit);  // exit
}

TEST(ExecuteInt, IllegalInstructionChangesNothing) {
  Harness h;
  h.t.x[kA0] = 1;
  const ThreadState before = h.t;
  const ExecResult r = execute<false>(decode(0xFFFFFFFF), h.t, h.env);
  EXPECT_EQ(r.trap, Trap::kIllegalInstruction);
  EXPECT_TRUE(same_state(before, h.t));
  EXPECT_EQ(execute<true>(decode(0), h.t, h.env).trap, Trap::kIllegalInstruction);
  EXPECT_TRUE(same_state(before, h.t));
}

TEST(ExecuteInt, TrapNames) {
  EXPECT_STREQ(trap_name(Trap::kNone), "none");
  EXPECT_STREQ(trap_name(Trap::kIllegalInstruction), "illegal instruction");
  EXPECT_STREQ(trap_name(Trap::kLoadAccessFault), "load access fault");
  EXPECT_STREQ(trap_name(Trap::kThreadExit), "thread exit");
  EXPECT_STREQ(trap_name(Trap::kInstructionMisaligned), "instruction address misaligned");
}

// ---- Zicsr ----

TEST(ExecuteCsr, ReadOnlyCounterWithX0DoesNotWrite) {
  Harness h;
  h.env.csrs[csr::kCycle] = 1234;
  h.step(enc::csr(2, kA0, csr::kCycle, 0));  // csrrs a0,cycle,zero
  EXPECT_EQ(h.t.x[kA0], 1234u);
  h.step(enc::csr(3, kA1, csr::kCycle, 0));  // csrrc a1,cycle,zero
  EXPECT_EQ(h.t.x[kA1], 1234u);
  h.step(enc::csr(6, kA2, csr::kCycle, 0));  // csrrsi a2,cycle,0
  h.step(enc::csr(7, kA2, csr::kCycle, 0));  // csrrci a2,cycle,0
  EXPECT_EQ(h.env.csr_writes, 0);
  EXPECT_EQ(h.env.csr_reads, 4);
}

TEST(ExecuteCsr, WritesToReadOnlyCsrsAreIllegal) {
  Harness h;
  h.env.csrs[csr::kTidX] = 7;
  h.env.csr_writable[csr::kTidX] = true;  // even if the env would accept it: 0xCxx is read-only
  h.t.x[kA1] = 1;
  const ThreadState before = h.t;
  EXPECT_EQ(h.run(enc::csr(2, kA0, csr::kTidX, kA1)).trap, Trap::kIllegalInstruction);   // csrrs with a1
  EXPECT_EQ(h.run(enc::csr(1, 0, csr::kCycle, kA1)).trap, Trap::kIllegalInstruction);    // csrrw
  EXPECT_EQ(h.run(enc::csr(5, kA0, csr::kMhartid, 0)).trap, Trap::kIllegalInstruction);  // csrrwi, even zimm 0
  EXPECT_TRUE(same_state(before, h.t));
  EXPECT_EQ(h.env.csr_writes, 0);
  h.step(enc::csr(2, kA0, csr::kTidX, 0));  // reading is fine
  EXPECT_EQ(h.t.x[kA0], 7u);
}

TEST(ExecuteCsr, UnknownCsrIsIllegal) {
  Harness h;
  const ThreadState before = h.t;
  EXPECT_EQ(h.run(enc::csr(2, kA0, 0x7C0, 0)).trap, Trap::kIllegalInstruction);
  EXPECT_TRUE(same_state(before, h.t));
}

TEST(ExecuteCsr, ReadWriteSetClear) {
  Harness h;
  constexpr uint16_t kScratch = 0x800;  // a custom read/write CSR in the env
  h.env.csrs[kScratch] = 0xF0;
  h.env.csr_writable[kScratch] = true;
  h.t.x[kA1] = 0x0F;
  h.step(enc::csr(2, kA0, kScratch, kA1));  // csrrs: old to a0, set bits
  EXPECT_EQ(h.t.x[kA0], 0xF0u);
  EXPECT_EQ(h.env.csrs[kScratch], 0xFFu);
  h.t.x[kA1] = 0x11;
  h.step(enc::csr(3, kA0, kScratch, kA1));  // csrrc
  EXPECT_EQ(h.t.x[kA0], 0xFFu);
  EXPECT_EQ(h.env.csrs[kScratch], 0xEEu);
  h.t.x[kA1] = 0x1234;
  h.step(enc::csr(1, kA0, kScratch, kA1));  // csrrw
  EXPECT_EQ(h.t.x[kA0], 0xEEu);
  EXPECT_EQ(h.env.csrs[kScratch], 0x1234u);
  h.step(enc::csr(5, kA0, kScratch, 31));  // csrrwi zimm 31
  EXPECT_EQ(h.env.csrs[kScratch], 31u);
  h.step(enc::csr(7, kA0, kScratch, 1));  // csrrci zimm 1
  EXPECT_EQ(h.env.csrs[kScratch], 30u);
  h.step(enc::csr(6, kA0, kScratch, 0x11));  // csrrsi zimm 17
  EXPECT_EQ(h.env.csrs[kScratch], 31u);
  // csrrw with rd = x0 does not read the CSR (spec 9.1).
  const int reads = h.env.csr_reads;
  h.step(enc::csr(1, 0, kScratch, kA1));
  EXPECT_EQ(h.env.csr_reads, reads);
  EXPECT_EQ(h.env.csrs[kScratch], 0x1234u);
}

TEST(ExecuteCsr, FloatingPointCsrsLiveInThreadState) {
  Harness h;
  h.t.x[kA1] = 0xFFFFFFFF;
  h.step(enc::csr(1, kA0, csr::kFcsr, kA1));  // csrrw a0,fcsr,a1: only 8 bits exist
  EXPECT_EQ(h.t.x[kA0], 0u);
  EXPECT_EQ(h.t.fcsr, 0xFFu);
  h.step(enc::csr(2, kA0, csr::kFrm, 0));  // frm = fcsr[7:5]
  EXPECT_EQ(h.t.x[kA0], 7u);
  h.step(enc::csr(2, kA0, csr::kFflags, 0));  // fflags = fcsr[4:0]
  EXPECT_EQ(h.t.x[kA0], 0x1Fu);
  h.step(enc::csr(7, kA0, csr::kFflags, 0x05));  // csrrci fflags,5: clear NX and OF
  EXPECT_EQ(h.t.fcsr, 0xFAu);
  h.step(enc::csr(5, kA0, csr::kFrm, 0x1A));  // csrrwi frm,26: only 3 bits (2 = RDN)
  EXPECT_EQ(h.t.x[kA0], 7u);
  EXPECT_EQ(h.t.fcsr, (2u << 5) | 0x1Au);
  h.step(enc::csr(5, kA0, csr::kFflags, 0));  // csrrwi fflags,0
  EXPECT_EQ(h.t.fcsr, 2u << 5);
  h.step(enc::csr(6, kA0, csr::kFcsr, 0x10));  // csrrsi fcsr,16: NV
  EXPECT_EQ(h.t.x[kA0], 0x40u);
  EXPECT_EQ(h.t.fcsr, 0x50u);
  EXPECT_EQ(h.env.csr_reads + h.env.csr_writes, 0);
}

}  // namespace
}  // namespace tessera::isa
