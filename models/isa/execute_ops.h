// The executor's operations (execute.cpp): trap results, M-extension
// arithmetic with the spec's division corner cases (7.2), AMO results
// (8.4), FP CSR fields (11.2) and the host fast paths of FP arithmetic.
// Inline, for the executor's switch; internal to the ISA library.
#pragma once

#include <cmath>

#include "fp.h"
#include "isa/isa.h"

namespace tessera::isa::exec_ops {

inline ExecResult trap(Trap t, uint32_t addr = 0) { return ExecResult{t, addr}; }

inline Trap load_trap(MemStatus s) {
  return s == MemStatus::kMisaligned ? Trap::kLoadMisaligned : Trap::kLoadAccessFault;
}
inline Trap store_trap(MemStatus s) {
  return s == MemStatus::kMisaligned ? Trap::kStoreMisaligned : Trap::kStoreAccessFault;
}
// A CSR the environment refuses: the transactional ones exist on the control
// cores only, so refusing them says where they live.
inline Trap csr_trap(uint16_t c) { return csr::is_tx_csr(c) ? Trap::kTransactional : Trap::kIllegalInstruction; }

inline uint32_t sign_extend(uint32_t v, unsigned bytes) {
  if (bytes == 1) return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v)));
  if (bytes == 2) return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v)));
  return v;
}

// Value of an op's rounding mode, or 5..7 when invalid (a static reserved
// value cannot reach here: the decoder rejects it; dyn with frm >= 5 can).
inline unsigned effective_rm(const Inst& in, const ThreadState& t) {
  return in.rm == rm::kDyn ? (t.fcsr >> 5) & 7 : in.rm;
}

// The F CSRs live in ThreadState::fcsr (spec 11.2).
inline bool is_fp_csr(uint16_t c) { return c >= csr::kFflags && c <= csr::kFcsr; }
inline uint32_t fp_csr_read(uint16_t c, uint32_t fcsr) {
  switch (c) {
    case csr::kFflags:
      return fcsr & 0x1F;
    case csr::kFrm:
      return (fcsr >> 5) & 7;
    default:
      return fcsr & 0xFF;
  }
}
inline uint32_t fp_csr_write(uint16_t c, uint32_t fcsr, uint32_t v) {
  switch (c) {
    case csr::kFflags:
      return (fcsr & ~0x1Fu) | (v & 0x1F);
    case csr::kFrm:
      return (fcsr & 0x1F) | ((v & 7) << 5);
    default:
      return v & 0xFF;
  }
}

// 32x32 -> high 32 products (spec 7.1).
inline uint32_t mulh(uint32_t a, uint32_t b) {
  const int64_t p = static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b);
  return static_cast<uint32_t>(static_cast<uint64_t>(p) >> 32);
}
inline uint32_t mulhsu(uint32_t a, uint32_t b) {
  const int64_t p = static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int64_t>(b);
  return static_cast<uint32_t>(static_cast<uint64_t>(p) >> 32);
}
inline uint32_t mulhu(uint32_t a, uint32_t b) { return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32); }
// Division by zero and overflow results (spec 7.2, table 7.1).
inline uint32_t div_s(uint32_t a, uint32_t b) {
  if (b == 0) return 0xFFFFFFFF;
  if (a == 0x80000000 && b == 0xFFFFFFFF) return 0x80000000;
  return static_cast<uint32_t>(static_cast<int32_t>(a) / static_cast<int32_t>(b));
}
inline uint32_t div_u(uint32_t a, uint32_t b) { return b == 0 ? 0xFFFFFFFF : a / b; }
inline uint32_t rem_s(uint32_t a, uint32_t b) {
  if (b == 0) return a;
  if (a == 0x80000000 && b == 0xFFFFFFFF) return 0;
  return static_cast<uint32_t>(static_cast<int32_t>(a) % static_cast<int32_t>(b));
}
inline uint32_t rem_u(uint32_t a, uint32_t b) { return b == 0 ? a : a % b; }

// The read-modify-write operations of the opcode table's Mem values; CAS
// needs a third operand (atomic_new_value).
inline uint32_t amo_result(Op op, uint32_t old, uint32_t v) {
  const auto s_old = static_cast<int32_t>(old), s_v = static_cast<int32_t>(v);
  switch (info(op).mem) {
    case Mem::kAmoSwap:
      return v;
    case Mem::kAmoAdd:
      return old + v;
    case Mem::kAmoXor:
      return old ^ v;
    case Mem::kAmoAnd:
      return old & v;
    case Mem::kAmoOr:
      return old | v;
    case Mem::kAmoMin:
      return s_old < s_v ? old : v;
    case Mem::kAmoMax:
      return s_old > s_v ? old : v;
    case Mem::kAmoMinu:
      return old < v ? old : v;
    case Mem::kAmoMaxu:
      return old > v ? old : v;
    case Mem::kAmoFadd:
      return fp::canonicalize(fp::to_float(old) + fp::to_float(v));
    case Mem::kAmoInc:
      return old >= v ? 0 : old + 1;
    case Mem::kAmoDec:
      return (old == 0 || old > v) ? v : old - 1;
    default:
      return old;
  }
}

inline fp::Arith arith_kind(Op op) {
  switch (op) {
    case Op::kFaddS:
    case Op::kFaddD:
      return fp::Arith::kAdd;
    case Op::kFsubS:
    case Op::kFsubD:
      return fp::Arith::kSub;
    case Op::kFmulS:
    case Op::kFmulD:
      return fp::Arith::kMul;
    case Op::kFdivS:
    case Op::kFdivD:
      return fp::Arith::kDiv;
    case Op::kFsqrtS:
    case Op::kFsqrtD:
      return fp::Arith::kSqrt;
    default:
      return fp::Arith::kFma;
  }
}

// Round-to-nearest-even result straight from the host FPU (default mode),
// without touching fenv: the untracked hot path.
inline uint32_t fast_arith(fp::Arith op, uint32_t a, uint32_t b, uint32_t c) {
  const float fa = fp::to_float(a), fb = fp::to_float(b);
  switch (op) {
    case fp::Arith::kAdd:
      return fp::canonicalize(fa + fb);
    case fp::Arith::kSub:
      return fp::canonicalize(fa - fb);
    case fp::Arith::kMul:
      return fp::canonicalize(fa * fb);
    case fp::Arith::kDiv:
      return fp::canonicalize(fa / fb);
    case fp::Arith::kSqrt:
      return fp::canonicalize(std::sqrt(fa));
    case fp::Arith::kFma:
      return fp::canonicalize(std::fma(fa, fb, fp::to_float(c)));
  }
  return fp::kCanonicalNan;
}

// The same for doubles.
inline uint64_t fast_arith_d(fp::Arith op, uint64_t a, uint64_t b, uint64_t c) {
  const double fa = fp::d::to_double(a), fb = fp::d::to_double(b);
  switch (op) {
    case fp::Arith::kAdd:
      return fp::d::canonicalize(fa + fb);
    case fp::Arith::kSub:
      return fp::d::canonicalize(fa - fb);
    case fp::Arith::kMul:
      return fp::d::canonicalize(fa * fb);
    case fp::Arith::kDiv:
      return fp::d::canonicalize(fa / fb);
    case fp::Arith::kSqrt:
      return fp::d::canonicalize(std::sqrt(fa));
    case fp::Arith::kFma:
      return fp::d::canonicalize(std::fma(fa, fb, fp::d::to_double(c)));
  }
  return fp::d::kCanonicalNan;
}

inline uint32_t sfu(Op op, uint32_t a) {
  const float v = fp::to_float(a);
  switch (op) {
    case Op::kSfuSin:
      return fp::canonicalize(std::sin(v));
    case Op::kSfuCos:
      return fp::canonicalize(std::cos(v));
    case Op::kSfuEx2:
      return fp::canonicalize(std::exp2(v));
    case Op::kSfuLg2:
      return fp::canonicalize(std::log2(v));
    case Op::kSfuRcp:
      return fp::canonicalize(1.0f / v);
    default:
      return fp::canonicalize(1.0f / std::sqrt(v));
  }
}

}  // namespace tessera::isa::exec_ops
