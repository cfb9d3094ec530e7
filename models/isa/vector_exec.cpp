// Functional executor of the RVV 1.0 subset (vector.h). Section numbers
// refer to the RISC-V "V" vector extension specification, version 1.0.
//
// Choices this executor makes where the spec lets an implementation choose
// (docs/vector.md, "ISA"):
//  - tail-agnostic and mask-agnostic elements are left undisturbed (3.4.3);
//  - vl = min(AVL, VLMAX) (6.3);
//  - vsetvli x0,x0 that would change VLMAX, or that follows vill, sets vill (6.2);
//  - ELEN = 32: SEW 8, 16, 32; SEW > LMUL * ELEN (so mf8, and mf4 above e8)
//    sets vill (3.4.2);
//  - misaligned element addresses raise an address-misaligned trap (7.8);
//  - ordered and unordered indexed accesses, and vfredusum/vfredosum, all go
//    in element order;
//  - reductions, vcpop.m and vfirst.m raise illegal instruction when vstart != 0.
#include <algorithm>

#include "isa/fp.h"
#include "isa/vector.h"

namespace tessera::isa::vec {

namespace {

// One vector operand: a register group of EEW-bit elements and EMUL*8, or a
// single mask register.
struct Operand {
  bool used = false;
  uint8_t reg = 0;
  unsigned eew = 0;    // 1 for a mask register
  unsigned emul8 = 0;  // EMUL * 8
  unsigned count() const { return std::max(1u, emul8 / 8); }
};

struct Shape {
  bool legal = false;
  Operand dst, vs1, vs2, old_vd;
  bool scalar_dst = false;  // vmv.x.s, vfmv.f.s, vcpop.m, vfirst.m
};

Operand group(uint8_t reg, unsigned eew, unsigned emul8) { return Operand{true, reg, eew, emul8}; }
Operand mask_reg(uint8_t reg) { return Operand{true, reg, 1, 8}; }
Operand single(uint8_t reg, unsigned eew) { return Operand{true, reg, eew, 8}; }

bool valid_group(const Operand& o) {
  if (!o.used) return true;
  if (o.emul8 < 1 || o.emul8 > 64) return false;  // EMUL outside 1/8..8 is reserved (7.3)
  return o.reg % o.count() == 0;                  // register-group alignment (3.4.2)
}

bool overlaps(const Operand& a, const Operand& b) {
  return a.used && b.used && a.reg < b.reg + b.count() && b.reg < a.reg + a.count();
}

// Destination/source overlap (5.2): allowed when the EEWs match; when the
// destination is narrower, only in the lowest-numbered part of the source;
// when wider, only in the highest-numbered part and with source EMUL >= 1.
bool overlap_ok(const Operand& d, const Operand& s) {
  if (!overlaps(d, s)) return true;
  if (d.eew == s.eew) return true;
  if (d.eew < s.eew) return d.reg == s.reg;
  return s.emul8 >= 8 && s.reg + s.count() == d.reg + d.count();
}

constexpr bool is_fp(VOp op) {
  return (op >= VOp::kVfadd && op <= VOp::kVfmvVF) || op == VOp::kVfredusum || op == VOp::kVfredosum ||
         op == VOp::kVfmvFS || op == VOp::kVfmvSF;
}
constexpr bool is_int_compare(VOp op) { return op >= VOp::kVmseq && op <= VOp::kVmsgt; }
constexpr bool is_fp_compare(VOp op) { return op == VOp::kVmfeq || op == VOp::kVmflt || op == VOp::kVmfle; }
constexpr bool is_reduction(VOp op) {
  return (op >= VOp::kVredsum && op <= VOp::kVredmax) || op == VOp::kVfredusum || op == VOp::kVfredosum;
}
constexpr bool is_mask_logical(VOp op) { return op >= VOp::kVmandn && op <= VOp::kVmxnor; }
constexpr bool is_multiply_add(VOp op) {
  return op == VOp::kVmacc || op == VOp::kVnmsac || op == VOp::kVmadd || op == VOp::kVfmacc || op == VOp::kVfnmsac;
}

// The operands and their legality under vtype t (everything but vset*).
Shape analyze(const VInst& in, const Vtype& t, uint32_t vstart) {
  Shape s;
  if (in.op == VOp::kIllegal || t.vill) return s;
  if (is_fp(in.op) && t.sew != 32) return s;  // single precision only (ELEN 32, no Zvfh)
  const unsigned sew = t.sew, l8 = t.lmul8;
  const bool vv = in.form == Form::kVV || in.form == Form::kWV || in.form == Form::kVS || in.form == Form::kMM;
  bool mask_dst = false;
  switch (in.op) {
    case VOp::kVle:
    case VOp::kVlse:
    case VOp::kVse:
    case VOp::kVsse:
      s.dst = group(in.vd, in.eew, in.eew * l8 / sew);  // EMUL = EEW/SEW * LMUL (7.3)
      break;
    case VOp::kVluxei:
    case VOp::kVloxei:
    case VOp::kVsuxei:
    case VOp::kVsoxei:
      s.dst = group(in.vd, sew, l8);  // data EEW = SEW, index EEW from the instruction (7.6)
      s.vs2 = group(in.vs2, in.eew, in.eew * l8 / sew);
      break;
    case VOp::kVwaddu:
    case VOp::kVwadd:
    case VOp::kVwmulu:
    case VOp::kVwmul:
      if (2 * sew > kElen || 2 * l8 > 64) return s;
      s.dst = group(in.vd, 2 * sew, 2 * l8);
      s.vs2 = group(in.vs2, sew, l8);
      if (vv) s.vs1 = group(in.vs1, sew, l8);
      break;
    case VOp::kVnsrl:
    case VOp::kVnsra:
      if (2 * sew > kElen || 2 * l8 > 64) return s;
      s.dst = group(in.vd, sew, l8);
      s.vs2 = group(in.vs2, 2 * sew, 2 * l8);
      if (vv) s.vs1 = group(in.vs1, sew, l8);
      break;
    case VOp::kVmv:
    case VOp::kVfmvVF:
      s.dst = group(in.vd, sew, l8);
      if (vv) s.vs1 = group(in.vs1, sew, l8);
      break;
    case VOp::kVid:
      s.dst = group(in.vd, sew, l8);
      break;
    case VOp::kVmvXS:
    case VOp::kVfmvFS:
      s.vs2 = single(in.vs2, sew);  // ignores LMUL and alignment (16.1)
      s.scalar_dst = true;
      break;
    case VOp::kVmvSX:
    case VOp::kVfmvSF:
      s.dst = single(in.vd, sew);
      break;
    case VOp::kVcpop:
    case VOp::kVfirst:
      if (vstart != 0) return s;
      s.vs2 = mask_reg(in.vs2);
      s.scalar_dst = true;
      break;
    default:
      if (is_reduction(in.op)) {
        if (vstart != 0) return s;
        s.dst = single(in.vd, sew);
        s.vs1 = single(in.vs1, sew);
        s.vs2 = group(in.vs2, sew, l8);
      } else if (is_mask_logical(in.op)) {
        s.dst = mask_reg(in.vd);
        s.vs1 = mask_reg(in.vs1);
        s.vs2 = mask_reg(in.vs2);
        mask_dst = true;
      } else {
        // Single-width arithmetic, merges, compares, slides.
        mask_dst = is_int_compare(in.op) || is_fp_compare(in.op);
        s.dst = mask_dst ? mask_reg(in.vd) : group(in.vd, sew, l8);
        s.vs2 = group(in.vs2, sew, l8);
        if (vv) s.vs1 = group(in.vs1, sew, l8);
        if (is_multiply_add(in.op) || in.op == VOp::kVslideup || in.op == VOp::kVslide1up) s.old_vd = s.dst;
        // The slides up must not overwrite the source they read (16.3.1, 16.3.3).
        if ((in.op == VOp::kVslideup || in.op == VOp::kVslide1up) && overlaps(s.dst, s.vs2)) return s;
      }
      break;
  }
  if (!valid_group(s.dst) || !valid_group(s.vs1) || !valid_group(s.vs2)) return s;
  if (!in.is_store() && (!overlap_ok(s.dst, s.vs1) || !overlap_ok(s.dst, s.vs2))) return s;
  // A masked instruction's vector destination may not overlap v0, except a
  // mask result or a reduction's scalar (5.3).
  if (in.masked && s.dst.used && !in.is_store() && !mask_dst && !is_reduction(in.op) && s.dst.reg == 0) return s;
  s.legal = true;
  return s;
}

constexpr uint32_t sew_mask(unsigned sew) { return sew >= 32 ? 0xFFFFFFFFu : (1u << sew) - 1; }
constexpr int32_t sext(uint32_t v, unsigned sew) {
  return sew >= 32 ? static_cast<int32_t>(v) : static_cast<int32_t>(v << (32 - sew)) >> (32 - sew);
}

// Single-width integer operations; a = vs2[i], b = vs1[i] / rs1 / imm (11).
uint32_t int_op(VOp op, uint32_t a, uint32_t b, unsigned sew) {
  const int32_t sa = sext(a, sew), sb = sext(b, sew);
  const unsigned sh = b & (sew - 1);  // shifts use the low lg2(SEW) bits (11.6)
  switch (op) {
    case VOp::kVadd:
      return a + b;
    case VOp::kVsub:
      return a - b;
    case VOp::kVrsub:
      return b - a;
    case VOp::kVminu:
      return std::min(a, b);
    case VOp::kVmin:
      return static_cast<uint32_t>(std::min(sa, sb));
    case VOp::kVmaxu:
      return std::max(a, b);
    case VOp::kVmax:
      return static_cast<uint32_t>(std::max(sa, sb));
    case VOp::kVand:
      return a & b;
    case VOp::kVor:
      return a | b;
    case VOp::kVxor:
      return a ^ b;
    case VOp::kVsll:
      return a << sh;
    case VOp::kVsrl:
      return a >> sh;
    case VOp::kVsra:
      return static_cast<uint32_t>(sa >> sh);
    case VOp::kVmul:
      return a * b;
    default:
      return 0;
  }
}

bool int_compare(VOp op, uint32_t a, uint32_t b, unsigned sew) {
  const int32_t sa = sext(a, sew), sb = sext(b, sew);
  switch (op) {
    case VOp::kVmseq:
      return a == b;
    case VOp::kVmsne:
      return a != b;
    case VOp::kVmsltu:
      return a < b;
    case VOp::kVmslt:
      return sa < sb;
    case VOp::kVmsleu:
      return a <= b;
    case VOp::kVmsle:
      return sa <= sb;
    case VOp::kVmsgtu:
      return a > b;
    default:  // kVmsgt
      return sa > sb;
  }
}

uint32_t reduce(VOp op, uint32_t acc, uint32_t v, unsigned sew) {
  switch (op) {
    case VOp::kVredsum:
      return acc + v;
    case VOp::kVredand:
      return acc & v;
    case VOp::kVredor:
      return acc | v;
    case VOp::kVredxor:
      return acc ^ v;
    case VOp::kVredminu:
      return std::min(acc & sew_mask(sew), v);
    case VOp::kVredmin:
      return static_cast<uint32_t>(std::min(sext(acc, sew), sext(v, sew)));
    case VOp::kVredmaxu:
      return std::max(acc & sew_mask(sew), v);
    default:  // kVredmax
      return static_cast<uint32_t>(std::max(sext(acc, sew), sext(v, sew)));
  }
}

bool mask_logic(VOp op, bool a, bool b) {  // a = vs2, b = vs1 (15.1)
  switch (op) {
    case VOp::kVmandn:
      return a && !b;
    case VOp::kVmand:
      return a && b;
    case VOp::kVmor:
      return a || b;
    case VOp::kVmxor:
      return a != b;
    case VOp::kVmorn:
      return a || !b;
    case VOp::kVmnand:
      return !(a && b);
    case VOp::kVmnor:
      return !(a || b);
    default:  // kVmxnor
      return a == b;
  }
}

VResult illegal() { return VResult{Trap::kIllegalInstruction, 0, 0}; }

uint32_t xval(const ThreadState& sc, unsigned r) { return r == 0 ? 0 : sc.x[r]; }
void set_x(ThreadState& sc, unsigned r, uint32_t v) {
  if (r != 0) sc.x[r] = v;
}

// vsetvli, vsetivli, vsetvl (6).
VResult exec_vset(const VInst& in, VectorState& st, ThreadState& sc) {
  const uint32_t value = in.op == VOp::kVsetvl ? xval(sc, in.vs2) : in.vtypei;
  const Vtype t = parse_vtype(value);
  const unsigned old_vlmax = st.vlmax();
  const bool old_vill = st.type().vill;
  if (t.vill) {
    st.vtype = kVtypeVill;
    st.vl = 0;
  } else {
    st.vtype = value;
    const unsigned vlmax = st.vlmax();
    if (in.op == VOp::kVsetivli) {
      st.vl = std::min<uint32_t>(static_cast<uint32_t>(in.imm), vlmax);
    } else if (in.vs1 != 0) {
      st.vl = std::min<uint32_t>(xval(sc, in.vs1), vlmax);
    } else if (in.vd != 0) {
      st.vl = vlmax;  // rs1 = x0, rd != x0: AVL is ~0 (6.2)
    } else if (old_vill || vlmax != old_vlmax) {
      // rd = rs1 = x0 keeps vl; reserved when VLMAX changes or after vill (6.2).
      st.vtype = kVtypeVill;
      st.vl = 0;
    }
  }
  set_x(sc, in.vd, st.vl);
  st.vstart = 0;
  return {};
}

VResult exec_memory(const VInst& in, const Shape& s, VectorState& st, ThreadState& sc, VectorMemory& mem) {
  const bool store = in.is_store();
  const bool indexed = in.mem == MemKind::kIndexedOrdered || in.mem == MemKind::kIndexedUnordered;
  const unsigned data_eew = s.dst.eew, bytes = data_eew / 8;
  const uint32_t base = xval(sc, in.vs1);
  const uint32_t stride = xval(sc, in.vs2);
  if (in.mem == MemKind::kUnitStride && !in.masked && st.vstart < st.vl && base % bytes == 0) {
    // Element i is at base + i * bytes and in the register group at byte
    // i * bytes (4.1): the span is one copy, if the memory takes it whole.
    const uint64_t first = uint64_t{base} + uint64_t{st.vstart} * bytes;
    const uint64_t length = uint64_t{st.vl - st.vstart} * bytes;
    if (first + length <= (uint64_t{1} << 32)) {
      uint8_t* group = st.reg(in.vd) + st.vstart * bytes;
      const auto a = static_cast<uint32_t>(first);
      const auto n = static_cast<uint32_t>(length);
      if (store ? mem.write_span(a, n, bytes, group) : mem.read_span(a, n, bytes, group)) {
        st.vstart = 0;
        return {};
      }
    }
  }
  for (uint32_t i = st.vstart; i < st.vl; ++i) {
    if (in.masked && !st.mask_bit(0, i)) continue;
    uint32_t addr = base + i * bytes;
    if (in.mem == MemKind::kStrided) addr = base + i * stride;
    if (indexed) addr = base + st.element(in.vs2, i, in.eew);  // zero-extended offset (7.6)
    const Trap misaligned = store ? Trap::kStoreMisaligned : Trap::kLoadMisaligned;
    const Trap fault = store ? Trap::kStoreAccessFault : Trap::kLoadAccessFault;
    MemStatus status = MemStatus::kOk;
    if (addr % bytes != 0) {
      status = MemStatus::kMisaligned;
    } else if (store) {
      uint8_t data[4];
      const uint32_t v = st.element(in.vd, i, data_eew);
      for (unsigned b = 0; b < bytes; ++b) data[b] = static_cast<uint8_t>(v >> (8 * b));
      status = mem.write(addr, bytes, data);
    } else {
      uint8_t data[4] = {};
      status = mem.read(addr, bytes, data);
      if (status == MemStatus::kOk) {
        uint32_t v = 0;
        for (unsigned b = 0; b < bytes; ++b) v |= uint32_t{data[b]} << (8 * b);
        st.set_element(in.vd, i, data_eew, v);
      }
    }
    if (status != MemStatus::kOk) {
      // The elements before i are done; vstart names the faulting one (7.7).
      st.vstart = i;
      return VResult{status == MemStatus::kMisaligned ? misaligned : fault, addr, i};
    }
  }
  st.vstart = 0;
  return {};
}

VResult exec_fp(const VInst& in, VectorState& st, ThreadState& sc) {
  const unsigned frm = (sc.fcsr >> 5) & 7;
  if (frm > rm::kRmm) return illegal();  // reserved frm (13.1, F spec 11.2)
  uint32_t flags = 0;
  const bool vf = in.form == Form::kVF;
  const uint32_t f1 = sc.fs(in.vs1);  // a scalar not NaN-boxed reads as the canonical NaN
  auto op1 = [&](uint32_t i) { return vf ? f1 : st.element(in.vs1, i, 32); };
  auto active = [&](uint32_t i) { return !in.masked || st.mask_bit(0, i); };
  switch (in.op) {
    case VOp::kVfmvFS:
      sc.set_fs(in.vd, st.element(in.vs2, 0, 32));
      break;
    case VOp::kVfmvSF:
      if (st.vstart < st.vl) st.set_element(in.vd, 0, 32, f1);
      break;
    case VOp::kVfmvVF:
      for (uint32_t i = st.vstart; i < st.vl; ++i) st.set_element(in.vd, i, 32, f1);
      break;
    case VOp::kVfredusum:
    case VOp::kVfredosum: {
      if (st.vl == 0) break;
      uint32_t acc = st.element(in.vs1, 0, 32);
      {
        fp::ArithBatch batch(frm, &flags);
        for (uint32_t i = 0; i < st.vl; ++i)
          if (active(i)) acc = batch.arith(fp::Arith::kAdd, acc, st.element(in.vs2, i, 32), 0);
      }
      st.set_element(in.vd, 0, 32, acc);
      break;
    }
    default: {
      // Comparisons and min/max set their flags themselves (no host
      // arithmetic), so only the arithmetic instructions are batched.
      const bool arithmetic = in.op == VOp::kVfadd || in.op == VOp::kVfsub || in.op == VOp::kVfmul ||
                              in.op == VOp::kVfdiv || in.op == VOp::kVfmacc || in.op == VOp::kVfnmsac;
      fp::ArithBatch batch(frm, &flags, arithmetic);
      for (uint32_t i = st.vstart; i < st.vl; ++i) {
        if (!active(i)) continue;
        const uint32_t a = st.element(in.vs2, i, 32), b = op1(i);
        switch (in.op) {
          case VOp::kVmfeq:
          case VOp::kVmflt:
          case VOp::kVmfle: {
            const uint32_t r = in.op == VOp::kVmfeq   ? fp::feq(a, b, &flags)
                               : in.op == VOp::kVmflt ? fp::flt(a, b, &flags)
                                                      : fp::fle(a, b, &flags);
            st.set_mask_bit(in.vd, i, r != 0);
            continue;
          }
          default:
            break;
        }
        uint32_t r = 0;
        const uint32_t d = st.element(in.vd, i, 32);
        switch (in.op) {
          case VOp::kVfadd:
            r = batch.arith(fp::Arith::kAdd, a, b, 0);
            break;
          case VOp::kVfsub:
            r = batch.arith(fp::Arith::kSub, a, b, 0);
            break;
          case VOp::kVfmul:
            r = batch.arith(fp::Arith::kMul, a, b, 0);
            break;
          case VOp::kVfdiv:
            r = batch.arith(fp::Arith::kDiv, a, b, 0);
            break;
          case VOp::kVfmacc:  // +(vs1 * vs2) + vd (13.6)
            r = batch.arith(fp::Arith::kFma, b, a, d);
            break;
          case VOp::kVfnmsac:  // -(vs1 * vs2) + vd
            r = batch.arith(fp::Arith::kFma, b ^ fp::kSignBit, a, d);
            break;
          case VOp::kVfmin:
          case VOp::kVfmax:
            r = fp::min_max(a, b, in.op == VOp::kVfmax, &flags);
            break;
          default:
            break;
        }
        st.set_element(in.vd, i, 32, r);
      }
      break;
    }
  }
  sc.fcsr |= flags;
  st.vstart = 0;
  return {};
}

}  // namespace

VResult execute(const VInst& in, VectorState& st, ThreadState& sc, VectorMemory& mem) {
  if (in.op == VOp::kIllegal) return illegal();
  if (in.fu == FuClass::kConfig) return exec_vset(in, st, sc);
  const Vtype t = st.type();
  const Shape s = analyze(in, t, st.vstart);
  if (!s.legal) return illegal();
  if (in.mem != MemKind::kNone) return exec_memory(in, s, st, sc, mem);
  if (is_fp(in.op)) return exec_fp(in, st, sc);

  const unsigned sew = t.sew;
  const uint32_t vl = st.vl, start = st.vstart;
  auto active = [&](uint32_t i) { return !in.masked || st.mask_bit(0, i); };
  // The scalar operand of .vx/.vi, truncated to SEW (11.1); shifts and
  // slides read their own widths below.
  const uint32_t scalar =
      in.form == Form::kVI || in.form == Form::kWI ? static_cast<uint32_t>(in.imm) : xval(sc, in.vs1);
  const bool vv = in.form == Form::kVV || in.form == Form::kWV;
  auto op1 = [&](uint32_t i) { return (vv ? st.element(in.vs1, i, sew) : scalar) & sew_mask(sew); };

  switch (in.op) {
    case VOp::kVmvXS:
      set_x(sc, in.vd, static_cast<uint32_t>(sext(st.element(in.vs2, 0, sew), sew)));  // even when vl = 0 (16.1)
      break;
    case VOp::kVmvSX:
      if (start < vl) st.set_element(in.vd, 0, sew, scalar);
      break;
    case VOp::kVcpop:
    case VOp::kVfirst: {
      uint32_t count = 0, first = 0xFFFFFFFFu;
      for (uint32_t i = 0; i < vl; ++i) {
        if (!active(i) || !st.mask_bit(in.vs2, i)) continue;
        ++count;
        first = std::min(first, i);
      }
      set_x(sc, in.vd, in.op == VOp::kVcpop ? count : first);
      break;
    }
    case VOp::kVid:
      for (uint32_t i = start; i < vl; ++i) {
        if (active(i)) st.set_element(in.vd, i, sew, i & sew_mask(sew));
      }
      break;
    case VOp::kVmv:
      for (uint32_t i = start; i < vl; ++i) st.set_element(in.vd, i, sew, op1(i));
      break;
    case VOp::kVmerge:
      for (uint32_t i = start; i < vl; ++i) {
        st.set_element(in.vd, i, sew, st.mask_bit(0, i) ? op1(i) : st.element(in.vs2, i, sew));
      }
      break;
    case VOp::kVslideup:
    case VOp::kVslidedown: {
      const uint64_t offset = in.form == Form::kVI ? static_cast<uint32_t>(in.imm) : xval(sc, in.vs1);
      const uint64_t vlmax = st.vlmax();
      for (uint32_t i = start; i < vl; ++i) {
        if (!active(i)) continue;
        if (in.op == VOp::kVslideup) {
          if (i >= offset) st.set_element(in.vd, i, sew, st.element(in.vs2, i - static_cast<uint32_t>(offset), sew));
        } else {
          const uint64_t src = i + offset;
          st.set_element(in.vd, i, sew, src < vlmax ? st.element(in.vs2, static_cast<uint32_t>(src), sew) : 0);
        }
      }
      break;
    }
    case VOp::kVslide1up:
      for (uint32_t i = start; i < vl; ++i) {
        if (active(i)) st.set_element(in.vd, i, sew, i == 0 ? scalar & sew_mask(sew) : st.element(in.vs2, i - 1, sew));
      }
      break;
    case VOp::kVslide1down:
      for (uint32_t i = start; i < vl; ++i) {
        if (active(i)) {
          st.set_element(in.vd, i, sew, i + 1 == vl ? scalar & sew_mask(sew) : st.element(in.vs2, i + 1, sew));
        }
      }
      break;
    case VOp::kVnsrl:
    case VOp::kVnsra:
      for (uint32_t i = start; i < vl; ++i) {
        if (!active(i)) continue;
        const uint32_t a = st.element(in.vs2, i, 2 * sew);
        const unsigned sh = (vv ? st.element(in.vs1, i, sew) : scalar) & (2 * sew - 1);  // lg2(2*SEW) bits (11.7)
        const uint32_t r = in.op == VOp::kVnsrl ? a >> sh : static_cast<uint32_t>(sext(a, 2 * sew) >> sh);
        st.set_element(in.vd, i, sew, r & sew_mask(sew));
      }
      break;
    case VOp::kVwaddu:
    case VOp::kVwadd:
    case VOp::kVwmulu:
    case VOp::kVwmul:
      for (uint32_t i = start; i < vl; ++i) {
        if (!active(i)) continue;
        const uint32_t a = st.element(in.vs2, i, sew), b = op1(i);
        const bool sign = in.op == VOp::kVwadd || in.op == VOp::kVwmul;
        const int32_t wa = sign ? sext(a, sew) : static_cast<int32_t>(a);
        const int32_t wb = sign ? sext(b, sew) : static_cast<int32_t>(b);
        // Operands are at most 16 bits, so the products fit in 32 (ELEN).
        const bool mul = in.op == VOp::kVwmul || in.op == VOp::kVwmulu;
        const uint32_t r = mul ? static_cast<uint32_t>(wa) * static_cast<uint32_t>(wb)
                               : static_cast<uint32_t>(wa) + static_cast<uint32_t>(wb);
        st.set_element(in.vd, i, 2 * sew, r & sew_mask(2 * sew));
      }
      break;
    default:
      if (is_reduction(in.op)) {
        if (vl == 0) break;  // no operation (14.1)
        uint32_t acc = st.element(in.vs1, 0, sew);
        for (uint32_t i = 0; i < vl; ++i) {
          if (active(i)) acc = reduce(in.op, acc, st.element(in.vs2, i, sew), sew);
        }
        st.set_element(in.vd, 0, sew, acc & sew_mask(sew));
      } else if (is_mask_logical(in.op)) {
        for (uint32_t i = start; i < vl; ++i) {
          st.set_mask_bit(in.vd, i, mask_logic(in.op, st.mask_bit(in.vs2, i), st.mask_bit(in.vs1, i)));
        }
      } else if (is_int_compare(in.op)) {
        for (uint32_t i = start; i < vl; ++i) {
          if (active(i)) st.set_mask_bit(in.vd, i, int_compare(in.op, st.element(in.vs2, i, sew), op1(i), sew));
        }
      } else if (is_multiply_add(in.op)) {
        for (uint32_t i = start; i < vl; ++i) {
          if (!active(i)) continue;
          const uint32_t a = st.element(in.vs2, i, sew), b = op1(i), d = st.element(in.vd, i, sew);
          uint32_t r = 0;
          if (in.op == VOp::kVmacc) r = b * a + d;  // +(vs1 * vs2) + vd (11.13)
          if (in.op == VOp::kVnmsac) r = d - b * a;
          if (in.op == VOp::kVmadd) r = b * d + a;  // (vs1 * vd) + vs2
          st.set_element(in.vd, i, sew, r & sew_mask(sew));
        }
      } else {
        for (uint32_t i = start; i < vl; ++i) {
          if (active(i))
            st.set_element(in.vd, i, sew, int_op(in.op, st.element(in.vs2, i, sew), op1(i), sew) & sew_mask(sew));
        }
      }
      break;
  }
  st.vstart = 0;
  return {};
}

VFacts facts(const VInst& in, const VectorState& st) {
  VFacts f;
  const Vtype t = st.type();
  f.fu = in.fu;
  f.mem = in.mem;
  f.sew = t.sew;
  f.lmul8 = t.lmul8;
  if (in.fu == FuClass::kConfig) {
    f.legal = in.op != VOp::kIllegal;
    return f;
  }
  const Shape s = analyze(in, t, st.vstart);
  f.legal = s.legal;
  if (!s.legal) return f;
  const bool scalar_move =
      in.op == VOp::kVmvXS || in.op == VOp::kVmvSX || in.op == VOp::kVfmvFS || in.op == VOp::kVfmvSF;
  f.vl = scalar_move ? 1 : st.vl;
  auto to_group = [](const Operand& o) {
    return o.used ? RegGroup{o.reg, static_cast<uint8_t>(o.count())} : RegGroup{};
  };
  if (in.is_store()) {
    f.src[2] = to_group(s.dst);  // the data to store
  } else {
    f.dst = to_group(s.dst);
    f.src[2] = to_group(s.old_vd);
  }
  f.src[0] = to_group(s.vs1);
  f.src[1] = to_group(s.vs2);
  if (in.masked || in.op == VOp::kVmerge) f.src[3] = RegGroup{0, 1};
  return f;
}

}  // namespace tessera::isa::vec
