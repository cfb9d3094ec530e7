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

// op on the host in type W under its current rounding mode, raising its
// flags. The operands and the result are volatile so that the operation
// cannot move across the fenv calls around it.
template <typename W>
W compute(Arith op, W a, W b, W c) {
  volatile W va = a, vb = b, vc = c;
  volatile W vr = 0;
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
      vr = std::sqrt(static_cast<W>(va));
      break;
    case Arith::kFma:
      vr = std::fma(static_cast<W>(va), static_cast<W>(vb), static_cast<W>(vc));
      break;
  }
  return vr;
}

// What the single and double operations below share, written once over the
// format: F is float or double.
template <typename F>
struct Format;
template <>
struct Format<float> {
  using Bits = uint32_t;
  static constexpr int kFraction = 23, kExponent = 8;
  static constexpr Bits kCanonicalNan = fp::kCanonicalNan;
  static float value(Bits b) { return to_float(b); }
};
template <>
struct Format<double> {
  using Bits = uint64_t;
  static constexpr int kFraction = 52, kExponent = 11;
  static constexpr Bits kCanonicalNan = d::kCanonicalNan;
  static double value(Bits b) { return d::to_double(b); }
};
template <typename F>
constexpr typename Format<F>::Bits kSign = typename Format<F>::Bits{1} << (Format<F>::kFraction + Format<F>::kExponent);
template <typename F>
constexpr typename Format<F>::Bits kInfinity = ((typename Format<F>::Bits{1} << Format<F>::kExponent) - 1)
                                               << Format<F>::kFraction;
template <typename F>
constexpr typename Format<F>::Bits kQuiet = typename Format<F>::Bits{1} << (Format<F>::kFraction - 1);
template <typename F>
constexpr bool nan(typename Format<F>::Bits b) {
  return (b & ~kSign<F>) > kInfinity<F>;
}
template <typename F>
constexpr bool snan(typename Format<F>::Bits b) {
  return nan<F>(b) && (b & kQuiet<F>) == 0;
}
template <typename F>
constexpr bool inf(typename Format<F>::Bits b) {
  return (b & ~kSign<F>) == kInfinity<F>;
}
template <typename F>
constexpr bool zero(typename Format<F>::Bits b) {
  return (b & ~kSign<F>) == 0;
}

// A NaN operand: true, the canonical NaN in *out and NV if signalled.
template <typename F, typename Bits = typename Format<F>::Bits>
bool nan_operand(Arith op, Bits a, Bits b, Bits c, uint32_t* flags, Bits* out) {
  const bool unary = op == Arith::kSqrt;
  const bool fma = op == Arith::kFma;
  if (!(nan<F>(a) || (!unary && nan<F>(b)) || (fma && nan<F>(c)))) return false;
  bool nv = snan<F>(a) || (!unary && snan<F>(b)) || (fma && snan<F>(c));
  // inf * 0 signals NV even when the addend is a quiet NaN (spec 11.6).
  if (fma && ((inf<F>(a) && zero<F>(b)) || (zero<F>(a) && inf<F>(b)))) nv = true;
  if (nv) *flags |= fflag::kNv;
  *out = Format<F>::kCanonicalNan;
  return true;
}

// Rounds v to an integral value under rm; exact (nearbyint raises no flags;
// the host runs in round-to-nearest-even).
template <typename F>
F round_integral(F v, unsigned rm) {
  switch (rm) {
    case rm::kRtz:
      return std::trunc(v);
    case rm::kRdn:
      return std::floor(v);
    case rm::kRup:
      return std::ceil(v);
    case rm::kRmm:
      return std::round(v);  // halfway cases away from zero
    default:
      return std::nearbyint(v);
  }
}

// fcvt.w.* / fcvt.wu.* (table 11.4): saturating, NV out of range or NaN.
template <typename F, typename Bits = typename Format<F>::Bits>
uint32_t to_int(Bits a, unsigned rm, uint32_t* flags) {
  if (nan<F>(a)) {
    *flags |= fflag::kNv;
    return 0x7FFFFFFF;
  }
  const F v = Format<F>::value(a);
  const F r = round_integral(v, rm);
  if (r >= F(0x1p31)) {
    *flags |= fflag::kNv;
    return 0x7FFFFFFF;
  }
  if (r < F(-0x1p31)) {
    *flags |= fflag::kNv;
    return 0x80000000;
  }
  if (r != v) *flags |= fflag::kNx;
  return static_cast<uint32_t>(static_cast<int32_t>(r));
}
template <typename F, typename Bits = typename Format<F>::Bits>
uint32_t to_unsigned(Bits a, unsigned rm, uint32_t* flags) {
  if (nan<F>(a)) {
    *flags |= fflag::kNv;
    return 0xFFFFFFFF;
  }
  const F v = Format<F>::value(a);
  const F r = round_integral(v, rm);
  if (r >= F(0x1p32)) {
    *flags |= fflag::kNv;
    return 0xFFFFFFFF;
  }
  if (r < F(0)) {  // rounds to a negative integer (-0.0 is fine)
    *flags |= fflag::kNv;
    return 0;
  }
  if (r != v) *flags |= fflag::kNx;
  return static_cast<uint32_t>(r);
}

// fmin / fmax (spec 2.2 rules: a single NaN operand gives the other one,
// -0.0 < +0.0, sNaN signals NV).
template <typename F, typename Bits = typename Format<F>::Bits>
Bits minimum_maximum(Bits a, Bits b, bool is_max, uint32_t* flags) {
  if (snan<F>(a) || snan<F>(b)) *flags |= fflag::kNv;
  const bool a_nan = nan<F>(a), b_nan = nan<F>(b);
  if (a_nan && b_nan) return Format<F>::kCanonicalNan;
  if (a_nan) return b;
  if (b_nan) return a;
  if (zero<F>(a) && zero<F>(b)) return is_max ? (a & b) : (a | b);  // -0.0 < +0.0
  const F fa = Format<F>::value(a), fb = Format<F>::value(b);
  if (is_max) return fa > fb ? a : b;
  return fa < fb ? a : b;
}

// feq (NV on sNaN only), flt and fle (NV on any NaN).
template <typename F, typename Bits = typename Format<F>::Bits>
uint32_t compare(Bits a, Bits b, int how, uint32_t* flags) {  // how: 0 eq, 1 lt, 2 le
  if (nan<F>(a) || nan<F>(b)) {
    if (how != 0 || snan<F>(a) || snan<F>(b)) *flags |= fflag::kNv;
    return 0;
  }
  const F fa = Format<F>::value(a), fb = Format<F>::value(b);
  return (how == 0 ? fa == fb : how == 1 ? fa < fb : fa <= fb) ? 1 : 0;
}

// fclass: one of ten bits (table 11.5).
template <typename F, typename Bits = typename Format<F>::Bits>
uint32_t classify(Bits a) {
  const bool negative = (a & kSign<F>) != 0;
  const Bits exp = (a & kInfinity<F>) >> Format<F>::kFraction;
  const Bits frac = a & ((Bits{1} << Format<F>::kFraction) - 1);
  if (exp == (Bits{1} << Format<F>::kExponent) - 1) {
    if (frac == 0) return negative ? 1u << 0 : 1u << 7;  // -inf / +inf
    return (frac & kQuiet<F>) != 0 ? 1u << 9 : 1u << 8;  // quiet / signaling NaN
  }
  if (exp == 0) {
    if (frac == 0) return negative ? 1u << 3 : 1u << 4;  // -0 / +0
    return negative ? 1u << 2 : 1u << 5;                 // subnormals
  }
  return negative ? 1u << 1 : 1u << 6;  // normals
}

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
  return compute<float>(op, to_float(a), to_float(b), to_float(c));
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
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_ALL_EXCEPT);
  const double vr = compute<double>(op, to_float(a), to_float(b), to_float(c));
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

}  // namespace

uint32_t arith(Arith op, uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t* flags) {
  uint32_t nan = 0;
  if (nan_operand<float>(op, a, b, c, flags, &nan)) return nan;
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
  if (nan_operand<float>(op, a, b, c, flags_, &nan)) return nan;
  return canonicalize(host_compute(op, a, b, c));
}

uint32_t cvt_w_s(uint32_t a, unsigned rm, uint32_t* flags) { return to_int<float>(a, rm, flags); }
uint32_t cvt_wu_s(uint32_t a, unsigned rm, uint32_t* flags) { return to_unsigned<float>(a, rm, flags); }
uint32_t min_max(uint32_t a, uint32_t b, bool is_max, uint32_t* flags) {
  return minimum_maximum<float>(a, b, is_max, flags);
}
uint32_t feq(uint32_t a, uint32_t b, uint32_t* flags) { return compare<float>(a, b, 0, flags); }
uint32_t flt(uint32_t a, uint32_t b, uint32_t* flags) { return compare<float>(a, b, 1, flags); }
uint32_t fle(uint32_t a, uint32_t b, uint32_t* flags) { return compare<float>(a, b, 2, flags); }
uint32_t fclass(uint32_t a) { return classify<float>(a); }

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

// ---- D (chapter 12) ----

uint32_t cvt_s_d(uint64_t a, unsigned rm, uint32_t* flags) {
  if (d::is_nan(a)) {
    if (d::is_snan(a)) *flags |= fflag::kNv;
    return kCanonicalNan;
  }
  const double v = d::to_double(a);
  if (rm == rm::kRmm) return round_rmm(v, flags);  // v is exact
  if (rm != rm::kRne) std::fesetround(host_rounding(rm));
  clear_host_exceptions();
  volatile double vv = v;
  volatile float r = static_cast<float>(vv);
  const int ex = host_exceptions();
  if (rm != rm::kRne) std::fesetround(FE_TONEAREST);
  *flags |= host_flags(ex);
  return to_bits(r);
}

uint64_t cvt_d_s(uint32_t a, uint32_t* flags) {
  if (is_nan(a)) {
    if (is_snan(a)) *flags |= fflag::kNv;
    return d::kCanonicalNan;
  }
  return d::to_bits(static_cast<double>(to_float(a)));  // exact
}

namespace d {
namespace {

double host_compute(Arith op, uint64_t a, uint64_t b, uint64_t c) {
  return compute<double>(op, to_double(a), to_double(b), to_double(c));
}

// Rounds x to double precision, ties away from zero. x must be exact or
// rounded to odd at the host's long double precision (64 >= 53 + 2 bits).
uint64_t round_rmm(long double x, uint32_t* flags) {
  const uint64_t sign = std::signbit(x) ? kSignBit : 0;
  const long double m = std::fabs(x);
  if (m == 0.0L) return sign;
  int e = 0;
  std::frexp(m, &e);  // m = f * 2^e with f in [0.5, 1)
  // A double's ulp is 2^(e-53) for normals and 2^-1074 for subnormals.
  const int ulp_exp = std::max(e - 53, -1074);
  const long double scaled = std::ldexp(m, -ulp_exp);
  long double q = std::floor(scaled);
  const long double frac = scaled - q;
  if (frac >= 0.5L) q += 1.0L;
  const long double r = std::ldexp(q, ulp_exp);
  if (r >= 0x1p1024L) {
    *flags |= fflag::kOf | fflag::kNx;
    return sign | 0x7FF0000000000000ull;
  }
  if (frac != 0.0L) {
    *flags |= fflag::kNx;
    if (m < 0x1p-1022L - 0x1p-1076L) *flags |= fflag::kUf;
  }
  return sign | to_bits(static_cast<double>(r));
}

// RMM: compute at the host's long double precision rounded to odd, then
// round to double in software (as arith_rmm does for singles).
uint64_t arith_rmm(Arith op, uint64_t a, uint64_t b, uint64_t c, uint32_t* flags) {
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_ALL_EXCEPT);
  const long double vr = compute<long double>(op, to_double(a), to_double(b), to_double(c));
  const int ex = std::fetestexcept(FE_ALL_EXCEPT);
  std::fesetround(FE_TONEAREST);
  long double x = vr;
  if (ex & FE_INVALID) {
    *flags |= fflag::kNv;
    return kCanonicalNan;
  }
  if (ex & FE_DIVBYZERO) *flags |= fflag::kDz;
  if (std::isinf(x)) return to_bits(static_cast<double>(x));  // exact infinity
  if (ex & FE_INEXACT) {
    // Round to odd: set the lowest bit of the 64-bit significand.
    int e = 0;
    const long double f = std::frexp(x, &e);
    const long double ulp = std::ldexp(1.0L, e - 64);
    const long double low = std::fmod(std::fabs(x), 2 * ulp);
    if (low == 0.0L && f != 0.0L) x += std::signbit(x) ? -ulp : ulp;
  }
  return round_rmm(x, flags);
}

}  // namespace

uint64_t arith(Arith op, uint64_t a, uint64_t b, uint64_t c, unsigned rm, uint32_t* flags) {
  uint64_t nan = 0;
  if (nan_operand<double>(op, a, b, c, flags, &nan)) return nan;
  if (rm == rm::kRmm) return arith_rmm(op, a, b, c, flags);
  if (rm != rm::kRne) std::fesetround(host_rounding(rm));
  clear_host_exceptions();
  const double r = host_compute(op, a, b, c);
  const int ex = host_exceptions();
  if (rm != rm::kRne) std::fesetround(FE_TONEAREST);
  *flags |= host_flags(ex);
  return canonicalize(r);
}

uint32_t cvt_w(uint64_t a, unsigned rm, uint32_t* flags) { return to_int<double>(a, rm, flags); }
uint32_t cvt_wu(uint64_t a, unsigned rm, uint32_t* flags) { return to_unsigned<double>(a, rm, flags); }
uint64_t min_max(uint64_t a, uint64_t b, bool is_max, uint32_t* flags) {
  return minimum_maximum<double>(a, b, is_max, flags);
}
uint32_t feq(uint64_t a, uint64_t b, uint32_t* flags) { return compare<double>(a, b, 0, flags); }
uint32_t flt(uint64_t a, uint64_t b, uint32_t* flags) { return compare<double>(a, b, 1, flags); }
uint32_t fle(uint64_t a, uint64_t b, uint32_t* flags) { return compare<double>(a, b, 2, flags); }
uint32_t fclass(uint64_t a) { return classify<double>(a); }

}  // namespace d

}  // namespace tessera::isa::fp
