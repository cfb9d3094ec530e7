// Golden test of the RVV 1.0 subset: for every instruction of vector_insns.S
// (assembled by the RISC-V binutils with -march=rv32imafv), our vector
// decoder accepts the word and our disassembler prints exactly what GNU
// objdump prints. The vector CSR accesses go through the scalar decoder.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "isa/vector.h"
#include "unit/isa/objdump_text.h"

namespace tessera::isa::vec {
namespace {

std::string expected_text(const isa::test::ObjdumpLine& l) {
  return l.operands.empty() ? l.mnemonic : l.mnemonic + "\t" + l.operands;
}

TEST(VectorGolden, EveryFormMatchesObjdump) {
  const auto lines = isa::test::read_objdump(ISA_VECTOR_INSNS_OBJDUMP);
  // vector_insns.S has over 300 instructions; a parse failure must not pass silently.
  ASSERT_GT(lines.size(), 300u);
  std::set<VOp> seen;
  unsigned csr_lines = 0;
  for (const auto& l : lines) {
    SCOPED_TRACE(l.source);
    ASSERT_NE(l.mnemonic.rfind(".", 0), 0u) << "objdump did not recognise an instruction of vector_insns.S";
    if (l.mnemonic.rfind("csrr", 0) == 0) {
      const Inst scalar = decode(l.word);
      EXPECT_NE(scalar.op, Op::kIllegal);
      EXPECT_EQ(isa::disassemble(scalar, l.addr), expected_text(l));
      ++csr_lines;
      continue;
    }
    const VInst inst = decode_vector(l.word);
    EXPECT_NE(inst.op, VOp::kIllegal);
    EXPECT_EQ(inst.raw, l.word);
    EXPECT_EQ(disassemble(inst), expected_text(l));
    // The scalar decoder is unchanged: a core without a vector unit still
    // sees an illegal instruction.
    EXPECT_EQ(decode(l.word).op, Op::kIllegal);
    seen.insert(inst.op);
  }
  EXPECT_EQ(csr_lines, 9u);
  for (unsigned op = 1; op < static_cast<unsigned>(VOp::kCount); ++op) {
    EXPECT_EQ(seen.count(static_cast<VOp>(op)), 1u) << "vector_insns.S lacks VOp " << op;
  }
}

// Random words of the vector opcode spaces (vector_random.S): objdump is the
// oracle both ways. Where it prints a mnemonic of the subset (the set
// vector_insns.S shows) we decode the word and print the same text; where we
// decode a word it prints our text. So no supported encoding is missed and no
// reserved one is accepted.
TEST(VectorGolden, RandomWordsAgreeWithObjdump) {
  std::set<std::string> supported;
  for (const auto& l : isa::test::read_objdump(ISA_VECTOR_INSNS_OBJDUMP)) {
    if (l.mnemonic.rfind("csrr", 0) != 0) supported.insert(l.mnemonic);
  }
  ASSERT_GT(supported.size(), 150u);
  const auto lines = isa::test::read_objdump(ISA_VECTOR_RANDOM_OBJDUMP);
  ASSERT_EQ(lines.size(), 24000u);
  unsigned accepted = 0;
  for (const auto& l : lines) {
    const VInst inst = decode_vector(l.word);
    if (supported.count(l.mnemonic) != 0) {
      EXPECT_NE(inst.op, VOp::kIllegal) << l.source;
    }
    if (inst.op != VOp::kIllegal) {
      EXPECT_EQ(disassemble(inst), expected_text(l)) << l.source;
      ++accepted;
    }
  }
  // A few thousand of the words fall into the subset; a decoder that
  // rejected everything must not pass.
  EXPECT_GT(accepted, 2000u);
}

// Encodings next to the subset that objdump knows but Tessera does not
// support must decode as illegal, never as a neighbour.
TEST(VectorGolden, UnsupportedNeighboursAreIllegal) {
  const uint32_t words[] = {
      0x02057087,  // vle64.v v1,(a0): EEW 64 > ELEN
      0x22050087,  // vlseg2e8.v: segment load (nf = 1)
      0x03050087,  // vle8ff.v: fault-only-first (lumop 10000)
      0x02850087,  // vl1re8.v: whole register (lumop 01000)
      0x02b50087,  // vlm.v: mask load (lumop 01011)
      0x12050087,  // mew = 1
      0x5c2150d7,  // vfmerge.vfm v1,v2,ft2,v0
      0x5e2180d7,  // vmv.v.v with vs2 != 0 (reserved)
      0x6421a0d7,  // vmand.mm with vm = 0 (reserved)
      0x4a2110d7,  // vfcvt.f.xu.v: not in the subset
      0x822180d7,  // vsaddu.vv: fixed point, not in the subset
      0x822fb0d7,  // vsaddu.vi
      0x862fa0d7,  // vdiv.vv: integer divide, not in the subset
      0x8200f0d7,  // vsetvl with funct7 != 1000000
      0x00002007,  // flw: scalar
      0x00000013,  // addi: scalar
  };
  for (const uint32_t w : words) {
    EXPECT_EQ(decode_vector(w).op, VOp::kIllegal) << std::hex << w;
    EXPECT_EQ(
        disassemble(decode_vector(w)), "illegal\t0x" + [&] {
          char b[16];
          std::snprintf(b, sizeof b, "%08x", w);
          return std::string(b);
        }());
  }
}

}  // namespace
}  // namespace tessera::isa::vec
