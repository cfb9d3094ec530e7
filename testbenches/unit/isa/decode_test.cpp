// Decoder: reserved encodings, the scoreboard view, units and flags.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::isa {
namespace {

using namespace test;

constexpr uint8_t F(uint8_t n) { return static_cast<uint8_t>(kFpRegBase + n); }

TEST(Decode, ReservedEncodingsAreIllegal) {
  const uint32_t illegal[] = {
      0x00000000,                                   // all zero (and compressed space)
      0xFFFFFFFF,                                   // all ones
      0x00004501,                                   // a compressed instruction (c.li a0,0), low bits != 11
      0x0000B00B & ~3u,                             // low bits 00
      enc::load(3, 10, 11, 0),                      // ld: funct3 3 is RV64
      enc::load(6, 10, 11, 0),                      // lwu: RV64
      enc::store(3, 10, 11, 0),                     // sd: RV64
      enc::b(2, 10, 11, 8),                         // branch funct3 2
      enc::b(3, 10, 11, 8),                         // branch funct3 3
      enc::i(0x67, 1, 1, 10, 0),                    // jalr funct3 1
      enc::opimm(1, 10, 11, 0x020),                 // slli with shamt[5] set (RV64 only)
      enc::opimm(1, 10, 11, 0x400),                 // slli with funct7 0x20
      enc::opimm(5, 10, 11, 0x020),                 // srli with shamt[5]
      enc::opimm(5, 10, 11, 0x600),                 // srai funct7 0x30
      enc::op(0, 0x02, 10, 11, 12),                 // add with funct7 2
      enc::op(1, 0x20, 10, 11, 12),                 // sll with funct7 0x20
      enc::op(0, 0x40, 10, 11, 12),                 // funct7 0x40
      enc::r(0x0F, 2, 0, 0, 0, 0),                  // MISC-MEM funct3 2
      0x00200073,                                   // uret-like SYSTEM word
      0x10200073,                                   // sret (privileged, not supported)
      0x30200073,                                   // mret
      0x00000173,                                   // ecall with rd != 0
      enc::csr(4, 10, 0xC00, 0),                    // SYSTEM funct3 4
      enc::amo(f5::kLr, 10, 11, 12),                // lr.w with rs2 != 0
      enc::amo(0x05, 10, 11, 12),                   // unknown AMO funct5
      enc::r(0x2F, 3, f5::kAdd << 2, 10, 11, 12),   // amoadd.d (RV64A)
      enc::i(0x07, 4, 10, 11, 0),                   // flq (Q)
      enc::s(0x27, 4, 11, 10, 0),                   // fsq (Q)
      enc::fp(f7::kAdd | 2, 0, 10, 11, 12),         // fadd.h (Zfh)
      enc::fp(f7::kAdd | 3, 0, 10, 11, 12),         // fadd.q
      enc::r4(0x43, 0, 10, 11, 12, 13) | 3u << 25,  // fmadd.q
      enc::fp(0x71, 0, 10, 11, 0),                  // fmv.x.d (RV64D)
      enc::fp(0x79, 0, 10, 11, 0),                  // fmv.d.x (RV64D)
      enc::fp(0x20, 0, 10, 11, 0),                  // fcvt.s.s: rs2 must name D
      enc::fp(0x21, 0, 10, 11, 1),                  // fcvt.d.d: rs2 must name S
      enc::fp(0x21, 5, 10, 11, 0),                  // fcvt.d.s rm 5 reserved
      enc::fp(0x69, 6, 10, 11, 0),                  // fcvt.d.w rm 6 reserved
      enc::fp(0x61, 0, 10, 11, 2),                  // fcvt.l.d (RV64)
      enc::fp(0x69, 0, 10, 11, 2),                  // fcvt.d.l (RV64)
      enc::fp(f7::kAdd, 5, 10, 11, 12),             // rm 5 reserved
      enc::fp(f7::kMul, 6, 10, 11, 12),             // rm 6 reserved
      enc::fp(f7::kSqrt, 5, 10, 11, 0), enc::fp(f7::kCvtWS, 6, 10, 11, 0), enc::fp(f7::kCvtSW, 5, 10, 11, 0),
      enc::r4(0x4F, 6, 10, 11, 12, 13),      // fnmadd.s rm 6
      enc::fp(f7::kSqrt, 0, 10, 11, 1),      // fsqrt with rs2 != 0
      enc::fp(f7::kCvtWS, 0, 10, 11, 2),     // fcvt.l.s (RV64)
      enc::fp(f7::kCvtSW, 0, 10, 11, 2),     // fcvt.s.l (RV64)
      enc::fp(f7::kSgnj, 3, 10, 11, 12),     // fsgnj funct3 3
      enc::fp(f7::kMinMax, 2, 10, 11, 12),   // fmin/fmax funct3 2
      enc::fp(f7::kCmp, 3, 10, 11, 12),      // compare funct3 3
      enc::fp(f7::kMvXClass, 2, 10, 11, 0),  // funct3 2
      enc::fp(f7::kMvXClass, 0, 10, 11, 1),  // fmv.x.w with rs2 != 0
      enc::fp(f7::kMvWX, 1, 10, 11, 0),      // fmv.w.x with funct3 1
      enc::fp(0x7C, 0, 10, 11, 0),           // unknown funct7
      // Tessera reserved forms
      enc::r(0x0B, 0, 6, 10, 11, 0),                // sfu funct7 6
      enc::r(0x0B, 0, 0, 10, 11, 1),                // sfu with rs2 != 0
      enc::r(0x0B, 1, 2, 0, 0, 0),                  // custom-0 funct3 1, funct7 2
      enc::r(0x0B, 1, 0, 1, 0, 0),                  // bar.sync with rd != 0
      enc::r(0x0B, 3, 9, 0, 0, 0),                  // custom-0 funct3 3, funct7 9
      enc::i(0x2B, 3, 10, 11, 0),                   // ldg funct3 3
      enc::r(0x2B, 6, 3, 10, 11, 12),               // atom funct7 3
      enc::r4(0x2B, 7, 10, 11, 12, 13) | 2u << 25,  // atom.cas with funct2 2
      enc::r(0x5B, 0, 0, 0, 0, 0),                  // custom-2
      enc::r(0x7B, 4, 0, 0, 0, 0),                  // custom-3 funct3 4 (reserved)
  };
  for (uint32_t w : illegal) {
    const Inst inst = decode(w);
    EXPECT_EQ(inst.op, Op::kIllegal) << std::hex << w << " decoded as " << op_name(inst.op);
    EXPECT_EQ(inst.raw, w);
    EXPECT_EQ(inst.dst, kNoReg);
  }
}

TEST(Decode, IllegalDisassembly) {
  EXPECT_EQ(disassemble(0xFFFFFFFFu, 0), "illegal\t0xffffffff");
  EXPECT_EQ(disassemble(0x00000000u, 0), "illegal\t0x00000000");
}

TEST(Decode, FenceReservedFieldsAreIgnored) {
  // Spec 2.7: fm, rs1 and rd of FENCE are reserved and must be ignored.
  EXPECT_EQ(decode(0x0FF5850Fu).op, Op::kFence);  // rd=a0, rs1=a1
  EXPECT_EQ(decode(0x8FF0000Fu).op, Op::kFence);  // fm=1000 but not rw,rw
  EXPECT_EQ(decode(0x8330000Fu).op, Op::kFenceTso);
  EXPECT_EQ(decode(0x0001100Fu).op, Op::kFenceI);  // fence.i with rs1 != 0
}

TEST(Decode, IntegerScoreboard) {
  Inst i = decode(enc::op(0, 0, 10, 11, 12));  // add a0,a1,a2
  EXPECT_EQ(i.op, Op::kAdd);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 11);
  EXPECT_EQ(i.src[1], 12);
  EXPECT_EQ(i.src[2], kNoReg);
  EXPECT_EQ(i.unit, Unit::kSp);
  EXPECT_FALSE(i.is_load || i.is_store || i.is_control);
  EXPECT_EQ(i.mem_bytes, 0);

  i = decode(enc::op(0, 0, 0, 0, 5));  // add zero,zero,t0
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], kNoReg);
  EXPECT_EQ(i.src[1], 5);

  i = decode(enc::op(4, 1, 10, 11, 12));  // div
  EXPECT_EQ(i.op, Op::kDiv);
  EXPECT_EQ(i.unit, Unit::kSp);

  i = decode(enc::u(0x37, 7, 0x12345));  // lui t2
  EXPECT_EQ(i.op, Op::kLui);
  EXPECT_EQ(i.imm, 0x12345000);
  EXPECT_EQ(i.dst, 7);
  EXPECT_EQ(i.src[0], kNoReg);

  i = decode(enc::opimm(5, 10, 11, 0x400 | 7));  // srai a0,a1,7
  EXPECT_EQ(i.op, Op::kSrai);
  EXPECT_EQ(i.imm, 7);

  i = decode(enc::b(1, 10, 11, -8));  // bne
  EXPECT_EQ(i.op, Op::kBne);
  EXPECT_EQ(i.imm, -8);
  EXPECT_TRUE(i.is_control);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], 10);
  EXPECT_EQ(i.src[1], 11);

  i = decode(enc::j(1, 2048));  // jal ra
  EXPECT_TRUE(i.is_control);
  EXPECT_EQ(i.dst, 1);
  EXPECT_EQ(i.imm, 2048);

  i = decode(enc::i(0x67, 0, 0, 1, 0));  // jalr zero,0(ra)
  EXPECT_TRUE(i.is_control);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], 1);

  i = decode(enc::csr(2, 10, 0xC00, 0));  // csrrs a0,cycle,zero
  EXPECT_EQ(i.op, Op::kCsrrs);
  EXPECT_EQ(i.csr, 0xC00);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], kNoReg);
  EXPECT_EQ(i.unit, Unit::kSp);

  i = decode(enc::csr(5, 10, 0x003, 17));  // csrrwi a0,fcsr,17
  EXPECT_EQ(i.op, Op::kCsrrwi);
  EXPECT_EQ(i.imm, 17);
  EXPECT_EQ(i.src[0], kNoReg);
}

TEST(Decode, MemoryScoreboard) {
  Inst i = decode(enc::load(4, 10, 2, -4));  // lbu a0,-4(sp)
  EXPECT_EQ(i.op, Op::kLbu);
  EXPECT_EQ(i.unit, Unit::kLdst);
  EXPECT_TRUE(i.is_load);
  EXPECT_FALSE(i.is_store);
  EXPECT_EQ(i.mem_bytes, 1);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], 2);

  i = decode(enc::store(1, 2, 11, 6));  // sh a1,6(sp)
  EXPECT_EQ(i.op, Op::kSh);
  EXPECT_TRUE(i.is_store);
  EXPECT_FALSE(i.is_load);
  EXPECT_EQ(i.mem_bytes, 2);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], 2);
  EXPECT_EQ(i.src[1], 11);
  EXPECT_EQ(i.imm, 6);

  i = decode(enc::i(0x07, 2, 10, 2, 8));  // flw fa0,8(sp)
  EXPECT_EQ(i.op, Op::kFlw);
  EXPECT_EQ(i.dst, F(10));
  EXPECT_EQ(i.src[0], 2);
  EXPECT_EQ(i.mem_bytes, 4);

  i = decode(enc::s(0x27, 2, 2, 10, -8));  // fsw fa0,-8(sp)
  EXPECT_EQ(i.op, Op::kFsw);
  EXPECT_EQ(i.src[0], 2);
  EXPECT_EQ(i.src[1], F(10));
  EXPECT_EQ(i.imm, -8);

  i = decode(enc::amo(f5::kAdd, 10, 11, 12, 3));  // amoadd.w.aqrl
  EXPECT_EQ(i.op, Op::kAmoaddW);
  EXPECT_EQ(i.rm, 3);
  EXPECT_TRUE(i.is_load && i.is_store);
  EXPECT_EQ(i.mem_bytes, 4);
  EXPECT_EQ(i.unit, Unit::kLdst);

  i = decode(enc::amo(f5::kLr, 10, 11, 0, 2));  // lr.w.aq
  EXPECT_EQ(i.op, Op::kLrW);
  EXPECT_EQ(i.rm, 2);
  EXPECT_TRUE(i.is_load);
  EXPECT_FALSE(i.is_store);
  EXPECT_EQ(i.src[1], kNoReg);

  i = decode(enc::amo(f5::kSc, 10, 11, 12, 1));  // sc.w.rl
  EXPECT_EQ(i.op, Op::kScW);
  EXPECT_FALSE(i.is_load);
  EXPECT_TRUE(i.is_store);
  EXPECT_EQ(i.src[1], 12);

  i = decode(0x0FF0000Fu);  // fence
  EXPECT_EQ(i.unit, Unit::kLdst);
  EXPECT_EQ(decode(0x0000100Fu).unit, Unit::kLdst);  // fence.i
}

TEST(Decode, FloatScoreboardAndUnits) {
  Inst i = decode(enc::r4(0x43, 7, 1, 2, 3, 4));  // fmadd.s ft1,ft2,ft3,ft4
  EXPECT_EQ(i.op, Op::kFmaddS);
  EXPECT_EQ(i.dst, F(1));
  EXPECT_EQ(i.src[0], F(2));
  EXPECT_EQ(i.src[1], F(3));
  EXPECT_EQ(i.src[2], F(4));
  EXPECT_EQ(i.rm, 7);
  EXPECT_EQ(i.unit, Unit::kSp);

  EXPECT_EQ(decode(enc::fp(f7::kDiv, 0, 1, 2, 3)).unit, Unit::kSfu);
  EXPECT_EQ(decode(enc::fp(f7::kSqrt, 0, 1, 2, 0)).unit, Unit::kSfu);
  EXPECT_EQ(decode(enc::fp(f7::kMul, 0, 1, 2, 3)).unit, Unit::kSp);

  i = decode(enc::fp(f7::kCvtWS, 1, 10, 11, 0));  // fcvt.w.s a0,fa1,rtz
  EXPECT_EQ(i.op, Op::kFcvtWS);
  EXPECT_EQ(i.dst, 10);
  EXPECT_EQ(i.src[0], F(11));
  EXPECT_EQ(i.src[1], kNoReg);
  EXPECT_EQ(i.rm, 1);

  i = decode(enc::fp(f7::kCvtSW, 7, 10, 11, 1));  // fcvt.s.wu fa0,a1
  EXPECT_EQ(i.op, Op::kFcvtSWu);
  EXPECT_EQ(i.dst, F(10));
  EXPECT_EQ(i.src[0], 11);

  i = decode(enc::fp(f7::kCmp, 1, 0, 11, 12));  // flt.s zero,fa1,fa2
  EXPECT_EQ(i.op, Op::kFltS);
  EXPECT_EQ(i.dst, kNoReg);
  EXPECT_EQ(i.src[0], F(11));
  EXPECT_EQ(i.src[1], F(12));

  i = decode(enc::fp(f7::kMvWX, 0, 0, 0, 0));  // fmv.w.x ft0,zero
  EXPECT_EQ(i.dst, F(0));
  EXPECT_EQ(i.src[0], kNoReg);

  i = decode(enc::fp(f7::kMvXClass, 1, 10, 11, 0));
  EXPECT_EQ(i.op, Op::kFclassS);
}

TEST(Decode, ControlUnit) {
  EXPECT_EQ(decode(0x00000073u).unit, Unit::kCtrl);  // ecall
  EXPECT_TRUE(decode(0x00000073u).is_control);
  EXPECT_EQ(decode(0x00100073u).unit, Unit::kCtrl);  // ebreak
  EXPECT_EQ(decode(0x10500073u).unit, Unit::kCtrl);  // wfi
  EXPECT_EQ(decode(0x10500073u).op, Op::kWfi);
  EXPECT_EQ(decode(enc::r(0x0B, 1, 0, 0, 0, 0)).unit, Unit::kCtrl);  // bar.sync
  EXPECT_EQ(decode(enc::r(0x0B, 1, 1, 0, 0, 0)).op, Op::kExit);
}

TEST(Decode, OpNames) {
  EXPECT_STREQ(op_name(Op::kIllegal), "illegal");
  EXPECT_STREQ(op_name(Op::kFcvtWuS), "fcvt.wu.s");
  EXPECT_STREQ(op_name(Op::kAmomaxuW), "amomaxu.w");
  EXPECT_STREQ(op_name(Op::kAtomCas), "atom.cas");
  EXPECT_STREQ(op_name(Op::kCount), "illegal");
}

}  // namespace
}  // namespace tessera::isa
