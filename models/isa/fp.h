// Floating-point helpers for the executor (internal to the isa library):
// the exact RISC-V F and D semantics (unprivileged spec 20191213 chapters
// 11 and 12) that the host FPU does not give directly: canonical NaNs,
// flags, all rounding modes, the saturating conversions, fmin/fmax,
// comparisons, fclass, and the NaN-boxing of singles in 64-bit f registers.
#pragma once

#include <cstdint>
#include <cstring>

namespace tessera::isa::fp {

inline constexpr uint32_t kCanonicalNan = 0x7FC00000;
inline constexpr uint32_t kSignBit = 0x80000000;

inline float to_float(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
inline uint32_t to_bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
inline constexpr bool is_nan(uint32_t b) { return (b & 0x7FFFFFFF) > 0x7F800000; }
inline constexpr bool is_snan(uint32_t b) { return is_nan(b) && (b & 0x00400000) == 0; }
inline constexpr bool is_inf(uint32_t b) { return (b & 0x7FFFFFFF) == 0x7F800000; }
inline constexpr bool is_zero(uint32_t b) { return (b & 0x7FFFFFFF) == 0; }

// Every NaN an arithmetic instruction produces is the canonical NaN (11.3).
inline uint32_t canonicalize(float v) {
  const uint32_t b = to_bits(v);
  return is_nan(b) ? kCanonicalNan : b;
}

enum class Arith : uint8_t { kAdd, kSub, kMul, kDiv, kSqrt, kFma };

// a op b (kFma: a*b+c with one rounding; kSqrt: sqrt(a)) under rounding mode
// rm (0..4), accruing the exact IEEE flags into *flags. Slow path: used for
// non-RNE modes and whenever flags are tracked.
uint32_t arith(Arith op, uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t* flags);

// arith() over a loop of operations under one rounding mode (the vector
// unit's element loops): the host's exception flags are cleared once before
// the loop and read once after it, instead of around every operation
// (saving and loading the host's status register is most of an operation's
// time). Nothing but this batch's arith() may compute in floating point on
// the host while it lives. Under RMM (computed in software) or when not
// `enabled`, each operation is an ordinary arith(). The destructor ORs the
// flags raised into *flags.
class ArithBatch {
 public:
  ArithBatch(unsigned rm, uint32_t* flags, bool enabled = true);
  ~ArithBatch();
  ArithBatch(const ArithBatch&) = delete;
  ArithBatch& operator=(const ArithBatch&) = delete;
  uint32_t arith(Arith op, uint32_t a, uint32_t b, uint32_t c);

 private:
  unsigned rm_;
  uint32_t* flags_;
  bool batched_;
};

// fcvt.w.s / fcvt.wu.s with rounding mode rm (0..4), saturating (table 11.4).
uint32_t cvt_w_s(uint32_t a, unsigned rm, uint32_t* flags);
uint32_t cvt_wu_s(uint32_t a, unsigned rm, uint32_t* flags);
// fcvt.s.w / fcvt.s.wu with rounding mode rm (0..4).
uint32_t cvt_s_w(uint32_t v, unsigned rm, uint32_t* flags);
uint32_t cvt_s_wu(uint32_t v, unsigned rm, uint32_t* flags);

// fmin.s / fmax.s (spec 2.2 rules: a single NaN operand gives the other one,
// -0.0 < +0.0, sNaN signals NV).
uint32_t min_max(uint32_t a, uint32_t b, bool is_max, uint32_t* flags);

// feq.s (NV on sNaN only), flt.s and fle.s (NV on any NaN).
uint32_t feq(uint32_t a, uint32_t b, uint32_t* flags);
uint32_t flt(uint32_t a, uint32_t b, uint32_t* flags);
uint32_t fle(uint32_t a, uint32_t b, uint32_t* flags);

// fclass.s: one of ten bits (table 11.5).
uint32_t fclass(uint32_t a);

// fcvt.s.d under rounding mode rm (0..4); fcvt.d.s (exact).
uint32_t cvt_s_d(uint64_t a, unsigned rm, uint32_t* flags);
uint64_t cvt_d_s(uint32_t a, uint32_t* flags);

// The D extension's double-precision forms of the functions above.
namespace d {
inline constexpr uint64_t kCanonicalNan = 0x7FF8000000000000ull;
inline constexpr uint64_t kSignBit = 0x8000000000000000ull;

inline double to_double(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
inline uint64_t to_bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
inline constexpr bool is_nan(uint64_t b) { return (b & ~kSignBit) > 0x7FF0000000000000ull; }
inline constexpr bool is_snan(uint64_t b) { return is_nan(b) && (b & 0x0008000000000000ull) == 0; }
inline constexpr bool is_inf(uint64_t b) { return (b & ~kSignBit) == 0x7FF0000000000000ull; }
inline constexpr bool is_zero(uint64_t b) { return (b & ~kSignBit) == 0; }
inline uint64_t canonicalize(double v) {
  const uint64_t b = to_bits(v);
  return is_nan(b) ? kCanonicalNan : b;
}

uint64_t arith(Arith op, uint64_t a, uint64_t b, uint64_t c, unsigned rm, uint32_t* flags);
uint32_t cvt_w(uint64_t a, unsigned rm, uint32_t* flags);   // fcvt.w.d
uint32_t cvt_wu(uint64_t a, unsigned rm, uint32_t* flags);  // fcvt.wu.d
uint64_t min_max(uint64_t a, uint64_t b, bool is_max, uint32_t* flags);
uint32_t feq(uint64_t a, uint64_t b, uint32_t* flags);
uint32_t flt(uint64_t a, uint64_t b, uint32_t* flags);
uint32_t fle(uint64_t a, uint64_t b, uint32_t* flags);
uint32_t fclass(uint64_t a);  // fclass.d (table 11.5)
}  // namespace d

}  // namespace tessera::isa::fp
