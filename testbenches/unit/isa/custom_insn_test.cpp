// The Tessera custom instructions, assembled by binutils from the .insn forms
// of docs/firmware-abi.md (custom_insns.S), decode to the right Op, registers
// and immediates, and disassemble to our names.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "unit/isa/objdump_text.h"

namespace tessera::isa {
namespace {

struct Expected {
  Op op;
  uint8_t rd, rs1, rs2, rs3;
  int32_t imm;
  Unit unit;
  const char* text;
};

// In the order of custom_insns.S. Register numbers: a0=10 a1=11 a2=12 a3=13
// t0=5 t1=6 t2=7 s0=8 s1=9 s2=18 s10=26 s11=27 t4=29 t6=31 sp=2 gp=3 ra=1;
// ft0=0 ft1=1 ft2=2 fs0=8 fs1=9 fa0=10 fa1=11 fa2=12 fa7=17 fs11=27 ft8=28 ft11=31.
constexpr Expected kExpected[] = {
    {Op::kSfuSin, 10, 11, 0, 0, 0, Unit::kSfu, "sfu.sin\tfa0,fa1"},
    {Op::kSfuCos, 0, 31, 0, 0, 0, Unit::kSfu, "sfu.cos\tft0,ft11"},
    {Op::kSfuEx2, 27, 8, 0, 0, 0, Unit::kSfu, "sfu.ex2\tfs11,fs0"},
    {Op::kSfuLg2, 17, 28, 0, 0, 0, Unit::kSfu, "sfu.lg2\tfa7,ft8"},
    {Op::kSfuRcp, 1, 2, 0, 0, 0, Unit::kSfu, "sfu.rcp\tft1,ft2"},
    {Op::kSfuRsqrt, 9, 12, 0, 0, 0, Unit::kSfu, "sfu.rsqrt\tfs1,fa2"},
    {Op::kBarSync, 0, 0, 0, 0, 0, Unit::kCtrl, "bar.sync"},
    {Op::kExit, 0, 0, 0, 0, 0, Unit::kCtrl, "exit"},
    {Op::kLdgB, 10, 11, 0, 0, -2048, Unit::kLdst, "ldg.b\ta0,-2048(a1)"},
    {Op::kLdgH, 5, 2, 31, 0, 2047, Unit::kLdst, "ldg.h\tt0,2047(sp)"},
    {Op::kLdgW, 10, 11, 4, 0, 4, Unit::kLdst, "ldg.w\ta0,4(a1)"},
    {Op::kLdgBu, 27, 31, 0, 0, 0, Unit::kLdst, "ldg.bu\ts11,0(t6)"},
    {Op::kLdgHu, 1, 3, 30, 31, -2, Unit::kLdst, "ldg.hu\tra,-2(gp)"},
    {Op::kAtomFadd, 10, 11, 12, 0, 0, Unit::kLdst, "atom.fadd\ta0,a2,(a1)"},
    {Op::kAtomInc, 5, 6, 7, 0, 0, Unit::kLdst, "atom.inc\tt0,t2,(t1)"},
    {Op::kAtomDec, 8, 9, 18, 0, 0, Unit::kLdst, "atom.dec\ts0,s2,(s1)"},
    {Op::kAtomCas, 10, 11, 12, 13, 0, Unit::kLdst, "atom.cas\ta0,a2,a3,(a1)"},
    {Op::kAtomCas, 31, 0, 29, 26, 0, Unit::kLdst, "atom.cas\tt6,t4,s10,(zero)"},
};

TEST(CustomInsn, DocumentedEncodingsDecode) {
  const auto lines = test::read_objdump(ISA_CUSTOM_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  for (size_t n = 0; n < lines.size(); ++n) {
    const Expected& e = kExpected[n];
    SCOPED_TRACE(lines[n].source);
    const Inst i = decode(lines[n].word);
    EXPECT_EQ(i.op, e.op);
    EXPECT_EQ(i.rd, e.rd);
    EXPECT_EQ(i.rs1, e.rs1);
    // For I-type (ldg) rs2/rs3 are immediate bits; only check them for R/R4 forms.
    if (e.op < Op::kLdgB || e.op > Op::kLdgHu) {
      EXPECT_EQ(i.rs2, e.rs2);
      if (e.op == Op::kAtomCas) {
        EXPECT_EQ(i.rs3, e.rs3);
      }
    }
    EXPECT_EQ(i.imm, e.imm);
    EXPECT_EQ(i.unit, e.unit);
    EXPECT_EQ(disassemble(i, lines[n].addr), e.text);
  }
}

TEST(CustomInsn, ScoreboardView) {
  const auto lines = test::read_objdump(ISA_CUSTOM_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  // sfu.sin fa0,fa1: f registers in the 32..63 space.
  Inst i = decode(lines[0].word);
  EXPECT_EQ(i.dst, kFpRegBase + 10);
  EXPECT_EQ(i.src[0], kFpRegBase + 11);
  EXPECT_EQ(i.src[1], kNoReg);
  EXPECT_FALSE(i.is_load || i.is_store);
  // bar.sync: nothing.
  i = decode(lines[6].word);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], kNoReg);
  // ldg.w a0,4(a1): a load of 4 bytes.
  i = decode(lines[10].word);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 11);
  EXPECT_EQ(i.src[1], kNoReg);
  EXPECT_TRUE(i.is_load);
  EXPECT_FALSE(i.is_store);
  EXPECT_EQ(i.mem_bytes, 4);
  // ldg.h and ldg.bu sizes.
  EXPECT_EQ(decode(lines[9].word).mem_bytes, 2);
  EXPECT_EQ(decode(lines[11].word).mem_bytes, 1);
  // atom.cas a0,a2,a3,(a1): reads and writes a word, three sources.
  i = decode(lines[16].word);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 11);
  EXPECT_EQ(i.src[1], 12);
  EXPECT_EQ(i.src[2], 13);
  EXPECT_TRUE(i.is_load && i.is_store);
  EXPECT_EQ(i.mem_bytes, 4);
  // atom.cas with base zero: x0 source reported as no register.
  i = decode(lines[17].word);
  EXPECT_EQ(i.src[0], kNoReg);
  EXPECT_EQ(i.src[2], 26);
}

}  // namespace
}  // namespace tessera::isa
