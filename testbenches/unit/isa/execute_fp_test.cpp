// Executor, F extension and the SFU: rounding modes, canonical NaNs, exact
// fflags, conversions with saturation, fmin/fmax, comparisons, fclass.
// Float bit patterns: 1.0 = 0x3f800000; the significand has 23 fraction bits,
// so in [1,2) one ulp is 2^-23; 2^-k has exponent field 127-k.
#include <gtest/gtest.h>

#include <cmath>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::isa {
namespace {

using namespace test;

constexpr uint32_t kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7;
constexpr uint32_t kNx = 1, kUf = 2, kOf = 4, kDz = 8, kNv = 16;

constexpr uint32_t kOne = 0x3F800000, kTwo = 0x40000000, kThree = 0x40400000, kMinusOne = 0xBF800000;
constexpr uint32_t kPosZero = 0x00000000, kNegZero = 0x80000000;
constexpr uint32_t kPosInf = 0x7F800000, kNegInf = 0xFF800000;
constexpr uint32_t kQNan = 0x7FC00000, kQNanPayload = 0x7FC12345, kNegQNan = 0xFFC00000;
constexpr uint32_t kSNan = 0x7F800001, kNegSNan = 0xFFA00000;
constexpr uint32_t kFltMax = 0x7F7FFFFF, kMinNormal = 0x00800000, kMaxSubnormal = 0x007FFFFF, kMinSubnormal = 1;
constexpr uint32_t kCanonicalNan = 0x7FC00000;

struct FpOut {
  uint32_t value;  // f register bits or x register
  uint32_t flags;
};

// Executes one instruction word with f1=a, f2=b, f3=c, a1=a (for int
// sources), frm = frm, tracking flags; also runs it untracked and checks the
// result is the same and fcsr untouched. Results: f4 or a0.
FpOut run_fp(uint32_t word, uint32_t a, uint32_t b = 0, uint32_t c = 0, uint32_t frm = 0, bool int_result = false) {
  Harness h;
  h.t.set_fs(1, a);
  h.t.set_fs(2, b);
  h.t.set_fs(3, c);
  h.t.x[11] = a;
  h.t.fcsr = frm << 5;
  h.step<true>(word);
  const FpOut out{int_result ? h.t.x[10] : h.t.fs(4), h.t.fcsr & 0x1F};
  EXPECT_EQ(h.t.fcsr >> 5, frm);

  Harness u;
  u.t.set_fs(1, a);
  u.t.set_fs(2, b);
  u.t.set_fs(3, c);
  u.t.x[11] = a;
  u.t.fcsr = frm << 5;
  u.step<false>(word);
  EXPECT_EQ(int_result ? u.t.x[10] : u.t.fs(4), out.value) << "untracked result differs for " << std::hex << word;
  EXPECT_EQ(u.t.fcsr, frm << 5) << "untracked execution changed fcsr";
  return out;
}

// Two-operand OP-FP: f4 = f1 op f2.
FpOut fop(uint32_t f7v, uint32_t rm, uint32_t a, uint32_t b) { return run_fp(enc::fp(f7v, rm, 4, 1, 2), a, b); }
// R4: f4 = fused(f1, f2, f3).
FpOut fma(uint32_t opcode, uint32_t rm, uint32_t a, uint32_t b, uint32_t c) {
  return run_fp(enc::r4(opcode, rm, 4, 1, 2, 3), a, b, c);
}
// fcvt.w.s (unsigned_ = fcvt.wu.s): a0 = convert(f1).
FpOut cvt_w(uint32_t rm, uint32_t a, bool unsigned_ = false) {
  return run_fp(enc::fp(f7::kCvtWS, rm, 10, 1, unsigned_ ? 1 : 0), a, 0, 0, 0, true);
}
// fcvt.s.w (unsigned_ = fcvt.s.wu): f4 = convert(a1).
FpOut cvt_s(uint32_t rm, uint32_t v, bool unsigned_ = false) {
  return run_fp(enc::fp(f7::kCvtSW, rm, 4, 11, unsigned_ ? 1 : 0), v);
}

void expect(FpOut got, uint32_t value, uint32_t flags, const char* what) {
  EXPECT_EQ(got.value, value) << what << std::hex << ": got 0x" << got.value << " want 0x" << value;
  EXPECT_EQ(got.flags, flags) << what << std::hex << ": flags 0x" << got.flags << " want 0x" << flags;
}

TEST(ExecuteFp, ExactArithmetic) {
  expect(fop(f7::kAdd, kRne, 0x3FC00000, 0x40100000), 0x40700000, 0, "1.5+2.25=3.75");
  expect(fop(f7::kSub, kRne, kOne, kThree), 0xC0000000, 0, "1-3=-2");
  expect(fop(f7::kMul, kRne, 0x3FC00000, 0xC0000000), 0xC0400000, 0, "1.5*-2=-3");
  expect(fop(f7::kDiv, kRne, kOne, 0x40800000), 0x3E800000, 0, "1/4=0.25");
  expect(run_fp(enc::fp(f7::kSqrt, kRne, 4, 1, 0), 0x40100000), 0x3FC00000, 0, "sqrt(2.25)=1.5");
  expect(run_fp(enc::fp(f7::kSqrt, kRne, 4, 1, 0), kNegZero), kNegZero, 0, "sqrt(-0)=-0");
}

TEST(ExecuteFp, OneThirdInEveryRoundingMode) {
  // 1/3 = 1.0101...b * 2^-2: fraction 0x2aaaaa, remainder 0.101..b > 1/2 ulp.
  expect(fop(f7::kDiv, kRne, kOne, kThree), 0x3EAAAAAB, kNx, "1/3 rne");
  expect(fop(f7::kDiv, kRtz, kOne, kThree), 0x3EAAAAAA, kNx, "1/3 rtz");
  expect(fop(f7::kDiv, kRdn, kOne, kThree), 0x3EAAAAAA, kNx, "1/3 rdn");
  expect(fop(f7::kDiv, kRup, kOne, kThree), 0x3EAAAAAB, kNx, "1/3 rup");
  expect(fop(f7::kDiv, kRmm, kOne, kThree), 0x3EAAAAAB, kNx, "1/3 rmm");
  expect(fop(f7::kDiv, kRdn, kMinusOne, kThree), 0xBEAAAAAB, kNx, "-1/3 rdn");
  expect(fop(f7::kDiv, kRup, kMinusOne, kThree), 0xBEAAAAAA, kNx, "-1/3 rup");
  expect(fop(f7::kDiv, kRtz, kMinusOne, kThree), 0xBEAAAAAA, kNx, "-1/3 rtz");
  // Dynamic rounding mode from frm.
  expect(run_fp(enc::fp(f7::kDiv, kDyn, 4, 1, 2), kOne, kThree, 0, kRtz), 0x3EAAAAAA, kNx, "1/3 dyn=rtz");
  expect(run_fp(enc::fp(f7::kDiv, kDyn, 4, 1, 2), kOne, kThree, 0, kRmm), 0x3EAAAAAB, kNx, "1/3 dyn=rmm");
}

TEST(ExecuteFp, TiesInEveryRoundingMode) {
  // 1 + 2^-24 is halfway between 1 and 1 + 2^-23 (2^-24 = 0x33800000).
  constexpr uint32_t kHalfUlp = 0x33800000;
  expect(fop(f7::kAdd, kRne, kOne, kHalfUlp), kOne, kNx, "tie rne -> even");
  expect(fop(f7::kAdd, kRmm, kOne, kHalfUlp), 0x3F800001, kNx, "tie rmm -> away");
  expect(fop(f7::kAdd, kRup, kOne, kHalfUlp), 0x3F800001, kNx, "tie rup");
  expect(fop(f7::kAdd, kRdn, kOne, kHalfUlp), kOne, kNx, "tie rdn");
  expect(fop(f7::kAdd, kRtz, kOne, kHalfUlp), kOne, kNx, "tie rtz");
  expect(fop(f7::kSub, kRmm, kMinusOne, kHalfUlp), 0xBF800001, kNx, "-tie rmm -> away");
  expect(fop(f7::kSub, kRdn, kMinusOne, kHalfUlp), 0xBF800001, kNx, "-tie rdn");
  expect(fop(f7::kSub, kRup, kMinusOne, kHalfUlp), kMinusOne, kNx, "-tie rup");
  // 1 + 0.75 ulp (3*2^-25 = 0x33c00000) is nearer to 1 + ulp in rmm too.
  expect(fop(f7::kAdd, kRmm, kOne, 0x33C00000), 0x3F800001, kNx, "rmm not a tie");
  // 1 + 0.25 ulp (2^-25 = 0x33000000) rounds down in rmm.
  expect(fop(f7::kAdd, kRmm, kOne, 0x33000000), kOne, kNx, "rmm below half");
  // 3 * (1 + 3*2^-23) = 3 + 4.5 * 2^-22 (ulp in [2,4) is 2^-22): rne -> +4, rmm -> +5.
  expect(fop(f7::kMul, kRne, kThree, 0x3F800003), 0x40400004, kNx, "mul tie rne");
  expect(fop(f7::kMul, kRmm, kThree, 0x3F800003), 0x40400005, kNx, "mul tie rmm");
  // Exact results stay exact in rmm.
  expect(fop(f7::kAdd, kRmm, 0x3FC00000, 0x40100000), 0x40700000, 0, "rmm exact");
  expect(run_fp(enc::fp(f7::kSqrt, kRmm, 4, 1, 0), 0x40100000), 0x3FC00000, 0, "rmm sqrt exact");
}

TEST(ExecuteFp, ZeroSignDependsOnRoundingMode) {
  // x + (-x) is +0 in every mode except rdn, where it is -0 (IEEE 754 6.3).
  expect(fop(f7::kAdd, kRne, kOne, kMinusOne), kPosZero, 0, "1-1 rne");
  expect(fop(f7::kAdd, kRdn, kOne, kMinusOne), kNegZero, 0, "1-1 rdn");
  expect(fop(f7::kAdd, kRmm, kOne, kMinusOne), kPosZero, 0, "1-1 rmm");
  expect(fop(f7::kAdd, kRne, kNegZero, kNegZero), kNegZero, 0, "-0 + -0");
}

TEST(ExecuteFp, DivideByZeroAndInvalid) {
  expect(fop(f7::kDiv, kRne, kOne, kPosZero), kPosInf, kDz, "1/0");
  expect(fop(f7::kDiv, kRne, kOne, kNegZero), kNegInf, kDz, "1/-0");
  expect(fop(f7::kDiv, kRmm, kMinusOne, kPosZero), kNegInf, kDz, "-1/0 rmm");
  expect(fop(f7::kDiv, kRne, kPosZero, kPosZero), kCanonicalNan, kNv, "0/0");
  expect(fop(f7::kDiv, kRmm, kPosInf, kPosInf), kCanonicalNan, kNv, "inf/inf rmm");
  expect(run_fp(enc::fp(f7::kSqrt, kRne, 4, 1, 0), kMinusOne), kCanonicalNan, kNv, "sqrt(-1)");
  expect(run_fp(enc::fp(f7::kSqrt, kRmm, 4, 1, 0), kMinusOne), kCanonicalNan, kNv, "sqrt(-1) rmm");
  expect(fop(f7::kAdd, kRne, kPosInf, kNegInf), kCanonicalNan, kNv, "inf-inf");
  expect(fop(f7::kMul, kRne, kPosZero, kNegInf), kCanonicalNan, kNv, "0*inf");
  expect(fop(f7::kAdd, kRne, kPosInf, kOne), kPosInf, 0, "inf+1 is exact");
}

TEST(ExecuteFp, NanResultsAreCanonical) {
  expect(fop(f7::kAdd, kRne, kQNanPayload, kOne), kCanonicalNan, 0, "qNaN payload");
  expect(fop(f7::kMul, kRne, kOne, kNegQNan), kCanonicalNan, 0, "negative qNaN");
  expect(fop(f7::kSub, kRtz, kSNan, kOne), kCanonicalNan, kNv, "sNaN signals");
  expect(fop(f7::kDiv, kRne, kOne, kNegSNan), kCanonicalNan, kNv, "negative sNaN signals");
  expect(fop(f7::kAdd, kRmm, kQNanPayload, kOne), kCanonicalNan, 0, "qNaN rmm");
  expect(run_fp(enc::fp(f7::kSqrt, kRne, 4, 1, 0), kQNanPayload), kCanonicalNan, 0, "sqrt(qNaN)");
  expect(run_fp(enc::fp(f7::kSqrt, kRne, 4, 1, 0), kSNan), kCanonicalNan, kNv, "sqrt(sNaN)");
}

TEST(ExecuteFp, Overflow) {
  // FLT_MAX * 2 overflows: rne/rmm/rup give +inf, rtz/rdn the largest finite.
  expect(fop(f7::kMul, kRne, kFltMax, kTwo), kPosInf, kOf | kNx, "max*2 rne");
  expect(fop(f7::kMul, kRmm, kFltMax, kTwo), kPosInf, kOf | kNx, "max*2 rmm");
  expect(fop(f7::kMul, kRup, kFltMax, kTwo), kPosInf, kOf | kNx, "max*2 rup");
  expect(fop(f7::kMul, kRtz, kFltMax, kTwo), kFltMax, kOf | kNx, "max*2 rtz");
  expect(fop(f7::kMul, kRdn, kFltMax, kTwo), kFltMax, kOf | kNx, "max*2 rdn");
  expect(fop(f7::kMul, kRdn, kFltMax | 0x80000000, kTwo), kNegInf, kOf | kNx, "-max*2 rdn");
  expect(fop(f7::kMul, kRup, kFltMax | 0x80000000, kTwo), kFltMax | 0x80000000, kOf | kNx, "-max*2 rup");
  expect(fop(f7::kAdd, kRne, kFltMax, kFltMax), kPosInf, kOf | kNx, "max+max");
}

TEST(ExecuteFp, Underflow) {
  // 2^-126 * 0.5 = 2^-127 is tiny but exact: no flag (underflow needs inexact).
  expect(fop(f7::kMul, kRne, kMinNormal, 0x3F000000), 0x00400000, 0, "exact subnormal");
  // min subnormal * 0.5 = 2^-150: halfway between 0 and 2^-149.
  expect(fop(f7::kMul, kRne, kMinSubnormal, 0x3F000000), kPosZero, kUf | kNx, "2^-150 rne -> 0");
  expect(fop(f7::kMul, kRmm, kMinSubnormal, 0x3F000000), kMinSubnormal, kUf | kNx, "2^-150 rmm");
  expect(fop(f7::kMul, kRup, kMinSubnormal, 0x3F000000), kMinSubnormal, kUf | kNx, "2^-150 rup");
  expect(fop(f7::kMul, kRtz, kMinSubnormal, 0x3F000000), kPosZero, kUf | kNx, "2^-150 rtz");
  expect(fop(f7::kMul, kRdn, kMinSubnormal | 0x80000000, 0x3F000000), 0x80000001, kUf | kNx, "-2^-150 rdn");
  // Tininess is detected after rounding (spec 11.6): (2^-126 - 2^-149) *
  // (1 + 2^-23) = 2^-126 - 2^-172 rounds to 2^-126 with unbounded exponent,
  // so it is not tiny: NX only. Rounded toward zero it stays below 2^-126: UF.
  expect(fop(f7::kMul, kRne, kMaxSubnormal, 0x3F800001), kMinNormal, kNx, "rounds up to 2^-126 rne");
  expect(fop(f7::kMul, kRmm, kMaxSubnormal, 0x3F800001), kMinNormal, kNx, "rounds up to 2^-126 rmm");
  expect(fop(f7::kMul, kRtz, kMaxSubnormal, 0x3F800001), kMaxSubnormal, kUf | kNx, "stays tiny rtz");
}

TEST(ExecuteFp, FusedMultiplyAddRoundsOnce) {
  // a = 1 + 2^-12 (0x3f800800): a*a = 1 + 2^-11 + 2^-24. Rounded alone that
  // is a tie and goes to the even 1 + 2^-11 (0x3f801000); fused with
  // c = -(1 + 2^-11) the exact result 2^-24 (0x33800000) survives.
  constexpr uint32_t kA = 0x3F800800, kC = 0xBF801000, kTiny = 0x33800000;
  expect(fma(0x43, kRne, kA, kA, kC), kTiny, 0, "fmadd fused");
  const FpOut mul = fop(f7::kMul, kRne, kA, kA);
  expect(mul, 0x3F801000, kNx, "separate multiply");
  expect(fop(f7::kAdd, kRne, mul.value, kC), kPosZero, 0, "separate add");
  expect(fma(0x47, kRne, kA, kA, kC ^ 0x80000000), kTiny, 0, "fmsub = a*b - c");
  expect(fma(0x4B, kRne, kA, kA, kC ^ 0x80000000), kTiny | 0x80000000, 0, "fnmsub = -(a*b) + c");
  expect(fma(0x4F, kRne, kA, kA, kC), kTiny | 0x80000000, 0, "fnmadd = -(a*b) - c");
  // Signs with small integers: a=2, b=3, c=1.
  expect(fma(0x43, kRne, kTwo, kThree, kOne), 0x40E00000, 0, "fmadd 2*3+1=7");
  expect(fma(0x47, kRne, kTwo, kThree, kOne), 0x40A00000, 0, "fmsub 2*3-1=5");
  expect(fma(0x4B, kRne, kTwo, kThree, kOne), 0xC0A00000, 0, "fnmsub -(2*3)+1=-5");
  expect(fma(0x4F, kRne, kTwo, kThree, kOne), 0xC0E00000, 0, "fnmadd -(2*3)-1=-7");
  // Rounding modes: 1*1 + 2^-24 is a tie (see TiesInEveryRoundingMode).
  expect(fma(0x43, kRmm, kOne, kOne, 0x33800000), 0x3F800001, kNx, "fmadd rmm tie");
  expect(fma(0x43, kRne, kOne, kOne, 0x33800000), kOne, kNx, "fmadd rne tie");
  expect(fma(0x43, kRup, kOne, kOne, 0x33800000), 0x3F800001, kNx, "fmadd rup");
  expect(fma(0x43, kRmm, kA, kA, kC), kTiny, 0, "fmadd rmm fused exact");
}

TEST(ExecuteFp, FusedMultiplyAddNaNs) {
  // inf * 0 + qNaN signals NV (spec 11.6); a plain qNaN operand does not.
  expect(fma(0x43, kRne, kPosInf, kPosZero, kQNan), kCanonicalNan, kNv, "inf*0+qNaN");
  expect(fma(0x43, kRne, kPosZero, kNegInf, kQNanPayload), kCanonicalNan, kNv, "0*-inf+qNaN");
  expect(fma(0x43, kRne, kOne, kOne, kQNanPayload), kCanonicalNan, 0, "1*1+qNaN");
  expect(fma(0x43, kRne, kSNan, kOne, kOne), kCanonicalNan, kNv, "sNaN*1+1");
  expect(fma(0x43, kRne, kOne, kOne, kSNan), kCanonicalNan, kNv, "1*1+sNaN");
  expect(fma(0x43, kRne, kPosInf, kOne, kNegInf), kCanonicalNan, kNv, "inf - inf");
  expect(fma(0x43, kRne, kPosInf, kPosZero, kOne), kCanonicalNan, kNv, "inf*0+1");
}

TEST(ExecuteFp, FlagsAccrue) {
  Harness h;
  h.t.fcsr = kNx;  // already set: stays set
  h.t.set_fs(1, kOne);
  h.t.set_fs(2, kPosZero);
  h.step<true>(enc::fp(f7::kDiv, kRne, 4, 1, 2));
  EXPECT_EQ(h.t.fcsr, kNx | kDz);
  h.t.set_fs(2, kTwo);
  h.step<true>(enc::fp(f7::kAdd, kRne, 4, 1, 2));  // exact: flags unchanged
  EXPECT_EQ(h.t.fcsr, kNx | kDz);
}

TEST(ExecuteFp, InvalidDynamicRoundingModeIsIllegal) {
  const uint32_t words[] = {
      enc::fp(f7::kAdd, kDyn, 4, 1, 2),    enc::fp(f7::kSqrt, kDyn, 4, 1, 0),   enc::r4(0x43, kDyn, 4, 1, 2, 3),
      enc::fp(f7::kCvtWS, kDyn, 10, 1, 0), enc::fp(f7::kCvtWS, kDyn, 10, 1, 1), enc::fp(f7::kCvtSW, kDyn, 4, 11, 0),
      enc::fp(f7::kCvtSW, kDyn, 4, 11, 1),
  };
  for (uint32_t frm : {5u, 6u, 7u}) {
    for (uint32_t w : words) {
      for (bool track : {false, true}) {
        Harness h;
        h.t.fcsr = frm << 5;
        h.t.set_fs(1, kOne);
        h.t.set_fs(2, kOne);
        const ThreadState before = h.t;
        const ExecResult r = track ? h.run<true>(w) : h.run<false>(w);
        EXPECT_EQ(r.trap, Trap::kIllegalInstruction) << std::hex << w << " frm " << frm;
        EXPECT_TRUE(same_state(before, h.t));
      }
    }
  }
  // Ops without a rounding mode do not care about frm.
  Harness h;
  h.t.fcsr = 5u << 5;
  h.step(enc::fp(f7::kSgnj, 0, 4, 1, 2));
  h.step(enc::fp(f7::kMinMax, 0, 4, 1, 2));
}

TEST(ExecuteFp, ConvertToIntRoundingModes) {
  constexpr uint32_t k2p5 = 0x40200000, kM2p5 = 0xC0200000, k1p5 = 0x3FC00000, k0p5 = 0x3F000000, kM0p5 = 0xBF000000;
  struct Case {
    uint32_t in, rm, out;
  };
  const Case cases[] = {
      {k2p5, kRne, 2},
      {k2p5, kRtz, 2},
      {k2p5, kRdn, 2},
      {k2p5, kRup, 3},
      {k2p5, kRmm, 3},
      {kM2p5, kRne, static_cast<uint32_t>(-2)},
      {kM2p5, kRtz, static_cast<uint32_t>(-2)},
      {kM2p5, kRdn, static_cast<uint32_t>(-3)},
      {kM2p5, kRup, static_cast<uint32_t>(-2)},
      {kM2p5, kRmm, static_cast<uint32_t>(-3)},
      {k1p5, kRne, 2},
      {k1p5, kRtz, 1},
      {k1p5, kRmm, 2},  // 1.5 ties to even 2
      {k0p5, kRne, 0},
      {k0p5, kRmm, 1},
      {k0p5, kRup, 1},
      {k0p5, kRdn, 0},
      {kM0p5, kRne, 0},
      {kM0p5, kRmm, static_cast<uint32_t>(-1)},
      {kM0p5, kRdn, static_cast<uint32_t>(-1)},
      {kM0p5, kRup, 0},
      {0x40700000, kRne, 4},
      {0x40700000, kRtz, 3},  // 3.75
  };
  for (const Case& c : cases) {
    expect(cvt_w(c.rm, c.in), c.out, kNx, "fcvt.w.s");
  }
  expect(cvt_w(kRne, kThree), 3, 0, "exact 3");
  expect(cvt_w(kRtz, kNegZero), 0, 0, "-0");
  // Dynamic mode.
  const FpOut dyn = run_fp(enc::fp(f7::kCvtWS, kDyn, 10, 1, 0), k2p5, 0, 0, kRup, true);
  expect(dyn, 3, kNx, "2.5 dyn=rup");
  // Unsigned conversions of in-range values.
  expect(cvt_w(kRup, k2p5, true), 3, kNx, "wu 2.5 rup");
  expect(cvt_w(kRtz, 0x406CCCCD, true), 3, kNx, "wu 3.7 rtz");
  expect(cvt_w(kRne, 0x4F7FFFFF, true), 0xFFFFFF00, 0, "wu 4294967040");
}

TEST(ExecuteFp, ConvertToIntSaturates) {
  // Spec table 11.4.
  expect(cvt_w(kRne, kQNan), 0x7FFFFFFF, kNv, "w NaN");
  expect(cvt_w(kRne, kNegSNan), 0x7FFFFFFF, kNv, "w -sNaN");
  expect(cvt_w(kRne, kPosInf), 0x7FFFFFFF, kNv, "w +inf");
  expect(cvt_w(kRne, kNegInf), 0x80000000, kNv, "w -inf");
  expect(cvt_w(kRne, 0x4F000000), 0x7FFFFFFF, kNv, "w 2^31");
  expect(cvt_w(kRne, 0x4EFFFFFF), 0x7FFFFF80, 0, "w 2^31-128 (largest float below 2^31)");
  expect(cvt_w(kRne, 0xCF000000), 0x80000000, 0, "w -2^31 exact");
  expect(cvt_w(kRne, 0xCF000001), 0x80000000, kNv, "w -(2^31+256)");
  expect(cvt_w(kRne, 0x7F7FFFFF), 0x7FFFFFFF, kNv, "w FLT_MAX");
  expect(cvt_w(kRne, kQNan, true), 0xFFFFFFFF, kNv, "wu NaN");
  expect(cvt_w(kRne, kPosInf, true), 0xFFFFFFFF, kNv, "wu +inf");
  expect(cvt_w(kRne, kNegInf, true), 0, kNv, "wu -inf");
  expect(cvt_w(kRne, 0x4F800000, true), 0xFFFFFFFF, kNv, "wu 2^32");
  expect(cvt_w(kRne, kMinusOne, true), 0, kNv, "wu -1");
  // A negative value that rounds to 0 is not invalid, only inexact.
  expect(cvt_w(kRne, 0xBF000000, true), 0, kNx, "wu -0.5 rne -> 0");
  expect(cvt_w(kRtz, 0xBF666666, true), 0, kNx, "wu -0.9 rtz -> 0");
  expect(cvt_w(kRdn, 0xBF000000, true), 0, kNv, "wu -0.5 rdn -> -1");
  expect(cvt_w(kRmm, 0xBF000000, true), 0, kNv, "wu -0.5 rmm -> -1");
  expect(cvt_w(kRne, kNegZero, true), 0, 0, "wu -0");
}

TEST(ExecuteFp, ConvertFromInt) {
  // 2^24 + 1 = 16777217 is halfway between 16777216 (0x4b800000) and 16777218 (0x4b800001).
  constexpr uint32_t k2p24p1 = 16777217;
  expect(cvt_s(kRne, k2p24p1), 0x4B800000, kNx, "rne");
  expect(cvt_s(kRtz, k2p24p1), 0x4B800000, kNx, "rtz");
  expect(cvt_s(kRdn, k2p24p1), 0x4B800000, kNx, "rdn");
  expect(cvt_s(kRup, k2p24p1), 0x4B800001, kNx, "rup");
  expect(cvt_s(kRmm, k2p24p1), 0x4B800001, kNx, "rmm");
  expect(cvt_s(kRdn, static_cast<uint32_t>(-16777217)), 0xCB800001, kNx, "neg rdn");
  expect(cvt_s(kRup, static_cast<uint32_t>(-16777217)), 0xCB800000, kNx, "neg rup");
  expect(cvt_s(kRmm, static_cast<uint32_t>(-16777217)), 0xCB800001, kNx, "neg rmm");
  expect(cvt_s(kRtz, static_cast<uint32_t>(-16777217)), 0xCB800000, kNx, "neg rtz");
  // 2^24 + 3: halfway between 16777218 (odd significand) and 16777220 (even).
  expect(cvt_s(kRne, 16777219), 0x4B800002, kNx, "tie to even upward");
  expect(cvt_s(kRne, 0), kPosZero, 0, "0 -> +0");
  expect(cvt_s(kRne, static_cast<uint32_t>(-1)), kMinusOne, 0, "-1");
  expect(cvt_s(kRne, 0x80000000), 0xCF000000, 0, "INT_MIN exact");
  expect(cvt_s(kRne, 0x7FFFFFFF), 0x4F000000, kNx, "INT_MAX rne -> 2^31");
  expect(cvt_s(kRtz, 0x7FFFFFFF), 0x4EFFFFFF, kNx, "INT_MAX rtz");
  expect(cvt_s(kRne, 0xFFFFFFFF, true), 0x4F800000, kNx, "wu 2^32-1 rne -> 2^32");
  expect(cvt_s(kRtz, 0xFFFFFFFF, true), 0x4F7FFFFF, kNx, "wu 2^32-1 rtz");
  expect(cvt_s(kRne, 0x80000000, true), 0x4F000000, 0, "wu 2^31");
  expect(cvt_s(kRne, 3, true), kThree, 0, "wu 3");
  expect(run_fp(enc::fp(f7::kCvtSW, kDyn, 4, 11, 0), k2p24p1, 0, 0, kRup), 0x4B800001, kNx, "dyn=rup");
}

TEST(ExecuteFp, MinMax) {
  auto fmin = [](uint32_t a, uint32_t b) { return fop(f7::kMinMax, 0, a, b); };
  auto fmax = [](uint32_t a, uint32_t b) { return fop(f7::kMinMax, 1, a, b); };
  expect(fmin(kOne, kTwo), kOne, 0, "min");
  expect(fmax(kOne, kTwo), kTwo, 0, "max");
  expect(fmin(kMinusOne, kOne), kMinusOne, 0, "min negative");
  expect(fmin(kNegZero, kPosZero), kNegZero, 0, "min(-0,+0)");
  expect(fmin(kPosZero, kNegZero), kNegZero, 0, "min(+0,-0)");
  expect(fmax(kNegZero, kPosZero), kPosZero, 0, "max(-0,+0)");
  expect(fmax(kPosZero, kNegZero), kPosZero, 0, "max(+0,-0)");
  expect(fmin(kQNanPayload, kOne), kOne, 0, "min(qNaN,1)");
  expect(fmax(kOne, kQNan), kOne, 0, "max(1,qNaN)");
  expect(fmin(kQNan, kNegInf), kNegInf, 0, "min(qNaN,-inf)");
  expect(fmin(kSNan, kOne), kOne, kNv, "min(sNaN,1)");
  expect(fmax(kTwo, kNegSNan), kTwo, kNv, "max(2,-sNaN)");
  expect(fmin(kQNanPayload, kNegQNan), kCanonicalNan, 0, "min(qNaN,qNaN)");
  expect(fmax(kSNan, kQNan), kCanonicalNan, kNv, "max(sNaN,qNaN)");
  expect(fmax(kPosInf, kFltMax), kPosInf, 0, "max(inf,max)");
}

TEST(ExecuteFp, SignInjectionKeepsPayloads) {
  expect(fop(f7::kSgnj, 0, kOne, 0xC0000000), kMinusOne, 0, "fsgnj");
  expect(fop(f7::kSgnj, 1, kOne, 0xC0000000), kOne, 0, "fsgnjn");
  expect(fop(f7::kSgnj, 1, kOne, kTwo), kMinusOne, 0, "fsgnjn (fneg)");
  expect(fop(f7::kSgnj, 2, kMinusOne, 0xC0000000), kOne, 0, "fsgnjx -,-");
  expect(fop(f7::kSgnj, 2, kMinusOne, kTwo), kMinusOne, 0, "fsgnjx -,+");
  expect(fop(f7::kSgnj, 0, kQNanPayload, kMinusOne), 0xFFC12345, 0, "NaN payload kept");
  expect(fop(f7::kSgnj, 2, kSNan, kSNan), kSNan, 0, "sNaN not quieted, no NV");
}

TEST(ExecuteFp, Compare) {
  auto cmp = [](uint32_t funct3, uint32_t a, uint32_t b) {
    return run_fp(enc::fp(f7::kCmp, funct3, 10, 1, 2), a, b, 0, 0, true);
  };
  constexpr uint32_t kFeq = 2, kFlt = 1, kFle = 0;
  expect(cmp(kFeq, kOne, kOne), 1, 0, "1==1");
  expect(cmp(kFeq, kNegZero, kPosZero), 1, 0, "-0==+0");
  expect(cmp(kFlt, kNegZero, kPosZero), 0, 0, "-0<+0 is false");
  expect(cmp(kFle, kNegZero, kPosZero), 1, 0, "-0<=+0");
  expect(cmp(kFlt, kOne, kTwo), 1, 0, "1<2");
  expect(cmp(kFle, kTwo, kOne), 0, 0, "2<=1");
  expect(cmp(kFlt, kNegInf, kFltMax), 1, 0, "-inf<max");
  // feq is quiet: NV only for sNaN; flt/fle signal on any NaN.
  expect(cmp(kFeq, kQNan, kOne), 0, 0, "feq qNaN");
  expect(cmp(kFeq, kQNan, kQNan), 0, 0, "feq qNaN qNaN");
  expect(cmp(kFeq, kOne, kSNan), 0, kNv, "feq sNaN");
  expect(cmp(kFlt, kQNan, kOne), 0, kNv, "flt qNaN");
  expect(cmp(kFle, kOne, kQNan), 0, kNv, "fle qNaN");
  expect(cmp(kFle, kSNan, kOne), 0, kNv, "fle sNaN");
}

TEST(ExecuteFp, ClassifyAllTenClasses) {
  auto fclass = [](uint32_t a) { return run_fp(enc::fp(f7::kMvXClass, 1, 10, 1, 0), a, 0, 0, 0, true); };
  expect(fclass(kNegInf), 1u << 0, 0, "-inf");
  expect(fclass(kMinusOne), 1u << 1, 0, "negative normal");
  expect(fclass(0x807FFFFF), 1u << 2, 0, "negative subnormal");
  expect(fclass(kNegZero), 1u << 3, 0, "-0");
  expect(fclass(kPosZero), 1u << 4, 0, "+0");
  expect(fclass(kMinSubnormal), 1u << 5, 0, "positive subnormal");
  expect(fclass(kFltMax), 1u << 6, 0, "positive normal");
  expect(fclass(kPosInf), 1u << 7, 0, "+inf");
  expect(fclass(kSNan), 1u << 8, 0, "sNaN");
  expect(fclass(kNegSNan), 1u << 8, 0, "negative sNaN");
  expect(fclass(kQNanPayload), 1u << 9, 0, "qNaN");
  expect(fclass(kNegQNan), 1u << 9, 0, "negative qNaN");
}

TEST(ExecuteFp, MovesKeepBits) {
  expect(run_fp(enc::fp(f7::kMvXClass, 0, 10, 1, 0), kSNan, 0, 0, 0, true), kSNan, 0, "fmv.x.w");
  expect(run_fp(enc::fp(f7::kMvWX, 0, 4, 11, 0), kNegSNan), kNegSNan, 0, "fmv.w.x");
  // fmv.x.w to x0 is discarded.
  Harness h;
  h.t.set_fs(1, kOne);
  h.step(enc::fp(f7::kMvXClass, 0, 0, 1, 0));
  EXPECT_EQ(h.t.x[0], 0u);
}

TEST(ExecuteFp, UntrackedNonRneModesStillRound) {
  // The untracked SM path takes the slow path for non-RNE modes and must
  // still leave fcsr alone; run_fp checks both paths agree.
  expect(fop(f7::kMul, kRdn, kFltMax | 0x80000000, kTwo), kNegInf, kOf | kNx, "-max*2 rdn");
  Harness h;
  h.t.set_fs(1, kOne);
  h.t.set_fs(2, kThree);
  h.step<false>(enc::fp(f7::kDiv, kRtz, 4, 1, 2));
  EXPECT_EQ(h.t.fd(4), fp::box(0x3EAAAAAAu));
  EXPECT_EQ(h.t.fcsr, 0u);
  // And the host rounding mode is restored: a following RNE op rounds to nearest.
  h.step<false>(enc::fp(f7::kDiv, kRne, 4, 1, 2));
  EXPECT_EQ(h.t.fd(4), fp::box(0x3EAAAAABu));
}

TEST(ExecuteFp, SpecialFunctionUnit) {
  auto sfu = [](uint32_t funct7, uint32_t a) {
    Harness h;
    h.t.set_fs(1, a);
    h.step(enc::r(0x0B, 0, funct7, 4, 1, 0));
    EXPECT_EQ(h.t.fcsr, 0u);
    return h.t.fs(4);
  };
  EXPECT_EQ(sfu(0, kPosZero), kPosZero);       // sin(0) = 0
  EXPECT_EQ(sfu(1, kPosZero), kOne);           // cos(0) = 1
  EXPECT_EQ(sfu(2, kThree), 0x41000000u);      // 2^3 = 8
  EXPECT_EQ(sfu(3, 0x41000000), kThree);       // log2(8) = 3
  EXPECT_EQ(sfu(4, 0x40800000), 0x3E800000u);  // 1/4
  EXPECT_EQ(sfu(5, 0x40800000), 0x3F000000u);  // 1/sqrt(4)
  EXPECT_EQ(sfu(4, kPosZero), kPosInf);        // 1/0
  EXPECT_EQ(sfu(5, kPosZero), kPosInf);
  EXPECT_EQ(sfu(3, kMinusOne), kCanonicalNan);  // log2(-1)
  EXPECT_EQ(sfu(0, kPosInf), kCanonicalNan);    // sin(inf)
  // docs/firmware-abi.md defines the SFU results as the host's sinf/cosf/... values.
  EXPECT_EQ(sfu(0, kOne), bits(std::sin(1.0f)));
  EXPECT_EQ(sfu(1, kOne), bits(std::cos(1.0f)));
  EXPECT_EQ(sfu(2, 0x3F000000), bits(std::exp2(0.5f)));
  EXPECT_EQ(sfu(3, kThree), bits(std::log2(3.0f)));
  EXPECT_EQ(sfu(4, kThree), bits(1.0f / 3.0f));
  EXPECT_EQ(sfu(5, kThree), bits(1.0f / std::sqrt(3.0f)));
}

}  // namespace
}  // namespace tessera::isa
