// Executor, D extension (unprivileged spec 20191213 chapter 12): rounding
// modes, canonical NaNs, exact fflags, conversions between the formats and
// to/from integers, fmin/fmax, comparisons, fclass, fld/fsd, and the
// NaN-boxing of singles in the 64-bit f registers (12.2).
// Double bit patterns: 1.0 = 0x3FF0000000000000; 52 fraction bits, so in
// [1,2) one ulp is 2^-52. Expected values are IEEE 754 facts (computed with
// exact rational arithmetic), not outputs of the model.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::isa::execute_d_test {
namespace {

using namespace test;

constexpr uint32_t kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7;
constexpr uint32_t kNx = 1, kUf = 2, kOf = 4, kDz = 8, kNv = 16;

constexpr uint64_t kOne = 0x3FF0000000000000, kTwo = 0x4000000000000000, kThree = 0x4008000000000000;
constexpr uint64_t kMinusOne = 0xBFF0000000000000;
constexpr uint64_t kPosZero = 0, kNegZero = 0x8000000000000000;
constexpr uint64_t kPosInf = 0x7FF0000000000000, kNegInf = 0xFFF0000000000000;
constexpr uint64_t kQNan = 0x7FF8000000000000, kQNanPayload = 0x7FF8000000012345;
constexpr uint64_t kSNan = 0x7FF0000000000001;
constexpr uint64_t kDblMax = 0x7FEFFFFFFFFFFFFF, kMinNormal = 0x0010000000000000, kMinSubnormal = 1;
constexpr uint64_t kCanonicalNan = 0x7FF8000000000000;
constexpr uint64_t kThird = 0x3FD5555555555555;  // 1/3 rounded to nearest (and down)

// OP-FP funct7 with fmt = D; fcvt.s.d, fcvt.d.s.
constexpr uint32_t d(uint32_t f7_single) { return f7_single | 1; }
constexpr uint32_t kCvtSD = 0x20, kCvtDS = 0x21;

struct Out {
  uint64_t value;  // f register bits, or the x register
  uint32_t flags;
};

// Executes one instruction word with f1=a, f2=b, f3=c, a1 = low word of a,
// frm = frm, tracking flags; runs it untracked too and checks the result is
// the same and fcsr untouched. Results: f4 or a0.
Out run_d(uint32_t word, uint64_t a, uint64_t b = 0, uint64_t c = 0, uint32_t frm = 0, bool int_result = false) {
  Out out{};
  for (const bool track : {true, false}) {
    Harness h;
    h.t.set_fd(1, a);
    h.t.set_fd(2, b);
    h.t.set_fd(3, c);
    h.t.x[11] = static_cast<uint32_t>(a);
    h.t.fcsr = frm << 5;
    if (track) {
      h.step<true>(word);
      out = {int_result ? h.t.x[10] : h.t.fd(4), h.t.fcsr & 0x1F};
      EXPECT_EQ(h.t.fcsr >> 5, frm);
    } else {
      h.step<false>(word);
      EXPECT_EQ(int_result ? h.t.x[10] : h.t.fd(4), out.value) << "untracked result differs for " << std::hex << word;
      EXPECT_EQ(h.t.fcsr, frm << 5) << "untracked execution changed fcsr";
    }
  }
  return out;
}

Out fop(uint32_t f7v, uint32_t rm, uint64_t a, uint64_t b) { return run_d(enc::fp(d(f7v), rm, 4, 1, 2), a, b); }
Out fma(uint32_t opcode, uint32_t rm, uint64_t a, uint64_t b, uint64_t c) {
  return run_d(enc::r4(opcode, rm, 4, 1, 2, 3) | 1u << 25, a, b, c);
}

void expect(Out got, uint64_t value, uint32_t flags, const char* what) {
  EXPECT_EQ(got.value, value) << what << std::hex << ": got 0x" << got.value << " want 0x" << value;
  EXPECT_EQ(got.flags, flags) << what << std::hex << ": flags 0x" << got.flags << " want 0x" << flags;
}

TEST(ExecuteD, ExactArithmetic) {
  expect(fop(f7::kAdd, kRne, 0x3FF8000000000000, 0x4002000000000000), 0x400E000000000000, 0, "1.5+2.25=3.75");
  expect(fop(f7::kSub, kRne, kOne, kThree), 0xC000000000000000, 0, "1-3=-2");
  expect(fop(f7::kMul, kRne, kTwo, kThree), 0x4018000000000000, 0, "2*3=6");
  expect(fop(f7::kDiv, kRne, kThree, kTwo), 0x3FF8000000000000, 0, "3/2=1.5");
  expect(fop(f7::kSub, kRne, kOne, kOne), kPosZero, 0, "1-1=+0");
  expect(fop(f7::kSub, kRdn, kOne, kOne), kNegZero, 0, "1-1=-0 rounding down");
  expect(run_d(enc::fp(d(f7::kSqrt), kRne, 4, 1, 0), 0x4010000000000000), kTwo, 0, "sqrt 4");
  expect(fma(0x43, kRne, kTwo, kThree, kOne), 0x401C000000000000, 0, "fmadd 2*3+1=7");
  expect(fma(0x47, kRne, kTwo, kThree, kOne), 0x4014000000000000, 0, "fmsub 2*3-1=5");
  expect(fma(0x4B, kRne, kTwo, kThree, kOne), 0xC014000000000000, 0, "fnmsub -(2*3)+1=-5");
  expect(fma(0x4F, kRne, kTwo, kThree, kOne), 0xC01C000000000000, 0, "fnmadd -(2*3)-1=-7");
}

TEST(ExecuteD, EveryRoundingModeOfOneThird) {
  expect(fop(f7::kDiv, kRne, kOne, kThree), kThird, kNx, "1/3 rne");
  expect(fop(f7::kDiv, kRtz, kOne, kThree), kThird, kNx, "1/3 rtz");
  expect(fop(f7::kDiv, kRdn, kOne, kThree), kThird, kNx, "1/3 rdn");
  expect(fop(f7::kDiv, kRup, kOne, kThree), kThird + 1, kNx, "1/3 rup");
  expect(fop(f7::kDiv, kRmm, kOne, kThree), kThird, kNx, "1/3 rmm");
  expect(fop(f7::kDiv, kRdn, kMinusOne, kThree), 0x8000000000000000 | (kThird + 1), kNx, "-1/3 rdn");
  // frm from fcsr when rm is dyn.
  expect(run_d(enc::fp(d(f7::kDiv), kDyn, 4, 1, 2), kOne, kThree, 0, kRup), kThird + 1, kNx, "1/3 dyn=rup");
  expect(run_d(enc::fp(d(f7::kSqrt), kRne, 4, 1, 0), kTwo), 0x3FF6A09E667F3BCD, kNx, "sqrt 2");
}

TEST(ExecuteD, TiesGoToEvenOrAwayFromZero) {
  // 1 + 2^-53 lies halfway between 1 and 1 + 2^-52.
  constexpr uint64_t kHalfUlp = 0x3CA0000000000000;
  expect(fop(f7::kAdd, kRne, kOne, kHalfUlp), kOne, kNx, "tie to even");
  expect(fop(f7::kAdd, kRmm, kOne, kHalfUlp), kOne + 1, kNx, "tie away");
  expect(fop(f7::kAdd, kRmm, kMinusOne, 0x8000000000000000 | kHalfUlp), kMinusOne + 1, kNx, "negative tie away");
  // Fused: 2^-53 * 1 + 1 is the same tie, with no rounding of the product.
  expect(fma(0x43, kRmm, kHalfUlp, kOne, kOne), kOne + 1, kNx, "fma tie away");
  expect(fma(0x43, kRne, kHalfUlp, kOne, kOne), kOne, kNx, "fma tie to even");
}

TEST(ExecuteD, OverflowUnderflowAndSpecialResults) {
  expect(fop(f7::kMul, kRne, kDblMax, kTwo), kPosInf, kOf | kNx, "max*2");
  expect(fop(f7::kMul, kRtz, kDblMax, kTwo), kDblMax, kOf | kNx, "max*2 rtz");
  expect(fop(f7::kMul, kRmm, kDblMax, kTwo), kPosInf, kOf | kNx, "max*2 rmm");
  expect(fop(f7::kMul, kRne, kMinNormal, 0x3FE0000000000000), 0x0008000000000000, 0, "exact subnormal");
  expect(fop(f7::kMul, kRne, kMinSubnormal, 0x3FE0000000000000), kPosZero, kUf | kNx, "min subnormal/2");
  expect(fop(f7::kMul, kRmm, kMinSubnormal, 0x3FE0000000000000), kMinSubnormal, kUf | kNx, "min subnormal/2 rmm");
  expect(fop(f7::kDiv, kRne, kOne, kPosZero), kPosInf, kDz, "1/0");
  expect(fop(f7::kDiv, kRne, kMinusOne, kPosZero), kNegInf, kDz, "-1/0");
  expect(fop(f7::kDiv, kRne, kPosZero, kPosZero), kCanonicalNan, kNv, "0/0");
  expect(fop(f7::kSub, kRne, kPosInf, kPosInf), kCanonicalNan, kNv, "inf-inf");
  expect(run_d(enc::fp(d(f7::kSqrt), kRne, 4, 1, 0), kMinusOne), kCanonicalNan, kNv, "sqrt -1");
}

TEST(ExecuteD, NaNsAreCanonicalAndSignallingOnesRaiseInvalid) {
  expect(fop(f7::kAdd, kRne, kQNanPayload, kOne), kCanonicalNan, 0, "qNaN payload dropped");
  expect(fop(f7::kAdd, kRne, kSNan, kOne), kCanonicalNan, kNv, "sNaN");
  expect(fop(f7::kMul, kRmm, kOne, kSNan), kCanonicalNan, kNv, "sNaN rmm");
  // inf * 0 signals invalid even with a quiet NaN addend (spec 11.6 / 12.4).
  expect(fma(0x43, kRne, kPosInf, kPosZero, kQNan), kCanonicalNan, kNv, "inf*0+qNaN");
}

TEST(ExecuteD, SignInjectionMovesAllSixtyFourBits) {
  expect(fop(f7::kSgnj, 0, kQNanPayload, kMinusOne), 0x8000000000000000 | kQNanPayload, 0, "fsgnj.d keeps payload");
  expect(fop(f7::kSgnj, 1, kMinusOne, kMinusOne), kOne, 0, "fsgnjn.d");
  expect(fop(f7::kSgnj, 2, kMinusOne, kMinusOne), kOne, 0, "fsgnjx.d");
  // A NaN-boxed single is just bits to fsgnj.d.
  expect(fop(f7::kSgnj, 0, fp::box(0x3F800000), kPosZero), 0x7FFFFFFF3F800000, 0, "fsgnj.d of a boxed single");
}

TEST(ExecuteD, MinMaxFollowTheSpec) {
  expect(fop(f7::kMinMax, 0, kNegZero, kPosZero), kNegZero, 0, "fmin(-0,+0)");
  expect(fop(f7::kMinMax, 1, kNegZero, kPosZero), kPosZero, 0, "fmax(-0,+0)");
  expect(fop(f7::kMinMax, 0, kQNan, kTwo), kTwo, 0, "fmin(qNaN,2)");
  expect(fop(f7::kMinMax, 1, kSNan, kTwo), kTwo, kNv, "fmax(sNaN,2)");
  expect(fop(f7::kMinMax, 0, kSNan, kQNanPayload), kCanonicalNan, kNv, "fmin of two NaNs");
  expect(fop(f7::kMinMax, 1, kOne, kThree), kThree, 0, "fmax(1,3)");
}

TEST(ExecuteD, ComparisonsAndClass) {
  const auto cmp = [](uint32_t f3, uint64_t a, uint64_t b) {
    return run_d(enc::fp(d(f7::kCmp), f3, 10, 1, 2), a, b, 0, 0, true);
  };
  expect(cmp(2, kOne, kOne), 1, 0, "feq");
  expect(cmp(2, kPosZero, kNegZero), 1, 0, "feq +0 -0");
  expect(cmp(2, kQNan, kOne), 0, 0, "feq qNaN: quiet");
  expect(cmp(2, kSNan, kOne), 0, kNv, "feq sNaN");
  expect(cmp(1, kOne, kTwo), 1, 0, "flt");
  expect(cmp(1, kQNan, kOne), 0, kNv, "flt qNaN signals");
  expect(cmp(0, kTwo, kTwo), 1, 0, "fle");
  const auto cls = [](uint64_t a) { return run_d(enc::fp(d(f7::kMvXClass), 1, 10, 1, 0), a, 0, 0, 0, true).value; };
  EXPECT_EQ(cls(kNegInf), 1u << 0);
  EXPECT_EQ(cls(kMinusOne), 1u << 1);
  EXPECT_EQ(cls(0x800FFFFFFFFFFFFF), 1u << 2);
  EXPECT_EQ(cls(kNegZero), 1u << 3);
  EXPECT_EQ(cls(kPosZero), 1u << 4);
  EXPECT_EQ(cls(kMinSubnormal), 1u << 5);
  EXPECT_EQ(cls(kOne), 1u << 6);
  EXPECT_EQ(cls(kPosInf), 1u << 7);
  EXPECT_EQ(cls(kSNan), 1u << 8);
  EXPECT_EQ(cls(kQNan), 1u << 9);
}

TEST(ExecuteD, ConversionsToAndFromIntegers) {
  const auto to_w = [](uint32_t rm, uint64_t a, bool u = false) {
    return run_d(enc::fp(d(f7::kCvtWS), rm, 10, 1, u ? 1 : 0), a, 0, 0, 0, true);
  };
  expect(to_w(kRne, 0x4004000000000000), 2, kNx, "2.5 rne");
  expect(to_w(kRmm, 0x4004000000000000), 3, kNx, "2.5 rmm");
  expect(to_w(kRdn, 0xC004000000000000), static_cast<uint32_t>(-3), kNx, "-2.5 rdn");
  expect(to_w(kRtz, 0xC1E0000000000000), 0x80000000, 0, "-2^31 exact");
  expect(to_w(kRtz, 0x41E65A0BC0000000), 0x7FFFFFFF, kNv, "3e9 saturates");
  expect(to_w(kRtz, kQNan), 0x7FFFFFFF, kNv, "NaN");
  expect(to_w(kRtz, kNegInf), 0x80000000, kNv, "-inf");
  expect(to_w(kRtz, 0x41E65A0BC0000000, true), 3000000000u, 0, "3e9 unsigned");
  expect(to_w(kRtz, kMinusOne, true), 0, kNv, "-1 unsigned");
  expect(to_w(kRtz, 0xBFE0000000000000, true), 0, kNx, "-0.5 unsigned rounds to 0");
  const auto from_w = [](uint32_t v, bool u = false) { return run_d(enc::fp(d(f7::kCvtSW), 0, 4, 11, u ? 1 : 0), v); };
  expect(from_w(static_cast<uint32_t>(-5)), 0xC014000000000000, 0, "fcvt.d.w -5");
  expect(from_w(0x80000000), 0xC1E0000000000000, 0, "fcvt.d.w INT_MIN");
  expect(from_w(0xFFFFFFFF, true), 0x41EFFFFFFFE00000, 0, "fcvt.d.wu UINT_MAX");
}

TEST(ExecuteD, ConversionsBetweenSingleAndDouble) {
  const auto to_s = [](uint32_t rm, uint64_t a) { return run_d(enc::fp(kCvtSD, rm, 4, 1, 1), a); };
  // The single result is NaN-boxed.
  expect(to_s(kRne, kThird), fp::box(0x3EAAAAAB), kNx, "1/3 rne");
  expect(to_s(kRtz, kThird), fp::box(0x3EAAAAAA), kNx, "1/3 rtz");
  expect(to_s(kRmm, kThird), fp::box(0x3EAAAAAB), kNx, "1/3 rmm");
  expect(to_s(kRne, 0x7E37E43C8800759C), fp::box(0x7F800000), kOf | kNx, "1e300 overflows");
  expect(to_s(kRtz, 0x7E37E43C8800759C), fp::box(0x7F7FFFFF), kOf | kNx, "1e300 rtz");
  expect(to_s(kRne, kSNan), fp::box(0x7FC00000), kNv, "sNaN");
  expect(to_s(kRne, 0x3690000000000000), fp::box(0x00000000), kUf | kNx, "2^-150 underflows to 0");
  const auto to_d = [](uint64_t a) { return run_d(enc::fp(kCvtDS, 0, 4, 1, 0), a); };
  expect(to_d(fp::box(0x3DCCCCCD)), 0x3FB99999A0000000, 0, "0.1f exact");
  expect(to_d(fp::box(0x7F800001)), kCanonicalNan, kNv, "single sNaN");
  // A single not NaN-boxed reads as the canonical NaN (quiet: no flag).
  expect(to_d(0x000000003F800000), kCanonicalNan, 0, "unboxed input");
}

TEST(ExecuteD, SingleOperandsMustBeNaNBoxed) {
  // fadd.s of 1.0f + a register whose upper half is not all ones.
  Harness h;
  h.t.set_fd(1, fp::box(0x3F800000));
  h.t.set_fd(2, 0x000000003F800000);
  h.step<true>(enc::fp(f7::kAdd, kRne, 4, 1, 2));
  EXPECT_EQ(h.t.fd(4), fp::box(0x7FC00000));
  EXPECT_EQ(h.t.fcsr & 0x1F, 0u);  // the canonical NaN is quiet
  // Transfers take the low 32 bits unchecked: fmv.x.w, and fsw below.
  h.step<true>(enc::fp(f7::kMvXClass, 0, 10, 2, 0));
  EXPECT_EQ(h.t.x[10], 0x3F800000u);
  // fmv.w.x boxes.
  h.t.x[11] = 0x40000000;
  h.step<true>(enc::fp(f7::kMvWX, 0, 5, 11, 0));
  EXPECT_EQ(h.t.fd(5), fp::box(0x40000000));
}

TEST(ExecuteD, FldAndFsdMoveEightBytes) {
  Harness h;
  const uint32_t addr = TestEnv::kBase + 0x200;
  h.t.x[11] = addr;
  h.env.set_word(addr + 8, 0x89ABCDEF);
  h.env.set_word(addr + 12, 0x01234567);
  h.step(enc::i(0x07, 3, 4, 11, 8));  // fld f4, 8(a1)
  EXPECT_EQ(h.t.fd(4), 0x0123456789ABCDEFu);
  h.step(enc::s(0x27, 3, 11, 4, 16));  // fsd f4, 16(a1)
  EXPECT_EQ(h.env.word(addr + 16), 0x89ABCDEFu);
  EXPECT_EQ(h.env.word(addr + 20), 0x01234567u);
  // fsw of a double register stores its low word.
  h.step(enc::s(0x27, 2, 11, 4, 24));
  EXPECT_EQ(h.env.word(addr + 24), 0x89ABCDEFu);
  // Doublewords must be 8-byte aligned.
  const ThreadState before = h.t;
  ExecResult r = h.run(enc::i(0x07, 3, 4, 11, 4));
  EXPECT_EQ(r.trap, Trap::kLoadMisaligned);
  EXPECT_EQ(r.fault_addr, addr + 4);
  r = h.run(enc::s(0x27, 3, 11, 4, 12));
  EXPECT_EQ(r.trap, Trap::kStoreMisaligned);
  EXPECT_TRUE(same_state(before, h.t));
  // The read-only page refuses the store and leaves memory unchanged.
  h.t.x[11] = TestEnv::kBase;
  r = h.run(enc::s(0x27, 3, 11, 4, 0));
  EXPECT_EQ(r.trap, Trap::kStoreAccessFault);
  EXPECT_EQ(h.env.word(TestEnv::kBase), 0u);
}

TEST(ExecuteD, ExactConversionsRejectAReservedDynamicMode) {
  Harness h;
  h.t.fcsr = 5u << 5;  // frm 5 is reserved
  const ExecResult r = h.run(enc::fp(kCvtDS, kDyn, 4, 1, 0));
  EXPECT_EQ(r.trap, Trap::kIllegalInstruction);
}

}  // namespace
}  // namespace tessera::isa::execute_d_test
