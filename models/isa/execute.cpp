// Executor: one switch on the decoded op, with the opcode table's data
// (isa/opcodes.h) where instructions differ only in it. Semantics per the unprivileged
// spec 20191213 (chapters 2, 7, 8, 9, 11) and docs/firmware-abi.md for the
// Tessera instructions. Nothing is written to the thread before every fault
// check of the instruction has passed.
#include "isa/execute_ops.h"

namespace tessera::isa {

using namespace exec_ops;  // NOLINT(google-build-using-namespace): the executor's own helpers

uint32_t atomic_new_value(Op op, uint32_t old, uint32_t v, uint32_t swap) {
  if (info(op).mem == Mem::kAmoCas) return old == v ? swap : old;
  return amo_result(op, old, v);
}

uint64_t atomic_new_value64(Op op, uint64_t old, uint64_t v, uint64_t swap) {
  const OpInfo& o = info(op);
  if (o.bytes != 8) return old;
  switch (o.mem) {
    case Mem::kAmoAdd:
      return old + v;
    case Mem::kAmoSwap:
      return v;
    case Mem::kAmoCas:
      return old == v ? swap : old;
    default:
      return old;
  }
}

namespace {
inline uint64_t pair(const ThreadState& t, uint8_t r) { return uint64_t{t.x[r + 1]} << 32 | t.x[r]; }
}  // namespace

template <bool kTrackFflags>
ExecResult execute(const Inst& in, ThreadState& t, ExecEnv& env) {
  const uint32_t a = t.x[in.rs1];
  const uint32_t b = t.x[in.rs2];
  const uint32_t imm = static_cast<uint32_t>(in.imm);
  uint32_t next_pc = t.pc + 4;
  // Result for rd; written at the end (x0 discarded) unless has_rd is false.
  uint32_t rd_val = 0;
  bool has_rd = true;

  switch (in.op) {
    // ---- RV32I (chapter 2) ----
    case Op::kLui:
      rd_val = imm;
      break;
    case Op::kAuipc:
      rd_val = t.pc + imm;
      break;
    case Op::kJal:
    case Op::kJalr: {
      const uint32_t target = in.op == Op::kJal ? t.pc + imm : (a + imm) & ~1u;
      if ((target & 3) != 0) return trap(Trap::kInstructionMisaligned, target);
      rd_val = t.pc + 4;
      next_pc = target;
      break;
    }
    case Op::kBeq:
    case Op::kBne:
    case Op::kBlt:
    case Op::kBge:
    case Op::kBltu:
    case Op::kBgeu: {
      bool taken = false;
      switch (in.op) {
        case Op::kBeq:
          taken = a == b;
          break;
        case Op::kBne:
          taken = a != b;
          break;
        case Op::kBlt:
          taken = static_cast<int32_t>(a) < static_cast<int32_t>(b);
          break;
        case Op::kBge:
          taken = static_cast<int32_t>(a) >= static_cast<int32_t>(b);
          break;
        case Op::kBltu:
          taken = a < b;
          break;
        default:
          taken = a >= b;
          break;
      }
      if (taken) {
        const uint32_t target = t.pc + imm;
        if ((target & 3) != 0) return trap(Trap::kInstructionMisaligned, target);
        next_pc = target;
      }
      has_rd = false;
      break;
    }
    case Op::kLb:
    case Op::kLh:
    case Op::kLw:
    case Op::kLbu:
    case Op::kLhu:
    case Op::kLdgB:
    case Op::kLdgH:
    case Op::kLdgW:
    case Op::kLdgBu:
    case Op::kLdgHu: {
      const uint32_t addr = a + imm;
      const unsigned bytes = in.mem_bytes;
      if ((addr & (bytes - 1)) != 0) return trap(Trap::kLoadMisaligned, addr);
      uint32_t v = 0;
      const MemStatus s = env.load(addr, bytes, &v, (in.exec & kExecReadOnly) != 0);
      if (s != MemStatus::kOk) return trap(load_trap(s), addr);
      rd_val = (in.exec & kExecUnsigned) != 0 ? v : sign_extend(v, bytes);
      break;
    }
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
    case Op::kFsw: {
      const uint32_t addr = a + imm;
      const unsigned bytes = in.mem_bytes;
      if ((addr & (bytes - 1)) != 0) return trap(Trap::kStoreMisaligned, addr);
      uint32_t v = (in.exec & kExecFpData) != 0 ? t.low(in.rs2) : b;
      if (bytes < 4) v &= (1u << (8 * bytes)) - 1;
      const MemStatus s = env.store(addr, bytes, v);
      if (s != MemStatus::kOk) return trap(store_trap(s), addr);
      has_rd = false;
      break;
    }
    case Op::kAddi:
      rd_val = a + imm;
      break;
    case Op::kSlti:
      rd_val = static_cast<int32_t>(a) < in.imm ? 1 : 0;
      break;
    case Op::kSltiu:
      rd_val = a < imm ? 1 : 0;
      break;
    case Op::kXori:
      rd_val = a ^ imm;
      break;
    case Op::kOri:
      rd_val = a | imm;
      break;
    case Op::kAndi:
      rd_val = a & imm;
      break;
    case Op::kSlli:
      rd_val = a << (imm & 31);
      break;
    case Op::kSrli:
      rd_val = a >> (imm & 31);
      break;
    case Op::kSrai:
      rd_val = static_cast<uint32_t>(static_cast<int32_t>(a) >> (imm & 31));
      break;
    case Op::kAdd:
      rd_val = a + b;
      break;
    case Op::kSub:
      rd_val = a - b;
      break;
    case Op::kSll:
      rd_val = a << (b & 31);
      break;
    case Op::kSlt:
      rd_val = static_cast<int32_t>(a) < static_cast<int32_t>(b) ? 1 : 0;
      break;
    case Op::kSltu:
      rd_val = a < b ? 1 : 0;
      break;
    case Op::kXor:
      rd_val = a ^ b;
      break;
    case Op::kSrl:
      rd_val = a >> (b & 31);
      break;
    case Op::kSra:
      rd_val = static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31));
      break;
    case Op::kOr:
      rd_val = a | b;
      break;
    case Op::kAnd:
      rd_val = a & b;
      break;
    // Memory ordering is trivial: one thread executes one instruction at a time.
    case Op::kFence:
    case Op::kFenceTso:
    case Op::kFenceI:
      has_rd = false;
      break;
    case Op::kEcall:
      return trap(Trap::kEcall);
    case Op::kEbreak:
      return trap(Trap::kEbreak);
    case Op::kWfi:
      t.pc = next_pc;
      return trap(Trap::kWfi);

    // ---- Zicsr (chapter 9) ----
    case Op::kCsrrw:
    case Op::kCsrrs:
    case Op::kCsrrc:
    case Op::kCsrrwi:
    case Op::kCsrrsi:
    case Op::kCsrrci: {
      const bool imm_form = in.op >= Op::kCsrrwi;
      const uint32_t src = imm_form ? imm : a;
      const bool is_write_op = in.op == Op::kCsrrw || in.op == Op::kCsrrwi;
      // csrrw(i) with rd=x0 does not read; csrrs/c(i) with rs1=x0 / zimm=0 do not write.
      const bool do_read = !is_write_op || in.rd != 0;
      const bool do_write = is_write_op || in.rs1 != 0;
      if (do_write && (in.csr >> 10) == 3) return trap(Trap::kIllegalInstruction);  // read-only CSR
      uint32_t old = 0;
      if (is_fp_csr(in.csr)) {
        old = fp_csr_read(in.csr, t.fcsr);
      } else if (do_read && !env.csr_read(in.csr, &old)) {
        return trap(csr_trap(in.csr));
      }
      if (do_write) {
        uint32_t v = src;
        if (in.op == Op::kCsrrs || in.op == Op::kCsrrsi) v = old | src;
        if (in.op == Op::kCsrrc || in.op == Op::kCsrrci) v = old & ~src;
        if (is_fp_csr(in.csr)) {
          t.fcsr = fp_csr_write(in.csr, t.fcsr, v);
        } else if (!env.csr_write(in.csr, v)) {
          return trap(csr_trap(in.csr));
        }
      }
      rd_val = old;
      break;
    }

    // ---- M (chapter 7) ----
    case Op::kMul:
      rd_val = a * b;
      break;
    case Op::kMulh:
      rd_val = mulh(a, b);
      break;
    case Op::kMulhsu:
      rd_val = mulhsu(a, b);
      break;
    case Op::kMulhu:
      rd_val = mulhu(a, b);
      break;
    case Op::kDiv:
      rd_val = div_s(a, b);
      break;
    case Op::kDivu:
      rd_val = div_u(a, b);
      break;
    case Op::kRem:
      rd_val = rem_s(a, b);
      break;
    case Op::kRemu:
      rd_val = rem_u(a, b);
      break;

    // ---- A (chapter 8) ----
    case Op::kLrW: {
      if ((a & 3) != 0) return trap(Trap::kLoadMisaligned, a);
      const MemStatus s = env.load_reserved(a, &rd_val);
      if (s != MemStatus::kOk) return trap(load_trap(s), a);
      break;
    }
    case Op::kScW: {
      if ((a & 3) != 0) return trap(Trap::kStoreMisaligned, a);
      bool ok = false;
      const MemStatus s = env.store_conditional(a, b, &ok);
      if (s != MemStatus::kOk) return trap(store_trap(s), a);
      rd_val = ok ? 0 : 1;
      break;
    }
    case Op::kAmoswapW:
    case Op::kAmoaddW:
    case Op::kAmoxorW:
    case Op::kAmoandW:
    case Op::kAmoorW:
    case Op::kAmominW:
    case Op::kAmomaxW:
    case Op::kAmominuW:
    case Op::kAmomaxuW:
    case Op::kAtomFadd:
    case Op::kAtomInc:
    case Op::kAtomDec:
    case Op::kAtomCas: {
      // AMOs raise store/AMO exceptions, also for the read (spec 8.4).
      if ((a & 3) != 0) return trap(Trap::kStoreMisaligned, a);
      uint32_t old = 0;
      MemStatus s = env.load(a, 4, &old, false);
      if (s != MemStatus::kOk) return trap(store_trap(s), a);
      if (info(in.op).mem == Mem::kAmoCas) {
        if (old == b) s = env.store(a, 4, t.x[in.rs3]);
      } else {
        s = env.store(a, 4, amo_result(in.op, old, b));
      }
      if (s != MemStatus::kOk) return trap(store_trap(s), a);
      rd_val = old;
      break;
    }

    // ---- F (chapter 11) ----
    case Op::kFlw: {
      const uint32_t addr = a + imm;
      if ((addr & 3) != 0) return trap(Trap::kLoadMisaligned, addr);
      uint32_t v = 0;
      const MemStatus s = env.load(addr, 4, &v, false);
      if (s != MemStatus::kOk) return trap(load_trap(s), addr);
      t.set_fs(in.rd, v);  // bits unchanged: loads do not canonicalize NaNs
      has_rd = false;
      break;
    }
    case Op::kFaddS:
    case Op::kFsubS:
    case Op::kFmulS:
    case Op::kFdivS:
    case Op::kFsqrtS:
    case Op::kFmaddS:
    case Op::kFmsubS:
    case Op::kFnmsubS:
    case Op::kFnmaddS: {
      const unsigned r = effective_rm(in, t);
      if (r > rm::kRmm) return trap(Trap::kIllegalInstruction);
      uint32_t fa = t.fs(in.rs1), fb = t.fs(in.rs2), fc = t.fs(in.rs3);
      // Sign flips are exact: fmsub = a*b-c, fnmsub = -(a*b)+c, fnmadd = -(a*b)-c.
      if (in.op == Op::kFmsubS || in.op == Op::kFnmaddS) fc ^= fp::kSignBit;
      if (in.op == Op::kFnmsubS || in.op == Op::kFnmaddS) fa ^= fp::kSignBit;
      const fp::Arith kind = arith_kind(in.op);
      uint32_t v;
      if (!kTrackFflags && r == rm::kRne) {
        v = fast_arith(kind, fa, fb, fc);
      } else {
        uint32_t flags = 0;
        v = fp::arith(kind, fa, fb, fc, r, &flags);
        if (kTrackFflags) t.fcsr |= flags;
      }
      t.set_fs(in.rd, v);
      has_rd = false;
      break;
    }
    case Op::kFsgnjS:
    case Op::kFsgnjnS:
    case Op::kFsgnjxS: {
      const uint32_t fa = t.fs(in.rs1), fb = t.fs(in.rs2);
      uint32_t sign = fb & fp::kSignBit;
      if (in.op == Op::kFsgnjnS) sign ^= fp::kSignBit;
      if (in.op == Op::kFsgnjxS) sign = (fa ^ fb) & fp::kSignBit;
      t.set_fs(in.rd, (fa & ~fp::kSignBit) | sign);
      has_rd = false;
      break;
    }
    case Op::kFminS:
    case Op::kFmaxS: {
      uint32_t flags = 0;
      t.set_fs(in.rd, fp::min_max(t.fs(in.rs1), t.fs(in.rs2), in.op == Op::kFmaxS, &flags));
      if (kTrackFflags) t.fcsr |= flags;
      has_rd = false;
      break;
    }
    case Op::kFcvtWS:
    case Op::kFcvtWuS: {
      const unsigned r = effective_rm(in, t);
      if (r > rm::kRmm) return trap(Trap::kIllegalInstruction);
      uint32_t flags = 0;
      const uint32_t fa = t.fs(in.rs1);
      rd_val = in.op == Op::kFcvtWS ? fp::cvt_w_s(fa, r, &flags) : fp::cvt_wu_s(fa, r, &flags);
      if (kTrackFflags) t.fcsr |= flags;
      break;
    }
    case Op::kFcvtSW:
    case Op::kFcvtSWu: {
      const unsigned r = effective_rm(in, t);
      if (r > rm::kRmm) return trap(Trap::kIllegalInstruction);
      uint32_t flags = 0;
      t.set_fs(in.rd, in.op == Op::kFcvtSW ? fp::cvt_s_w(a, r, &flags) : fp::cvt_s_wu(a, r, &flags));
      if (kTrackFflags) t.fcsr |= flags;
      has_rd = false;
      break;
    }
    case Op::kFmvXW:
      rd_val = t.low(in.rs1);  // the low 32 bits, boxed or not
      break;
    case Op::kFmvWX:
      t.set_fs(in.rd, a);
      has_rd = false;
      break;
    case Op::kFeqS:
    case Op::kFltS:
    case Op::kFleS: {
      uint32_t flags = 0;
      const uint32_t fa = t.fs(in.rs1), fb = t.fs(in.rs2);
      rd_val = in.op == Op::kFeqS   ? fp::feq(fa, fb, &flags)
               : in.op == Op::kFltS ? fp::flt(fa, fb, &flags)
                                    : fp::fle(fa, fb, &flags);
      if (kTrackFflags) t.fcsr |= flags;
      break;
    }
    case Op::kFclassS:
      rd_val = fp::fclass(t.fs(in.rs1));
      break;

    // ---- D (chapter 12): registers hold doubles, singles NaN-boxed ----
    // RV32 has no 64-bit integer data path: fld and fsd are one 8-byte
    // access each (not required to be atomic, spec 12.3).
    case Op::kFld: {
      const uint32_t addr = a + imm;
      if ((addr & 7) != 0) return trap(Trap::kLoadMisaligned, addr);
      uint32_t w[2] = {};
      const MemStatus s = env.load_wide(addr, 8, w);
      if (s != MemStatus::kOk) return trap(load_trap(s), addr);
      t.set_fd(in.rd, uint64_t{w[1]} << 32 | w[0]);
      has_rd = false;
      break;
    }
    case Op::kFsd: {
      const uint32_t addr = a + imm;
      if ((addr & 7) != 0) return trap(Trap::kStoreMisaligned, addr);
      const uint64_t v = t.fd(in.rs2);
      const uint32_t w[2] = {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
      const MemStatus s = env.store_wide(addr, 8, w);
      if (s != MemStatus::kOk) return trap(store_trap(s), addr);
      has_rd = false;
      break;
    }
    case Op::kFaddD:
    case Op::kFsubD:
    case Op::kFmulD:
    case Op::kFdivD:
    case Op::kFsqrtD:
    case Op::kFmaddD:
    case Op::kFmsubD:
    case Op::kFnmsubD:
    case Op::kFnmaddD: {
      const unsigned r = effective_rm(in, t);
      if (r > rm::kRmm) return trap(Trap::kIllegalInstruction);
      uint64_t fa = t.fd(in.rs1), fb = t.fd(in.rs2), fc = t.fd(in.rs3);
      if (in.op == Op::kFmsubD || in.op == Op::kFnmaddD) fc ^= fp::d::kSignBit;
      if (in.op == Op::kFnmsubD || in.op == Op::kFnmaddD) fa ^= fp::d::kSignBit;
      const fp::Arith kind = arith_kind(in.op);
      if (!kTrackFflags && r == rm::kRne) {
        t.set_fd(in.rd, fast_arith_d(kind, fa, fb, fc));
      } else {
        uint32_t flags = 0;
        t.set_fd(in.rd, fp::d::arith(kind, fa, fb, fc, r, &flags));
        if (kTrackFflags) t.fcsr |= flags;
      }
      has_rd = false;
      break;
    }
    case Op::kFsgnjD:
    case Op::kFsgnjnD:
    case Op::kFsgnjxD: {
      const uint64_t fa = t.fd(in.rs1), fb = t.fd(in.rs2);
      uint64_t sign = fb & fp::d::kSignBit;
      if (in.op == Op::kFsgnjnD) sign ^= fp::d::kSignBit;
      if (in.op == Op::kFsgnjxD) sign = (fa ^ fb) & fp::d::kSignBit;
      t.set_fd(in.rd, (fa & ~fp::d::kSignBit) | sign);
      has_rd = false;
      break;
    }
    case Op::kFminD:
    case Op::kFmaxD: {
      uint32_t flags = 0;
      t.set_fd(in.rd, fp::d::min_max(t.fd(in.rs1), t.fd(in.rs2), in.op == Op::kFmaxD, &flags));
      if (kTrackFflags) t.fcsr |= flags;
      has_rd = false;
      break;
    }
    case Op::kFcvtSD:
    case Op::kFcvtDS: {
      uint32_t flags = 0;
      if (in.op == Op::kFcvtSD) {
        const unsigned r = effective_rm(in, t);
        if (r > rm::kRmm) return trap(Trap::kIllegalInstruction);
        t.set_fs(in.rd, fp::cvt_s_d(t.fd(in.rs1), r, &flags));
      } else {
        // Exact, but a dynamic rounding mode must still be a valid one.
        if (in.rm == rm::kDyn && effective_rm(in, t) > rm::kRmm) return trap(Trap::kIllegalInstruction);
        t.set_fd(in.rd, fp::cvt_d_s(t.fs(in.rs1), &flags));
      }
      if (kTrackFflags) t.fcsr |= flags;
      has_rd = false;
      break;
    }
    case Op::kFcvtWD:
    case Op::kFcvtWuD: {
      const unsigned r = effective_rm(in, t);
      if (r > rm::kRmm) return trap(Trap::kIllegalInstruction);
      uint32_t flags = 0;
      rd_val = in.op == Op::kFcvtWD ? fp::d::cvt_w(t.fd(in.rs1), r, &flags) : fp::d::cvt_wu(t.fd(in.rs1), r, &flags);
      if (kTrackFflags) t.fcsr |= flags;
      break;
    }
    case Op::kFcvtDW:
    case Op::kFcvtDWu:
      if (in.rm == rm::kDyn && effective_rm(in, t) > rm::kRmm) return trap(Trap::kIllegalInstruction);
      // Exact: every 32-bit integer is a double.
      t.set_fd(in.rd, fp::d::to_bits(in.op == Op::kFcvtDW ? static_cast<double>(static_cast<int32_t>(a))
                                                          : static_cast<double>(a)));
      has_rd = false;
      break;
    case Op::kFeqD:
    case Op::kFltD:
    case Op::kFleD: {
      uint32_t flags = 0;
      const uint64_t fa = t.fd(in.rs1), fb = t.fd(in.rs2);
      rd_val = in.op == Op::kFeqD   ? fp::d::feq(fa, fb, &flags)
               : in.op == Op::kFltD ? fp::d::flt(fa, fb, &flags)
                                    : fp::d::fle(fa, fb, &flags);
      if (kTrackFflags) t.fcsr |= flags;
      break;
    }
    case Op::kFclassD:
      rd_val = fp::d::fclass(t.fd(in.rs1));
      break;

    // ---- Tessera (docs/firmware-abi.md) ----
    case Op::kSfuSin:
    case Op::kSfuCos:
    case Op::kSfuEx2:
    case Op::kSfuLg2:
    case Op::kSfuRcp:
    case Op::kSfuRsqrt:
      t.set_fs(in.rd, sfu(in.op, t.fs(in.rs1)));
      has_rd = false;
      break;
    case Op::kBarSync:
      t.pc = next_pc;
      return trap(Trap::kBarrier);
    case Op::kExit:
      t.pc = next_pc;
      return trap(Trap::kThreadExit);

    // ---- Tessera wide memory and 64-bit atomics (docs/firmware-abi.md) ----
    // The decoder guarantees the register groups lie within x1..x31 / f0..f31.
    case Op::kLdV2:
    case Op::kLdV4:
    case Op::kFldV2:
    case Op::kFldV4: {
      const uint32_t addr = a + imm;
      const unsigned bytes = in.mem_bytes;
      if ((addr & (bytes - 1)) != 0) return trap(Trap::kLoadMisaligned, addr);
      uint32_t w[4] = {};
      const MemStatus s = env.load_wide(addr, bytes, w);
      if (s != MemStatus::kOk) return trap(load_trap(s), addr);
      if ((in.exec & kExecFpData) != 0) {
        for (unsigned k = 0; k < in.group; ++k) t.set_fs(in.rd + k, w[k]);
      } else {
        for (unsigned k = 0; k < in.group; ++k) t.x[in.rd + k] = w[k];
      }
      has_rd = false;
      break;
    }
    case Op::kStV2:
    case Op::kStV4:
    case Op::kFstV2:
    case Op::kFstV4: {
      const uint32_t addr = a + imm;
      const unsigned bytes = in.mem_bytes;
      if ((addr & (bytes - 1)) != 0) return trap(Trap::kStoreMisaligned, addr);
      const bool fp_data = (in.exec & kExecFpData) != 0;
      uint32_t w[4] = {};
      for (unsigned k = 0; k < in.group; ++k) w[k] = fp_data ? t.low(in.rs2 + k) : t.x[in.rs2 + k];
      const MemStatus s = env.store_wide(addr, bytes, w);
      if (s != MemStatus::kOk) return trap(store_trap(s), addr);
      has_rd = false;
      break;
    }
    case Op::kAtomAdd64:
    case Op::kAtomExch64:
    case Op::kAtomCas64: {
      if ((a & 7) != 0) return trap(Trap::kStoreMisaligned, a);
      uint32_t w[2] = {};
      MemStatus s = env.load_wide(a, 8, w);
      if (s != MemStatus::kOk) return trap(store_trap(s), a);
      const uint64_t old = uint64_t{w[1]} << 32 | w[0];
      const uint64_t v = pair(t, in.rs2);
      const bool cas = info(in.op).mem == Mem::kAmoCas;
      if (!cas || old == v) {
        const uint64_t updated = atomic_new_value64(in.op, old, v, cas ? pair(t, in.rs3) : 0);
        const uint32_t nw[2] = {static_cast<uint32_t>(updated), static_cast<uint32_t>(updated >> 32)};
        s = env.store_wide(a, 8, nw);
        if (s != MemStatus::kOk) return trap(store_trap(s), a);
      }
      t.x[in.rd] = w[0];
      t.x[in.rd + 1] = w[1];
      has_rd = false;
      break;
    }

    // Warp-level instructions need the warp's other lanes: the SM executes
    // them (isa/warp_ops.h); one thread alone (a control core) cannot.
    case Op::kShflIdx:
    case Op::kShflUp:
    case Op::kShflDown:
    case Op::kShflXor:
    case Op::kVoteBallot:
    case Op::kVoteAny:
    case Op::kVoteAll:
    case Op::kActivemask:
    case Op::kSyncwarp:
    case Op::kBarRedPopc:
    case Op::kBarRedAnd:
    case Op::kBarRedOr:
    case Op::kMembarCta:
    case Op::kIllegal:
    case Op::kCount:
      return trap(Trap::kIllegalInstruction);

    // Transactions live in the cluster's L1 caches: the control-core shell
    // executes tx.* itself and never passes them here.
    case Op::kTxBegin:
    case Op::kTxEnd:
    case Op::kTxAbort:
    case Op::kTxTest:
      return trap(Trap::kTransactional);
  }

  if (has_rd && in.rd != 0) t.x[in.rd] = rd_val;
  t.pc = next_pc;
  return {};
}

template ExecResult execute<true>(const Inst&, ThreadState&, ExecEnv&);
template ExecResult execute<false>(const Inst&, ThreadState&, ExecEnv&);

}  // namespace tessera::isa
