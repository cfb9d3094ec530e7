// Exact RISC-V single-precision semantics (unprivileged spec 20191213,
// chapter 11). Compiled with -frounding-math: the host FPU computes under the
// requested rounding mode and its exception flags are read back, with
// volatile operands so the operation cannot move across the fenv calls.
// The host is assumed to run in round-to-nearest-even between instructions.
#include "fp.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#endif

#include "isa/encoding.h"

namespace tessera::isa::fp {
namespace {

// The exception flags of one host operation. On x86-64, float and double
// arithmetic is SSE and reports its exceptions in MXCSR alone, whose flag
// bits are the FE_* values; clearing and reading them there costs a
// fraction of feclearexcept/fetestexcept, which also save and reload the
// x87 environment (more than half of a vector FP instruction's time).
#if defined(__x86_64__) && defined(__SSE2__)
void clear_host_exceptions() { _mm_setcsr(_mm_getcsr() & ~static_cast<unsigned>(FE_ALL_EXCEPT)); }
int host_exceptions() { return static_cast<int>(_mm_getcsr()) & FE_ALL_EXCEPT; }
#else
void clear_host_exceptions() { std::feclearexcept(FE_ALL_EXCEPT); }
int host_exceptions() { return std::fetestexcept(FE_ALL_EXCEPT); }
#endif

uint32_t host_flags(int ex) {
  uint32_t f = 0;
  if (ex & FE_INVALID) f |= fflag::kNv;
  if (ex & FE_DIVBYZERO) f |= fflag::kDz;
  if (ex & FE_OVERFLOW) f |= fflag::kOf;
  if (ex & FE_UNDERFLOW) f |= fflag::kUf;
  if (ex & FE_INEXACT) f |= fflag::kNx;
  return f;
}

int host_rounding(unsigned rm) {
  switch (rm) {
    case rm::kRtz:
      return FE_TOWARDZERO;
    case rm::kRdn:
      return FE_DOWNWARD;
    case rm::kRup:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

// RNE, RTZ, RDN, RUP: the host FPU does exactly what IEEE 754 asks, and x86
// detects tininess after rounding as RISC-V does (spec 11.6).
// The host's result under its current rounding mode, raising its flags.
float host_compute(Arith op, uint32_t a, uint32_t b, uint32_t c) {
  volatile float va = to_float(a), vb = to_float(b), vc = to_float(c);
  volatile float vr = 0.0f;
  switch (op) {
    case Arith::kAdd:
      vr = va + vb;
      break;
    case Arith::kSub:
      vr = va - vb;
      break;
    case Arith::kMul:
      vr = va * vb;
      break;
    case Arith::kDiv:
      vr = va / vb;
      break;
    case Arith::kSqrt:
      vr = std::sqrt(static_cast<float>(va));
      break;
    case Arith::kFma:
      vr = std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc));
      break;
  }
  return vr;
}

uint32_t arith_host(Arith op, uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t* flags) {
  if (rm != rm::kRne) std::fesetround(host_rounding(rm));
  clear_host_exceptions();
  const float r = host_compute(op, a, b, c);
  const int ex = host_exceptions();
  if (rm != rm::kRne) std::fesetround(FE_TONEAREST);
  *flags |= host_flags(ex);
  return canonicalize(r);
}

// Rounds d to single precision, ties away from zero. d must be exact or
// rounded to odd at double precision (53 >= 24 + 2 bits, so rounding it again
// gives the correctly rounded result of the exact value).
uint32_t round_rmm(double d, uint32_t* flags) {
  const uint32_t sign = std::signbit(d) ? kSignBit : 0;
  const double m = std::fabs(d);
  if (m == 0.0) return sign;
  int e = 0;
  std::frexp(m, &e);  // m = f * 2^e with f in [0.5, 1)
  // A float's ulp is 2^(e-24) for normals and 2^-149 for subnormals. The
  // scalings by powers of two and floor() below are exact in double.
  const int ulp_exp = std::max(e - 24, -149);
  const double scaled = std::ldexp(m, -ulp_exp);
  double q = std::floor(scaled);
  const double frac = scaled - q;
  if (frac >= 0.5) q += 1.0;
  const double r = std::ldexp(q, ulp_exp);
  if (r >= 0x1p128) {  // RMM overflows to infinity
    *flags |= fflag::kOf | fflag::kNx;
    return sign | 0x7F800000;
  }
  if (frac != 0.0) {
    *flags |= fflag::kNx;
    // Tiny after rounding (with unbounded exponent, to 24 bits, ties away):
    // values from the midpoint 2^-126 - 2^-151 up round to 2^-126.
    if (m < 0x1p-126 - 0x1p-151) *flags |= fflag::kUf;
  }
  return sign | to_bits(static_cast<float>(r));
}

// RMM has no host rounding mode: compute in double rounded to odd (round
// toward zero, then set the last bit if inexact), then round to float in
// software. Float operands cannot overflow or underflow a double here.
uint32_t arith_rmm(Arith op, uint32_t a, uint32_t b, uint32_t c, uint32_t* flags) {
  volatile double va = to_float(a), vb = to_float(b), vc = to_float(c);
  volatile double vr = 0.0;
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_ALL_EXCEPT);
  switch (op) {
    case Arith::kAdd:
      vr = va + vb;
      break;
    case Arith::kSub:
      vr = va - vb;
      break;
    case Arith::kMul:
      vr = va * vb;
      break;
    case Arith::kDiv:
      vr = va / vb;
      break;
    case Arith::kSqrt:
      vr = std::sqrt(static_cast<double>(va));
      break;
    case Arith::kFma:
      vr = std::fma(static_cast<double>(va), static_cast<double>(vb), static_cast<double>(vc));
      break;
  }
  const int ex = std::fetestexcept(FE_ALL_EXCEPT);
  std::fesetround(FE_TONEAREST);
  double d = vr;
  if (ex & FE_INVALID) {
    *flags |= fflag::kNv;
    return kCanonicalNan;
  }
  if (ex & FE_DIVBYZERO) *flags |= fflag::kDz;
  if (std::isinf(d)) return to_bits(static_cast<float>(d));  // exact infinity
  if (ex & FE_INEXACT) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    bits |= 1;
    std::memcpy(&d, &bits, sizeof d);
  }
  return round_rmm(d, flags);
}

// Rounds v to an integral float under rm; exact (no host flags consulted).
float round_integral(float v, unsigned rm) {
  switch (rm) {
    case rm::kRtz:
      return std::trunc(v);
    case rm::kRdn:
      return std::floor(v);
    case rm::kRup:
      return std::ceil(v);
    case rm::kRmm:
      return std::round(v);  // halfway cases away from zero
    default: {
      if (!(std::fabs(v) < 0x1p23f)) return v;  // already integral (or inf)
      float t = std::trunc(v);
      const float d = std::fabs(v - t);  // exact: the fraction bits of v
      if (d > 0.5f || (d == 0.5f && (static_cast<int32_t>(t) & 1) != 0)) t += std::signbit(v) ? -1.0f : 1.0f;
      return t;
    }
  }
}

// Rounds a nonzero magnitude to 24 bits under rm; returns the float's bits
// without sign.
uint32_t round_u32(uint32_t mag, bool negative, unsigned rm, uint32_t* flags) {
  if (mag < (1u << 24)) return to_bits(static_cast<float>(mag));  // exact
  const int shift = 8 - __builtin_clz(mag);                       // bits below the 24 kept
  uint32_t q = mag >> shift;
  const uint32_t rem = mag & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  bool up = false;
  switch (rm) {
    case rm::kRtz:
      break;
    case rm::kRdn:
      up = negative && rem != 0;
      break;
    case rm::kRup:
      up = !negative && rem != 0;
      break;
    case rm::kRmm:
      up = rem >= half;
      break;
    default:
      up = rem > half || (rem == half && (q & 1) != 0);
      break;
  }
  if (up) ++q;  // q may become 2^24: still exact
  if (rem != 0) *flags |= fflag::kNx;
  return to_bits(std::ldexp(static_cast<float>(q), shift));
}

// A NaN operand: true, the canonical NaN in *out and NV if signalled.
bool nan_operand(Arith op, uint32_t a, uint32_t b, uint32_t c, uint32_t* flags, uint32_t* out) {
  const bool unary = op == Arith::kSqrt;
  const bool fma = op == Arith::kFma;
  if (!(is_nan(a) || (!unary && is_nan(b)) || (fma && is_nan(c)))) return false;
  bool nv = is_snan(a) || (!unary && is_snan(b)) || (fma && is_snan(c));
  // inf * 0 signals NV even when the addend is a quiet NaN (spec 11.6).
  if (fma && ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b)))) nv = true;
  if (nv) *flags |= fflag::kNv;
  *out = kCanonicalNan;
  return true;
}

}  // namespace

uint32_t arith(Arith op, uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t* flags) {
  uint32_t nan = 0;
  if (nan_operand(op, a, b, c, flags, &nan)) return nan;
  if (rm == rm::kRmm) return arith_rmm(op, a, b, c, flags);
  return arith_host(op, a, b, c, rm, flags);
}

ArithBatch::ArithBatch(unsigned rm, uint32_t* flags, bool enabled)
    : rm_(rm), flags_(flags), batched_(enabled && rm != rm::kRmm) {
  if (!batched_) return;
  if (rm_ != rm::kRne) std::fesetround(host_rounding(rm_));
  clear_host_exceptions();
}

ArithBatch::~ArithBatch() {
  if (!batched_) return;
  const int ex = host_exceptions();
  if (rm_ != rm::kRne) std::fesetround(FE_TONEAREST);
  *flags_ |= host_flags(ex);
}

uint32_t ArithBatch::arith(Arith op, uint32_t a, uint32_t b, uint32_t c) {
  if (!batched_) return fp::arith(op, a, b, c, rm_, flags_);
  uint32_t nan = 0;
  if (nan_operand(op, a, b, c, flags_, &nan)) return nan;
  return canonicalize(host_compute(op, a, b, c));
}

uint32_t cvt_w_s(uint32_t a, unsigned rm, uint32_t* flags) {
  if (is_nan(a)) {
    *flags |= fflag::kNv;
    return 0x7FFFFFFF;
  }
  const float v = to_float(a);
  const float r = round_integral(v, rm);
  if (r >= 0x1p31f) {
    *flags |= fflag::kNv;
    return 0x7FFFFFFF;
  }
  if (r < -0x1p31f) {
    *flags |= fflag::kNv;
    return 0x80000000;
  }
  if (r != v) *flags |= fflag::kNx;
  return static_cast<uint32_t>(static_cast<int32_t>(r));
}

uint32_t cvt_wu_s(uint32_t a, unsigned rm, uint32_t* flags) {
  if (is_nan(a)) {
    *flags |= fflag::kNv;
    return 0xFFFFFFFF;
  }
  const float v = to_float(a);
  const float r = round_integral(v, rm);
  if (r >= 0x1p32f) {
    *flags |= fflag::kNv;
    return 0xFFFFFFFF;
  }
  if (r < 0.0f) {  // rounds to a negative integer (-0.0 is fine)
    *flags |= fflag::kNv;
    return 0;
  }
  if (r != v) *flags |= fflag::kNx;
  return static_cast<uint32_t>(r);
}

uint32_t cvt_s_w(uint32_t v, unsigned rm, uint32_t* flags) {
  const bool negative = static_cast<int32_t>(v) < 0;
  const uint32_t mag = negative ? 0u - v : v;
  if (mag == 0) return 0;
  return (negative ? kSignBit : 0) | round_u32(mag, negative, rm, flags);
}

uint32_t cvt_s_wu(uint32_t v, unsigned rm, uint32_t* flags) {
  if (v == 0) return 0;
  return round_u32(v, false, rm, flags);
}

uint32_t min_max(uint32_t a, uint32_t b, bool is_max, uint32_t* flags) {
  if (is_snan(a) || is_snan(b)) *flags |= fflag::kNv;
  const bool a_nan = is_nan(a), b_nan = is_nan(b);
  if (a_nan && b_nan) return kCanonicalNan;
  if (a_nan) return b;
  if (b_nan) return a;
  if (is_zero(a) && is_zero(b)) return is_max ? (a & b) : (a | b);  // -0.0 < +0.0
  const float fa = to_float(a), fb = to_float(b);
  if (is_max) return fa > fb ? a : b;
  return fa < fb ? a : b;
}

uint32_t feq(uint32_t a, uint32_t b, uint32_t* flags) {
  if (is_nan(a) || is_nan(b)) {
    if (is_snan(a) || is_snan(b)) *flags |= fflag::kNv;
    return 0;
  }
  return to_float(a) == to_float(b) ? 1 : 0;
}

uint32_t flt(uint32_t a, uint32_t b, uint32_t* flags) {
  if (is_nan(a) || is_nan(b)) {
    *flags |= fflag::kNv;
    return 0;
  }
  return to_float(a) < to_float(b) ? 1 : 0;
}

uint32_t fle(uint32_t a, uint32_t b, uint32_t* flags) {
  if (is_nan(a) || is_nan(b)) {
    *flags |= fflag::kNv;
    return 0;
  }
  return to_float(a) <= to_float(b) ? 1 : 0;
}

uint32_t fclass(uint32_t a) {
  const bool negative = (a & kSignBit) != 0;
  const uint32_t exp = (a >> 23) & 0xFF;
  const uint32_t frac = a & 0x7FFFFF;
  if (exp == 0xFF) {
    if (frac == 0) return negative ? 1u << 0 : 1u << 7;  // -inf / +inf
    return (frac & 0x400000) != 0 ? 1u << 9 : 1u << 8;   // quiet / signaling NaN
  }
  if (exp == 0) {
    if (frac == 0) return negative ? 1u << 3 : 1u << 4;  // -0 / +0
    return negative ? 1u << 2 : 1u << 5;                 // subnormals
  }
  return negative ? 1u << 1 : 1u << 6;  // normals
}

}  // namespace tessera::isa::fp
