// The wide memory instructions (custom-2, 0x5B) and the 64-bit atomics
// (custom-1 funct3 3 and funct3 7 funct2 1), assembled by binutils from the
// .insn forms of docs/firmware-abi.md (wide_insns.S): how each word decodes
// and disassembles, the register groups of the scoreboard view, the illegal
// groups, and what each instruction does to registers and memory.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"
#include "unit/isa/objdump_text.h"

namespace tessera::isa::wide_insn_test {
namespace {

using test::enc::i;
using test::enc::r;
using test::enc::r4;
using test::enc::s;

struct Expected {
  Op op;
  uint8_t rd, rs1;
  int32_t imm;
  uint8_t dst, src1, src2, group, bytes;
  bool load, store;
  const char* text;
};

// In the order of wide_insns.S. a0=10 a1=11 a2=12 a4=14 t3=28 t5=30 t6=31
// sp=2 s0=8 s2=18 s4=20; ft0=0 ft8=28 fa0=10; f registers are 32 + n in the
// scoreboard view.
constexpr uint8_t N = kNoReg;
constexpr Expected kExpected[] = {
    {Op::kLdV2, 10, 11, 8, 10, N, N, 2, 8, true, false, "ld.v2\ta0,8(a1)"},
    {Op::kLdV4, 28, 2, -16, 28, N, N, 4, 16, true, false, "ld.v4\tt3,-16(sp)"},
    {Op::kFldV2, 0, 10, 2040, 32, N, N, 2, 8, true, false, "fld.v2\tft0,2040(a0)"},
    {Op::kFldV4, 28, 31, -2048, 60, N, N, 4, 16, true, false, "fld.v4\tft8,-2048(t6)"},
    {Op::kStV2, 0, 10, 0, N, 12, N, 2, 8, false, true, "st.v2\ta2,0(a0)"},
    {Op::kStV4, 16, 11, 48, N, 28, N, 4, 16, false, true, "st.v4\tt3,48(a1)"},
    {Op::kFstV2, 24, 8, -8, N, 42, N, 2, 8, false, true, "fst.v2\tfa0,-8(s0)"},
    {Op::kFstV4, 16, 0, 2032, N, 60, N, 4, 16, false, true, "fst.v4\tft8,2032(zero)"},
    {Op::kAtomAdd64, 10, 11, 0, 10, 12, N, 2, 8, true, true, "atom.add64\ta0,a2,(a1)"},
    {Op::kAtomExch64, 28, 8, 0, 28, 14, N, 2, 8, true, true, "atom.exch64\tt3,a4,(s0)"},
    {Op::kAtomCas64, 10, 11, 0, 10, 12, 14, 2, 8, true, true, "atom.cas64\ta0,a2,a4,(a1)"},
    {Op::kAtomCas64, 30, 0, 0, 30, 18, 20, 2, 8, true, true, "atom.cas64\tt5,s2,s4,(zero)"},
};

TEST(WideInsn, DocumentedEncodingsDecodeAndDisassemble) {
  const auto lines = test::read_objdump(ISA_WIDE_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  for (size_t n = 0; n < lines.size(); ++n) {
    const Expected& e = kExpected[n];
    SCOPED_TRACE(lines[n].source);
    const Inst in = decode(lines[n].word);
    EXPECT_EQ(in.op, e.op);
    EXPECT_EQ(in.rd, e.rd);
    EXPECT_EQ(in.rs1, e.rs1);
    EXPECT_EQ(in.imm, e.imm);
    EXPECT_EQ(in.unit, Unit::kLdst);
    EXPECT_EQ(in.dst, e.dst);
    EXPECT_EQ(in.src[0], e.rs1 == 0 ? kNoReg : e.rs1);
    EXPECT_EQ(in.src[1], e.src1);
    EXPECT_EQ(in.src[2], e.src2);
    EXPECT_EQ(in.group, e.group);
    EXPECT_EQ(in.mem_bytes, e.bytes);
    EXPECT_EQ(in.is_load, e.load);
    EXPECT_EQ(in.is_store, e.store);
    EXPECT_EQ(disassemble(in, lines[n].addr), e.text);
  }
}

TEST(WideInsn, GroupsPastX31OrAtX0AreIllegal) {
  const uint32_t illegal[] = {
      i(0x5B, 0, 0, 10, 0),                    // ld.v2 x0
      i(0x5B, 0, 31, 10, 0),                   // ld.v2 t6: x31, x32
      i(0x5B, 1, 29, 10, 0),                   // ld.v4 t4: x29..x32
      i(0x5B, 1, 0, 10, 0),                    // ld.v4 x0
      i(0x5B, 2, 31, 10, 0),                   // fld.v2 ft11
      i(0x5B, 3, 29, 10, 0),                   // fld.v4 ft9..f32
      s(0x5B, 4, 10, 31, 0),                   // st.v2 t6
      s(0x5B, 4, 10, 0, 0),                    // st.v2 x0
      s(0x5B, 5, 10, 29, 0),                   // st.v4 t4
      s(0x5B, 6, 10, 31, 0),                   // fst.v2 ft11
      s(0x5B, 7, 10, 30, 0),                   // fst.v4 ft10
      r(0x2B, 3, 0, 0, 11, 12),                // atom.add64 rd x0
      r(0x2B, 3, 0, 31, 11, 12),               // atom.add64 rd t6
      r(0x2B, 3, 1, 10, 11, 31),               // atom.exch64 rs2 t6
      r(0x2B, 3, 1, 10, 11, 0),                // atom.exch64 rs2 x0
      r(0x2B, 3, 2, 10, 11, 12),               // custom-1 funct3 3 funct7 2
      r4(0x2B, 7, 10, 11, 12, 31) | 1u << 25,  // atom.cas64 rs3 t6
      r4(0x2B, 7, 0, 11, 12, 14) | 1u << 25,   // atom.cas64 rd x0
      r4(0x2B, 7, 10, 11, 12, 14) | 2u << 25,  // custom-1 funct3 7 funct2 2
  };
  for (uint32_t w : illegal) {
    const Inst in = decode(w);
    EXPECT_EQ(in.op, Op::kIllegal) << std::hex << w << " decoded as " << op_name(in.op);
    EXPECT_EQ(in.dst, kNoReg);
    EXPECT_EQ(in.group, 1);
  }
  // The last registers a group may use.
  EXPECT_EQ(decode(i(0x5B, 0, 30, 10, 0)).op, Op::kLdV2);   // x30, x31
  EXPECT_EQ(decode(i(0x5B, 1, 28, 10, 0)).op, Op::kLdV4);   // x28..x31
  EXPECT_EQ(decode(i(0x5B, 2, 0, 10, 0)).op, Op::kFldV2);   // f0, f1: f0 is a register like any
  EXPECT_EQ(decode(s(0x5B, 7, 10, 28, 0)).op, Op::kFstV4);  // f28..f31
}

// ---- execution ----

constexpr uint32_t kData = test::TestEnv::kBase + 0x200;  // writable

TEST(WideInsn, LdV4LoadsFourWordsIntoTheGroup) {
  test::Harness h;
  for (uint32_t k = 0; k < 4; ++k) h.env.set_word(kData + 16 + 4 * k, 0x11110000u + k);
  h.t.x[11] = kData;
  h.step(i(0x5B, 1, 28, 11, 16));  // ld.v4 t3,16(a1)
  EXPECT_EQ(h.t.x[28], 0x11110000u);
  EXPECT_EQ(h.t.x[29], 0x11110001u);
  EXPECT_EQ(h.t.x[30], 0x11110002u);
  EXPECT_EQ(h.t.x[31], 0x11110003u);
}

TEST(WideInsn, FldV2AndFstV2MoveFloatPairsBitExact) {
  test::Harness h;
  h.env.set_word(kData, test::bits(1.5f));
  h.env.set_word(kData + 4, 0x7FC00001u);  // a non-canonical NaN stays as it is
  h.t.x[10] = kData;
  h.step(i(0x5B, 2, 4, 10, 0));  // fld.v2 ft4,0(a0)
  EXPECT_EQ(h.t.fd(4), fp::box(test::bits(1.5f)));
  EXPECT_EQ(h.t.fd(5), fp::box(0x7FC00001u));
  h.step(s(0x5B, 6, 10, 4, 8));  // fst.v2 ft4,8(a0)
  EXPECT_EQ(h.env.word(kData + 8), test::bits(1.5f));
  EXPECT_EQ(h.env.word(kData + 12), 0x7FC00001u);
}

TEST(WideInsn, StV4StoresTheGroupInRegisterOrder) {
  test::Harness h;
  h.t.x[10] = kData;
  for (uint32_t k = 0; k < 4; ++k) h.t.x[12 + k] = 0xA0 + k;
  h.step(s(0x5B, 5, 10, 12, 32));  // st.v4 a2,32(a0)
  for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(h.env.word(kData + 32 + 4 * k), 0xA0 + k);
}

TEST(WideInsn, MisalignedAddressesFaultAndLeaveRegisters) {
  test::Harness h;
  h.t.x[10] = kData + 8;  // 8-aligned, not 16-aligned
  h.t.x[28] = 7;
  ExecResult res = h.run(i(0x5B, 1, 28, 10, 0));  // ld.v4 t3,0(a0)
  EXPECT_EQ(res.trap, Trap::kLoadMisaligned);
  EXPECT_EQ(res.fault_addr, kData + 8);
  EXPECT_EQ(h.t.x[28], 7u);
  EXPECT_EQ(h.t.pc, 0x8000u);
  res = h.run(s(0x5B, 4, 10, 12, 4));  // st.v2 a2,4(a0): 0x..0C
  EXPECT_EQ(res.trap, Trap::kStoreMisaligned);
  EXPECT_EQ(res.fault_addr, kData + 12);
  h.t.x[11] = kData + 4;
  res = h.run(r(0x2B, 3, 0, 12, 11, 14));  // atom.add64 a2,a4,(a1)
  EXPECT_EQ(res.trap, Trap::kStoreMisaligned);
  EXPECT_EQ(res.fault_addr, kData + 4);
}

TEST(WideInsn, AtomAdd64CarriesIntoTheHighWord) {
  test::Harness h;
  h.env.set_word(kData, 0xFFFFFFF0u);
  h.env.set_word(kData + 4, 0x00000001u);  // 0x1_FFFFFFF0
  h.t.x[11] = kData;
  h.t.x[14] = 0x20;  // + 0x20
  h.t.x[15] = 0;
  h.step(r(0x2B, 3, 0, 12, 11, 14));  // atom.add64 a2,a4,(a1)
  EXPECT_EQ(h.t.x[12], 0xFFFFFFF0u);  // old, low word
  EXPECT_EQ(h.t.x[13], 0x00000001u);  // old, high word
  EXPECT_EQ(h.env.word(kData), 0x00000010u);
  EXPECT_EQ(h.env.word(kData + 4), 0x00000002u);  // 0x2_00000010
}

TEST(WideInsn, AtomExch64SwapsBothWords) {
  test::Harness h;
  h.env.set_word(kData, 1);
  h.env.set_word(kData + 4, 2);
  h.t.x[11] = kData;
  h.t.x[14] = 0xDEAD;
  h.t.x[15] = 0xBEEF;
  h.step(r(0x2B, 3, 1, 12, 11, 14));  // atom.exch64 a2,a4,(a1)
  EXPECT_EQ(h.t.x[12], 1u);
  EXPECT_EQ(h.t.x[13], 2u);
  EXPECT_EQ(h.env.word(kData), 0xDEADu);
  EXPECT_EQ(h.env.word(kData + 4), 0xBEEFu);
}

TEST(WideInsn, AtomCas64StoresOnlyWhenAllSixtyFourBitsMatch) {
  test::Harness h;
  h.env.set_word(kData, 5);
  h.env.set_word(kData + 4, 9);
  h.t.x[11] = kData;
  h.t.x[14] = 5;  // compare: low word matches, high word does not
  h.t.x[15] = 8;
  h.t.x[16] = 100;  // swap
  h.t.x[17] = 200;
  h.step(r4(0x2B, 7, 12, 11, 14, 16) | 1u << 25);  // atom.cas64 a2,a4,a6,(a1)
  EXPECT_EQ(h.t.x[12], 5u);
  EXPECT_EQ(h.t.x[13], 9u);
  EXPECT_EQ(h.env.word(kData), 5u);  // unchanged
  EXPECT_EQ(h.env.word(kData + 4), 9u);
  h.t.x[15] = 9;  // now both match
  h.step(r4(0x2B, 7, 12, 11, 14, 16) | 1u << 25);
  EXPECT_EQ(h.env.word(kData), 100u);
  EXPECT_EQ(h.env.word(kData + 4), 200u);
}

TEST(WideInsn, ValueFunctionsAreSixtyFourBit) {
  EXPECT_EQ(atomic_new_value64(Op::kAtomAdd64, 0xFFFFFFFFull, 1, 0), 0x100000000ull);
  EXPECT_EQ(atomic_new_value64(Op::kAtomExch64, 3, 0x123456789ull, 0), 0x123456789ull);
  EXPECT_EQ(atomic_new_value64(Op::kAtomCas64, 0x100000001ull, 1, 7), 0x100000001ull);
  EXPECT_EQ(atomic_new_value64(Op::kAtomCas64, 0x100000001ull, 0x100000001ull, 7), 7u);
}

}  // namespace
}  // namespace tessera::isa::wide_insn_test
