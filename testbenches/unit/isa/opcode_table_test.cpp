// The opcode table (isa/opcodes.h): one row per Op, unique mnemonics, every
// disassembly format, and the classification the decoder copies into Inst.
// The standard encodings and their text come from binutils (riscv64-unknown-
// elf-as and objdump -d -M no-aliases, with the `0x` our branch targets
// carry); the Tessera ones from the .insn forms of docs/firmware-abi.md.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::isa {
namespace {

using namespace test;

TEST(OpcodeTable, EveryOpHasOneRowInEnumOrder) {
  ASSERT_EQ(kOpCount, op_table::kOps.size());
  for (unsigned n = 0; n < kOpCount; ++n) {
    const Op op = static_cast<Op>(n);
    SCOPED_TRACE(n);
    EXPECT_EQ(info(op).op, op);
    ASSERT_NE(info(op).name, nullptr);
    EXPECT_NE(std::string(info(op).name), "");
    EXPECT_STREQ(op_name(op), info(op).name);
  }
  EXPECT_STREQ(info(Op::kIllegal).name, "illegal");
  EXPECT_STREQ(op_name(Op::kCount), "illegal");
}

TEST(OpcodeTable, MnemonicsAreUnique) {
  std::set<std::string> seen;
  for (const OpInfo& o : op_table::kOps) EXPECT_TRUE(seen.insert(o.name).second) << o.name << " appears twice";
}

struct Sample {
  uint32_t word;
  uint32_t pc;
  const char* text;
};

// At least one encoding per Fmt; the test checks that every format appears.
constexpr Sample kSamples[] = {
    {0x12345537, 0x0, "lui\ta0,0x12345"},
    {0x010000ef, 0x4, "jal\tra,0x14"},
    {0xfeb50ce3, 0x8, "beq\ta0,a1,0x0"},
    {0xff412783, 0xc, "lw\ta5,-12(sp)"},
    {0x00852507, 0x10, "flw\tfa0,8(a0)"},
    {0x00641323, 0x14, "sh\tt1,6(s0)"},
    {0xfe95ae27, 0x18, "fsw\tfs1,-4(a1)"},
    {0xffb58513, 0x1c, "addi\ta0,a1,-5"},
    {0x40735293, 0x20, "srai\tt0,t1,0x7"},
    {0x033904b3, 0x24, "mul\ts1,s2,s3"},
    {0x68c59543, 0x28, "fmadd.s\tfa0,fa1,fa2,fa3,rtz"},
    {0x5800f053, 0x2c, "fsqrt.s\tft0,ft1"},
    {0xc0059553, 0x30, "fcvt.w.s\ta0,fa1,rtz"},
    {0xd016f653, 0x34, "fcvt.s.wu\tfa2,a3"},
    {0xa0b52553, 0x38, "feq.s\ta0,fa0,fa1"},
    {0xf00e81d3, 0x3c, "fmv.w.x\tft3,t4"},
    {0x0310000f, 0x40, "fence\trw,w"},
    {0x8330000f, 0x44, "fence.tso"},
    {0x00000073, 0x48, "ecall"},
    {0x0035a573, 0x4c, "csrrs\ta0,fcsr,a1"},
    {0x0021d073, 0x50, "csrrwi\tzero,frm,3"},
    {0x1405a52f, 0x54, "lr.w.aq\ta0,(a1)"},
    {0x0ed7262f, 0x58, "amoswap.w.aqrl\ta2,a3,(a4)"},
    {0x1a63a2af, 0x5c, "sc.w.rl\tt0,t1,(t2)"},
    // Tessera (docs/firmware-abi.md)
    {0xff011e5b, 0x0, "ld.v4\tt3,-16(sp)"},
    {0xfea46c5b, 0x0, "fst.v2\tfa0,-8(s0)"},
    {0x72c5f52b, 0x0, "atom.cas64\ta0,a2,a4,(a1)"},
    {0x00c5e52b, 0x0, "atom.fadd\ta0,a2,(a1)"},
    {0x0005850b, 0x0, "sfu.sin\tfa0,fa1"},
    {0x0070207b, 0x0, "tx.abort\t7"},
    {0x0000100b, 0x0, "bar.sync"},
    {0x9d24a40b, 0x0, "shfl.down\ts0,s1,s2,s3"},
    {0x020db78b, 0x0, "vote.any\ta5,s11,zero"},
    {0x0600370b, 0x0, "activemask\ta4"},
    {0x0805b00b, 0x0, "syncwarp\ta1"},
    {0x0a05b50b, 0x0, "bar.red.popc\ta0,a1"},
    {0x00000000, 0x0, "illegal\t0x00000000"},
};

TEST(OpcodeTable, DisassemblyOfEachFormatMatchesExactly) {
  std::set<Fmt> formats;
  for (const Sample& s : kSamples) {
    const Inst i = decode(s.word);
    EXPECT_EQ(disassemble(i, s.pc), s.text) << std::hex << s.word;
    formats.insert(info(i.op).fmt);
  }
  EXPECT_EQ(formats.size(), static_cast<size_t>(Fmt::kImm) + 1) << "a format without a sample";
}

TEST(OpcodeTable, UnitsAndMemoryClassesOfRepresentativeInstructions) {
  EXPECT_EQ(info(Op::kAdd).unit, Unit::kSp);
  EXPECT_EQ(info(Op::kAdd).mem, Mem::kNone);
  EXPECT_EQ(info(Op::kLw).unit, Unit::kLdst);
  EXPECT_EQ(info(Op::kLw).mem, Mem::kLoad);
  EXPECT_EQ(info(Op::kLw).bytes, 4);
  EXPECT_EQ(info(Op::kSb).mem, Mem::kStore);
  EXPECT_EQ(info(Op::kSb).bytes, 1);
  EXPECT_TRUE(has(Op::kLhu, opflag::kUnsigned));
  EXPECT_FALSE(has(Op::kLh, opflag::kUnsigned));
  EXPECT_EQ(info(Op::kAmoaddW).mem, Mem::kAmoAdd);
  EXPECT_EQ(info(Op::kFdivS).unit, Unit::kSfu);
  EXPECT_EQ(info(Op::kFdivS).lat, Lat::kSfu);
  EXPECT_EQ(info(Op::kFmulS).unit, Unit::kSp);
  EXPECT_EQ(info(Op::kMul).lat, Lat::kImul);
  EXPECT_EQ(info(Op::kRemu).lat, Lat::kIdiv);
  EXPECT_EQ(info(Op::kFence).mem, Mem::kFence);
  EXPECT_EQ(info(Op::kFenceI).mem, Mem::kNone);
  EXPECT_EQ(info(Op::kBarSync).unit, Unit::kCtrl);
  EXPECT_EQ(info(Op::kLdV4).group, 4);
  EXPECT_EQ(info(Op::kLdV4).bytes, 16);
  EXPECT_EQ(info(Op::kAtomCas64).mem, Mem::kAmoCas);
  EXPECT_EQ(info(Op::kAtomCas64).group, 2);
  EXPECT_TRUE(is_wide_memory(Op::kFstV2) && !is_atomic64(Op::kFstV2));
  EXPECT_TRUE(is_atomic64(Op::kAtomExch64) && !is_wide_memory(Op::kAtomExch64));
  EXPECT_TRUE(has(Op::kLdgW, opflag::kReadOnly) && has(Op::kLdgW, opflag::kSmOnly));
  EXPECT_EQ(info(Op::kShflXor).unit, Unit::kLdst);
  EXPECT_TRUE(is_warp_collective(Op::kShflXor) && is_warp_collective(Op::kActivemask));
  EXPECT_TRUE(is_warp_op(Op::kMembarCta) && !is_warp_collective(Op::kSyncwarp));
  EXPECT_FALSE(is_warp_op(Op::kBarSync) || is_warp_op(Op::kTxBegin));
  EXPECT_TRUE(is_tx_op(Op::kTxAbort) && !is_tx_op(Op::kEcall));
  EXPECT_TRUE(has(Op::kBne, opflag::kControl) && has(Op::kEcall, opflag::kControl));
  EXPECT_FALSE(has(Op::kWfi, opflag::kControl));
}

// Loads read, stores write, LR reads, SC writes, AMOs both.
TEST(OpcodeTable, MemoryClassesSayWhatIsReadAndWritten) {
  EXPECT_TRUE(reads_memory(Mem::kLoad) && !writes_memory(Mem::kLoad));
  EXPECT_TRUE(!reads_memory(Mem::kStore) && writes_memory(Mem::kStore));
  EXPECT_TRUE(reads_memory(Mem::kLr) && !writes_memory(Mem::kLr));
  EXPECT_TRUE(!reads_memory(Mem::kSc) && writes_memory(Mem::kSc));
  EXPECT_TRUE(reads_memory(Mem::kAmoCas) && writes_memory(Mem::kAmoSwap));
  EXPECT_FALSE(reads_memory(Mem::kFence) || writes_memory(Mem::kFence) || reads_memory(Mem::kNone));
}

// Rows that contradict each other would give the timing models wrong answers.
TEST(OpcodeTable, RowsAreConsistent) {
  for (const OpInfo& o : op_table::kOps) {
    SCOPED_TRACE(o.name);
    const bool access = o.mem != Mem::kNone && o.mem != Mem::kFence;
    EXPECT_EQ(o.unit == Unit::kSfu, o.lat == Lat::kSfu);
    EXPECT_TRUE(o.mem == Mem::kNone || o.unit == Unit::kLdst);
    EXPECT_TRUE(o.lat != Lat::kMem || o.unit == Unit::kLdst);
    EXPECT_TRUE(!access || o.lat == Lat::kMem);
    EXPECT_EQ(access, o.bytes != 0);
    EXPECT_GE(o.group, 1);
    EXPECT_TRUE(o.group == 1 || o.bytes == 4 * o.group);
    EXPECT_TRUE((o.flags & opflag::kRm) == 0 || is_fp(o.rd) || is_fp(o.rs1));
    EXPECT_TRUE((o.flags & opflag::kUnsigned) == 0 || o.mem == Mem::kLoad);
    EXPECT_TRUE((o.flags & opflag::kCollective) == 0 || (o.flags & opflag::kWarp) != 0);
    EXPECT_TRUE(o.fmt != Fmt::kLoad || o.mem == Mem::kNone || o.mem == Mem::kLoad);
    EXPECT_TRUE(o.fmt != Fmt::kStore || o.mem == Mem::kStore);
  }
}

// The decoder fills the scoreboard view from the register roles: x0 as a
// destination is no register, f registers are 32 and up.
TEST(OpcodeTable, RegisterRolesGiveTheScoreboardView) {
  const Inst cvt = decode(0xc0059553);  // fcvt.w.s a0,fa1,rtz
  EXPECT_EQ(cvt.dst, 10);
  EXPECT_EQ(cvt.src[0], kFpRegBase + 11);
  EXPECT_EQ(cvt.src[1], kNoReg);
  const Inst fsw = decode(0xfe95ae27);  // fsw fs1,-4(a1)
  EXPECT_EQ(fsw.dst, kNoReg);
  EXPECT_EQ(fsw.src[0], 11);
  EXPECT_EQ(fsw.src[1], kFpRegBase + 9);
  EXPECT_TRUE(fsw.is_store && !fsw.is_load);
  EXPECT_EQ(fsw.mem_bytes, 4);
  const Inst csr = decode(0x0021d073);  // csrrwi zero,frm,3
  EXPECT_EQ(csr.dst, kNoReg);
  EXPECT_EQ(csr.src[0], kNoReg);        // zimm, not a register
  const Inst cas = decode(0x72c5f52b);  // atom.cas64 a0,a2,a4,(a1)
  EXPECT_EQ(cas.dst, 10);
  EXPECT_EQ(cas.src[0], 11);
  EXPECT_EQ(cas.src[1], 12);
  EXPECT_EQ(cas.src[2], 14);
  EXPECT_EQ(cas.group, 2);
  EXPECT_EQ(cas.lat, Lat::kMem);
  EXPECT_TRUE(cas.is_load && cas.is_store);
  const Inst lr = decode(0x1405a52f);  // lr.w.aq a0,(a1)
  EXPECT_TRUE(lr.is_load && !lr.is_store);
  EXPECT_EQ(lr.src[1], kNoReg);
  EXPECT_EQ(decode(0x033904b3).lat, Lat::kImul);  // mul
}

// A register group must fit the register file: fst.v4 from ft29 would run
// past f31, ld.v2 into x0 would write x0, ld.v4 from t5 past x31.
TEST(OpcodeTable, RegisterGroupsOutsideTheFileAreIllegal) {
  EXPECT_EQ(decode(enc::s(0x5B, 7, 0, 28, 16)).op, Op::kFstV4);  // fst.v4 ft8,16(zero)
  EXPECT_EQ(decode(enc::s(0x5B, 7, 0, 29, 16)).op, Op::kIllegal);
  EXPECT_EQ(decode(enc::i(0x5B, 0, 10, 11, 8)).op, Op::kLdV2);  // ld.v2 a0,8(a1)
  EXPECT_EQ(decode(enc::i(0x5B, 0, 0, 11, 8)).op, Op::kIllegal);
  EXPECT_EQ(decode(enc::i(0x5B, 1, 28, 11, 8)).op, Op::kLdV4);  // ld.v4 t3: t3..t6
  EXPECT_EQ(decode(enc::i(0x5B, 1, 29, 11, 8)).op, Op::kIllegal);
}

}  // namespace
}  // namespace tessera::isa
