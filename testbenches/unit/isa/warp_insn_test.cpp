// The Tessera warp-level instructions, assembled by binutils from the .insn
// forms of docs/firmware-abi.md (warp_insns.S), decode to the right Op,
// registers, unit and scoreboard view, and disassemble to our names; the
// reserved forms around them are illegal, and a lone thread (a control
// core) cannot execute them.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "isa/warp_ops.h"
#include "unit/isa/objdump_text.h"

namespace tessera::isa::warp_insn_test {
namespace {

struct Expected {
  Op op;
  uint8_t rd, rs1, rs2, rs3;
  Unit unit;
  const char* text;
};

// In the order of warp_insns.S. Register numbers: ra=1 sp=2 gp=3 t0=5 t1=6
// t2=7 s0=8 s1=9 a0=10 a1=11 a2=12 a3=13 a4=14 a5=15 s2=18 s3=19 s4=20 s5=21
// s10=26 s11=27 t3=28 t4=29 t6=31.
constexpr Expected kExpected[] = {
    {Op::kShflIdx, 10, 11, 12, 13, Unit::kLdst, "shfl.idx\ta0,a1,a2,a3"},
    {Op::kShflUp, 5, 6, 7, 28, Unit::kLdst, "shfl.up\tt0,t1,t2,t3"},
    {Op::kShflDown, 8, 9, 18, 19, Unit::kLdst, "shfl.down\ts0,s1,s2,s3"},
    {Op::kShflXor, 31, 0, 29, 26, Unit::kLdst, "shfl.xor\tt6,zero,t4,s10"},
    {Op::kVoteBallot, 10, 11, 12, 0, Unit::kSp, "vote.ballot\ta0,a1,a2"},
    {Op::kVoteAny, 15, 27, 0, 0, Unit::kSp, "vote.any\ta5,s11,zero"},
    {Op::kVoteAll, 1, 2, 3, 0, Unit::kSp, "vote.all\tra,sp,gp"},
    {Op::kActivemask, 14, 0, 0, 0, Unit::kSp, "activemask\ta4"},
    {Op::kSyncwarp, 0, 11, 0, 0, Unit::kCtrl, "syncwarp\ta1"},
    {Op::kBarRedPopc, 10, 11, 0, 0, Unit::kCtrl, "bar.red.popc\ta0,a1"},
    {Op::kBarRedAnd, 6, 7, 0, 0, Unit::kCtrl, "bar.red.and\tt1,t2"},
    {Op::kBarRedOr, 20, 21, 0, 0, Unit::kCtrl, "bar.red.or\ts4,s5"},
    {Op::kMembarCta, 0, 0, 0, 0, Unit::kLdst, "membar.cta"},
};

TEST(WarpInsn, DocumentedEncodingsDecodeAndDisassemble) {
  const auto lines = test::read_objdump(ISA_WARP_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  for (size_t n = 0; n < lines.size(); ++n) {
    const Expected& e = kExpected[n];
    SCOPED_TRACE(lines[n].source);
    const Inst i = decode(lines[n].word);
    EXPECT_EQ(i.op, e.op);
    EXPECT_EQ(i.rd, e.rd);
    EXPECT_EQ(i.rs1, e.rs1);
    EXPECT_EQ(i.rs2, e.rs2);
    if (e.op <= Op::kShflXor) {
      EXPECT_EQ(i.rs3, e.rs3);
    }
    EXPECT_EQ(i.unit, e.unit);
    EXPECT_TRUE(is_warp_op(i.op));
    EXPECT_FALSE(i.is_load || i.is_store || i.is_control);
    EXPECT_EQ(disassemble(i, lines[n].addr), e.text);
  }
}

TEST(WarpInsn, ScoreboardViewNamesEveryOperand) {
  const auto lines = test::read_objdump(ISA_WARP_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  // shfl.idx a0,a1,a2,a3: value, lane operand and mask are all sources.
  Inst i = decode(lines[0].word);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 11);
  EXPECT_EQ(i.src[1], 12);
  EXPECT_EQ(i.src[2], 13);
  // shfl.xor t6,zero,t4,s10: x0 is no register.
  i = decode(lines[3].word);
  EXPECT_EQ(i.src[0], kNoReg);
  EXPECT_EQ(i.src[2], 26);
  // vote.ballot a0,a1,a2: predicate and mask.
  i = decode(lines[4].word);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 11);
  EXPECT_EQ(i.src[1], 12);
  EXPECT_EQ(i.src[2], kNoReg);
  // activemask a4: a destination only.
  i = decode(lines[7].word);
  EXPECT_EQ(i.dst, 14);
  EXPECT_EQ(i.src[0], kNoReg);
  // syncwarp a1: a source only.
  i = decode(lines[8].word);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], 11);
  // bar.red.popc a0,a1.
  i = decode(lines[9].word);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 11);
  EXPECT_EQ(i.src[1], kNoReg);
  // membar.cta: nothing.
  i = decode(lines[12].word);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], kNoReg);
}

// R-type custom-0 word: funct7, rs2, rs1, funct3, rd.
constexpr uint32_t r(uint32_t f3, uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x0B;
}

TEST(WarpInsn, ReservedFormsAreIllegal) {
  const uint32_t illegal[] = {
      r(3, 9, 10, 11, 12),  // funct7 9: first unused
      r(3, 0x7F, 0, 0, 0),  // funct7 127
      r(3, 3, 10, 11, 0),   // activemask with rs1
      r(3, 3, 10, 0, 11),   // activemask with rs2
      r(3, 4, 10, 11, 0),   // syncwarp with rd
      r(3, 4, 0, 11, 12),   // syncwarp with rs2
      r(3, 5, 10, 11, 12),  // bar.red.popc with rs2
      r(3, 7, 10, 11, 1),   // bar.red.or with rs2
      r(3, 8, 1, 0, 0),     // membar.cta with rd
      r(3, 8, 0, 1, 0),     // membar.cta with rs1
      r(3, 8, 0, 0, 1),     // membar.cta with rs2
      r(4, 0, 10, 11, 12),  // custom-0 funct3 4 (still free)
  };
  for (uint32_t w : illegal) {
    const Inst inst = decode(w);
    EXPECT_EQ(inst.op, Op::kIllegal) << std::hex << w << " decoded as " << op_name(inst.op);
  }
}

// A control core runs one thread: the warp-level instructions are illegal
// there, and execute() leaves the thread unchanged.
class NoMemory : public ExecEnv {
 public:
  MemStatus load(uint32_t, unsigned, uint32_t*, bool) override { return MemStatus::kAccessFault; }
  MemStatus store(uint32_t, unsigned, uint32_t) override { return MemStatus::kAccessFault; }
  MemStatus load_reserved(uint32_t, uint32_t*) override { return MemStatus::kAccessFault; }
  MemStatus store_conditional(uint32_t, uint32_t, bool*) override { return MemStatus::kAccessFault; }
  bool csr_read(uint16_t, uint32_t*) override { return false; }
  bool csr_write(uint16_t, uint32_t) override { return false; }
};

TEST(WarpInsn, IllegalForOneThread) {
  const auto lines = test::read_objdump(ISA_WARP_INSNS_OBJDUMP);
  NoMemory env;
  for (const auto& line : lines) {
    SCOPED_TRACE(line.source);
    ThreadState t;
    t.pc = 0x80000000;
    t.x[10] = 77;
    const ExecResult r = execute<true>(decode(line.word), t, env);
    EXPECT_EQ(r.trap, Trap::kIllegalInstruction);
    EXPECT_EQ(t.pc, 0x80000000u);
    EXPECT_EQ(t.x[10], 77u);
  }
}

}  // namespace
}  // namespace tessera::isa::warp_insn_test
