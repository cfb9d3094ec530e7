// Instruction decoder: a switch on the major opcode, then on funct3/funct7.
// Encodings per the unprivileged spec 20191213 chapter 24 ("RV32/64G
// Instruction Set Listings") and docs/firmware-abi.md for the custom ones.
#include <iterator>

#include "isa/isa.h"

namespace tessera::isa {
namespace {

constexpr uint8_t xreg(uint32_t r) { return r == 0 ? kNoReg : static_cast<uint8_t>(r); }
constexpr uint8_t freg(uint32_t r) { return static_cast<uint8_t>(kFpRegBase + r); }

constexpr int32_t imm_i(uint32_t raw) { return static_cast<int32_t>(raw) >> 20; }
constexpr int32_t imm_s(uint32_t raw) {
  return static_cast<int32_t>((static_cast<int32_t>(raw) >> 25) * 32) | static_cast<int32_t>((raw >> 7) & 0x1F);
}
constexpr int32_t imm_b(uint32_t raw) {
  const uint32_t v = ((raw >> 7) & 0x1) << 11 | ((raw >> 25) & 0x3F) << 5 | ((raw >> 8) & 0xF) << 1;
  return static_cast<int32_t>(v) | ((static_cast<int32_t>(raw) >> 31) * 4096);
}
constexpr int32_t imm_j(uint32_t raw) {
  const uint32_t v = ((raw >> 12) & 0xFF) << 12 | ((raw >> 20) & 0x1) << 11 | ((raw >> 21) & 0x3FF) << 1;
  return static_cast<int32_t>(v) | ((static_cast<int32_t>(raw) >> 31) * (1 << 20));
}

// Static rounding modes 5 and 6 are reserved (spec section 11.2); 7 is dyn.
constexpr bool valid_rm(uint32_t rm) { return rm != 5 && rm != 6; }

// Shorthands filling the scoreboard view.
inline void dst_x(Inst& i) { i.dst = xreg(i.rd); }
inline void dst_f(Inst& i) { i.dst = freg(i.rd); }

inline Inst& illegal(Inst& i) {
  const uint32_t raw = i.raw;
  i = Inst{};
  i.raw = raw;
  return i;
}

void decode_load(Inst& i, uint32_t f3) {
  static constexpr Op kOps[8] = {Op::kLb,  Op::kLh,  Op::kLw,      Op::kIllegal,
                                 Op::kLbu, Op::kLhu, Op::kIllegal, Op::kIllegal};
  static constexpr uint8_t kBytes[8] = {1, 2, 4, 0, 1, 2, 0, 0};
  i.op = kOps[f3];
  if (i.op == Op::kIllegal) return void(illegal(i));
  i.imm = imm_i(i.raw);
  i.unit = Unit::kLdst;
  i.mem_bytes = kBytes[f3];
  i.is_load = true;
  dst_x(i);
  i.src[0] = xreg(i.rs1);
}

void decode_store(Inst& i, uint32_t f3) {
  static constexpr Op kOps[4] = {Op::kSb, Op::kSh, Op::kSw, Op::kIllegal};
  if (f3 > 2) return void(illegal(i));
  i.op = kOps[f3];
  i.imm = imm_s(i.raw);
  i.unit = Unit::kLdst;
  i.mem_bytes = static_cast<uint8_t>(1u << f3);
  i.is_store = true;
  i.src[0] = xreg(i.rs1);
  i.src[1] = xreg(i.rs2);
}

void decode_op_imm(Inst& i, uint32_t f3, uint32_t f7) {
  static constexpr Op kOps[8] = {Op::kAddi, Op::kSlli, Op::kSlti, Op::kSltiu,
                                 Op::kXori, Op::kSrli, Op::kOri,  Op::kAndi};
  i.op = kOps[f3];
  i.imm = imm_i(i.raw);
  if (f3 == 1) {  // slli: imm[11:5] must be 0 on RV32 (shamt[5] set is reserved)
    if (f7 != 0) return void(illegal(i));
    i.imm = i.rs2;
  } else if (f3 == 5) {
    if (f7 == 0x20) {
      i.op = Op::kSrai;
    } else if (f7 != 0) {
      return void(illegal(i));
    }
    i.imm = i.rs2;
  }
  dst_x(i);
  i.src[0] = xreg(i.rs1);
}

void decode_op(Inst& i, uint32_t f3, uint32_t f7) {
  static constexpr Op kBase[8] = {Op::kAdd, Op::kSll, Op::kSlt, Op::kSltu, Op::kXor, Op::kSrl, Op::kOr, Op::kAnd};
  static constexpr Op kMul[8] = {Op::kMul, Op::kMulh, Op::kMulhsu, Op::kMulhu,
                                 Op::kDiv, Op::kDivu, Op::kRem,    Op::kRemu};
  if (f7 == 0x00) {
    i.op = kBase[f3];
  } else if (f7 == 0x01) {
    i.op = kMul[f3];
  } else if (f7 == 0x20 && f3 == 0) {
    i.op = Op::kSub;
  } else if (f7 == 0x20 && f3 == 5) {
    i.op = Op::kSra;
  } else {
    return void(illegal(i));
  }
  dst_x(i);
  i.src[0] = xreg(i.rs1);
  i.src[1] = xreg(i.rs2);
}

void decode_branch(Inst& i, uint32_t f3) {
  static constexpr Op kOps[8] = {Op::kBeq, Op::kBne, Op::kIllegal, Op::kIllegal,
                                 Op::kBlt, Op::kBge, Op::kBltu,    Op::kBgeu};
  i.op = kOps[f3];
  if (i.op == Op::kIllegal) return void(illegal(i));
  i.imm = imm_b(i.raw);
  i.is_control = true;
  i.src[0] = xreg(i.rs1);
  i.src[1] = xreg(i.rs2);
}

void decode_misc_mem(Inst& i, uint32_t f3) {
  // FENCE's fm, rs1 and rd and FENCE.I's imm, rs1 and rd are reserved for
  // finer-grained fences; implementations ignore them (spec 2.7 and 3.1).
  if (f3 == 0) {
    i.op = (i.raw >> 20) == 0x833 ? Op::kFenceTso : Op::kFence;
  } else if (f3 == 1) {
    i.op = Op::kFenceI;
  } else {
    return void(illegal(i));
  }
  i.imm = imm_i(i.raw);
  i.unit = Unit::kLdst;
}

void decode_system(Inst& i, uint32_t f3) {
  if (f3 == 0) {
    switch (i.raw) {
      case 0x00000073:
        i.op = Op::kEcall;
        i.is_control = true;
        break;
      case 0x00100073:
        i.op = Op::kEbreak;
        i.is_control = true;
        break;
      case 0x10500073:
        i.op = Op::kWfi;
        break;
      default:
        return void(illegal(i));
    }
    i.unit = Unit::kCtrl;
    return;
  }
  static constexpr Op kOps[8] = {Op::kIllegal, Op::kCsrrw,  Op::kCsrrs,  Op::kCsrrc,
                                 Op::kIllegal, Op::kCsrrwi, Op::kCsrrsi, Op::kCsrrci};
  i.op = kOps[f3];
  if (i.op == Op::kIllegal) return void(illegal(i));
  i.csr = static_cast<uint16_t>(i.raw >> 20);
  dst_x(i);
  if (f3 < 4) {
    i.src[0] = xreg(i.rs1);
  } else {
    i.imm = i.rs1;  // zimm
  }
}

void decode_amo(Inst& i, uint32_t f3) {
  if (f3 != 2) return void(illegal(i));
  const uint32_t f5 = i.raw >> 27;
  switch (f5) {
    case 0x02:
      i.op = Op::kLrW;
      break;
    case 0x03:
      i.op = Op::kScW;
      break;
    case 0x01:
      i.op = Op::kAmoswapW;
      break;
    case 0x00:
      i.op = Op::kAmoaddW;
      break;
    case 0x04:
      i.op = Op::kAmoxorW;
      break;
    case 0x0C:
      i.op = Op::kAmoandW;
      break;
    case 0x08:
      i.op = Op::kAmoorW;
      break;
    case 0x10:
      i.op = Op::kAmominW;
      break;
    case 0x14:
      i.op = Op::kAmomaxW;
      break;
    case 0x18:
      i.op = Op::kAmominuW;
      break;
    case 0x1C:
      i.op = Op::kAmomaxuW;
      break;
    default:
      return void(illegal(i));
  }
  if (i.op == Op::kLrW && i.rs2 != 0) return void(illegal(i));
  i.rm = static_cast<uint8_t>((i.raw >> 25) & 3);
  i.unit = Unit::kLdst;
  i.mem_bytes = 4;
  i.is_load = i.op != Op::kScW;
  i.is_store = i.op != Op::kLrW;
  dst_x(i);
  i.src[0] = xreg(i.rs1);
  if (i.op != Op::kLrW) i.src[1] = xreg(i.rs2);
}

void decode_fma(Inst& i, uint32_t opcode, uint32_t f3) {
  if (((i.raw >> 25) & 3) != 0 || !valid_rm(f3)) return void(illegal(i));  // fmt must be S
  switch (opcode) {
    case 0x43:
      i.op = Op::kFmaddS;
      break;
    case 0x47:
      i.op = Op::kFmsubS;
      break;
    case 0x4B:
      i.op = Op::kFnmsubS;
      break;
    default:
      i.op = Op::kFnmaddS;
      break;
  }
  i.rm = static_cast<uint8_t>(f3);
  dst_f(i);
  i.src[0] = freg(i.rs1);
  i.src[1] = freg(i.rs2);
  i.src[2] = freg(i.rs3);
}

void decode_op_fp(Inst& i, uint32_t f3, uint32_t f7) {
  i.rm = static_cast<uint8_t>(f3);
  bool uses_rm = false;
  // Operand kinds: which of rd/rs1/rs2 are f registers.
  bool rd_f = true, rs1_f = true, two_src = true;
  switch (f7) {
    case 0x00:
      i.op = Op::kFaddS;
      uses_rm = true;
      break;
    case 0x04:
      i.op = Op::kFsubS;
      uses_rm = true;
      break;
    case 0x08:
      i.op = Op::kFmulS;
      uses_rm = true;
      break;
    case 0x0C:
      i.op = Op::kFdivS;
      uses_rm = true;
      i.unit = Unit::kSfu;
      break;
    case 0x2C:
      if (i.rs2 != 0) return void(illegal(i));
      i.op = Op::kFsqrtS;
      uses_rm = true;
      two_src = false;
      i.unit = Unit::kSfu;
      break;
    case 0x10:
      if (f3 > 2) return void(illegal(i));
      i.op = f3 == 0 ? Op::kFsgnjS : f3 == 1 ? Op::kFsgnjnS : Op::kFsgnjxS;
      break;
    case 0x14:
      if (f3 > 1) return void(illegal(i));
      i.op = f3 == 0 ? Op::kFminS : Op::kFmaxS;
      break;
    case 0x60:
      if (i.rs2 > 1) return void(illegal(i));
      i.op = i.rs2 == 0 ? Op::kFcvtWS : Op::kFcvtWuS;
      uses_rm = true;
      rd_f = false;
      two_src = false;
      break;
    case 0x70:
      if (i.rs2 != 0 || f3 > 1) return void(illegal(i));
      i.op = f3 == 0 ? Op::kFmvXW : Op::kFclassS;
      rd_f = false;
      two_src = false;
      break;
    case 0x50:
      if (f3 > 2) return void(illegal(i));
      i.op = f3 == 2 ? Op::kFeqS : f3 == 1 ? Op::kFltS : Op::kFleS;
      rd_f = false;
      break;
    case 0x68:
      if (i.rs2 > 1) return void(illegal(i));
      i.op = i.rs2 == 0 ? Op::kFcvtSW : Op::kFcvtSWu;
      uses_rm = true;
      rs1_f = false;
      two_src = false;
      break;
    case 0x78:
      if (i.rs2 != 0 || f3 != 0) return void(illegal(i));
      i.op = Op::kFmvWX;
      rs1_f = false;
      two_src = false;
      break;
    default:
      return void(illegal(i));
  }
  if (uses_rm && !valid_rm(f3)) return void(illegal(i));
  i.dst = rd_f ? freg(i.rd) : xreg(i.rd);
  i.src[0] = rs1_f ? freg(i.rs1) : xreg(i.rs1);
  if (two_src) i.src[1] = freg(i.rs2);
}

// custom-0 funct3 2 and 3: the warp-level SIMT instructions
// (docs/firmware-abi.md, "Warp-level instructions").
//   funct3 2, R4: shfl.{idx,up,down,xor} rd, rs1 (value), rs2 (lane operand
//     and segment mask), rs3 (member mask); funct2 selects the mode.
//   funct3 3, R: funct7 selects vote.ballot/any/all rd, rs1 (predicate), rs2
//     (member mask); activemask rd; syncwarp rs1 (mask); bar.red.popc/and/or
//     rd, rs1 (predicate); membar.cta. Unused register fields must be zero.
void decode_warp(Inst& i, uint32_t f3, uint32_t f7) {
  if (f3 == 2) {
    static constexpr Op kShfl[4] = {Op::kShflIdx, Op::kShflUp, Op::kShflDown, Op::kShflXor};
    i.op = kShfl[(i.raw >> 25) & 3];
    i.unit = Unit::kLdst;  // the shuffle crossbar beside the LD/ST lanes
    dst_x(i);
    i.src[0] = xreg(i.rs1);
    i.src[1] = xreg(i.rs2);
    i.src[2] = xreg(i.rs3);
    return;
  }
  // Which of rd, rs1, rs2 each form uses; the others must be x0.
  struct Form {
    Op op;
    bool rd, rs1, rs2;
    Unit unit;
  };
  static constexpr Form kForms[] = {
      {Op::kVoteBallot, true, true, true, Unit::kSp},     {Op::kVoteAny, true, true, true, Unit::kSp},
      {Op::kVoteAll, true, true, true, Unit::kSp},        {Op::kActivemask, true, false, false, Unit::kSp},
      {Op::kSyncwarp, false, true, false, Unit::kCtrl},   {Op::kBarRedPopc, true, true, false, Unit::kCtrl},
      {Op::kBarRedAnd, true, true, false, Unit::kCtrl},   {Op::kBarRedOr, true, true, false, Unit::kCtrl},
      {Op::kMembarCta, false, false, false, Unit::kLdst},
  };
  if (f7 >= std::size(kForms)) return void(illegal(i));
  const Form& form = kForms[f7];
  if ((!form.rd && i.rd != 0) || (!form.rs1 && i.rs1 != 0) || (!form.rs2 && i.rs2 != 0)) return void(illegal(i));
  i.op = form.op;
  i.unit = form.unit;
  if (form.rd) dst_x(i);
  if (form.rs1) i.src[0] = xreg(i.rs1);
  if (form.rs2) i.src[1] = xreg(i.rs2);
}

// custom-0: SFU functions, bar.sync and exit.
void decode_custom0(Inst& i, uint32_t f3, uint32_t f7) {
  if (f3 == 0) {
    static constexpr Op kOps[6] = {Op::kSfuSin, Op::kSfuCos, Op::kSfuEx2, Op::kSfuLg2, Op::kSfuRcp, Op::kSfuRsqrt};
    if (f7 > 5 || i.rs2 != 0) return void(illegal(i));
    i.op = kOps[f7];
    i.unit = Unit::kSfu;
    dst_f(i);
    i.src[0] = freg(i.rs1);
  } else if (f3 == 1) {
    if (f7 > 1 || i.rd != 0 || i.rs1 != 0 || i.rs2 != 0) return void(illegal(i));
    i.op = f7 == 0 ? Op::kBarSync : Op::kExit;
    i.unit = Unit::kCtrl;
  } else if (f3 == 2 || f3 == 3) {
    decode_warp(i, f3, f7);
  } else {
    illegal(i);
  }
}

// ---- Wide memory instructions and 64-bit atomics (docs/firmware-abi.md) ----

// A group of n x registers starting at r: not at x0, not past x31.
constexpr bool valid_x_group(uint32_t r, unsigned n) { return r != 0 && r + n <= 32; }

// custom-1 funct3 3 (atom.add64, atom.exch64) and funct3 7 funct2 1
// (atom.cas64): register pairs for the old value and the operands.
void decode_atomic64(Inst& i, uint32_t f3, uint32_t f7) {
  if (f3 == 3) {
    if (f7 > 1) return void(illegal(i));
    i.op = f7 == 0 ? Op::kAtomAdd64 : Op::kAtomExch64;
  } else {
    if (!valid_x_group(i.rs3, 2)) return void(illegal(i));
    i.op = Op::kAtomCas64;
    i.src[2] = xreg(i.rs3);
  }
  if (!valid_x_group(i.rd, 2) || !valid_x_group(i.rs2, 2)) return void(illegal(i));
  i.unit = Unit::kLdst;
  i.group = 2;
  i.mem_bytes = 8;
  i.is_load = true;
  i.is_store = true;
  dst_x(i);
  i.src[0] = xreg(i.rs1);
  i.src[1] = xreg(i.rs2);
}

// custom-2 (0x5B): ld.v2/v4, fld.v2/v4 (I-type, funct3 0..3) and st.v2/v4,
// fst.v2/v4 (S-type, funct3 4..7); bit 0 of funct3 selects 4 registers,
// bit 1 f registers.
void decode_custom2(Inst& i, uint32_t f3) {
  static constexpr Op kOps[8] = {Op::kLdV2, Op::kLdV4, Op::kFldV2, Op::kFldV4,
                                 Op::kStV2, Op::kStV4, Op::kFstV2, Op::kFstV4};
  const unsigned n = (f3 & 1) ? 4 : 2;
  const bool fp = (f3 & 2) != 0, store = (f3 & 4) != 0;
  const uint32_t reg = store ? i.rs2 : i.rd;
  if (fp ? reg + n > 32 : !valid_x_group(reg, n)) return void(illegal(i));
  i.op = kOps[f3];
  i.unit = Unit::kLdst;
  i.group = static_cast<uint8_t>(n);
  i.mem_bytes = static_cast<uint8_t>(4 * n);
  i.src[0] = xreg(i.rs1);
  if (store) {
    i.imm = imm_s(i.raw);
    i.is_store = true;
    i.src[1] = fp ? freg(i.rs2) : xreg(i.rs2);
  } else {
    i.imm = imm_i(i.raw);
    i.is_load = true;
    i.dst = fp ? freg(i.rd) : xreg(i.rd);
  }
}

// custom-1: LDG loads and the Tessera atomics.
void decode_custom1(Inst& i, uint32_t f3, uint32_t f7) {
  static constexpr Op kLdg[8] = {Op::kLdgB,  Op::kLdgH,  Op::kLdgW,    Op::kIllegal,
                                 Op::kLdgBu, Op::kLdgHu, Op::kIllegal, Op::kIllegal};
  static constexpr uint8_t kBytes[8] = {1, 2, 4, 0, 1, 2, 0, 0};
  i.unit = Unit::kLdst;
  if (f3 == 6) {
    if (f7 > 2) return void(illegal(i));
    i.op = f7 == 0 ? Op::kAtomFadd : f7 == 1 ? Op::kAtomInc : Op::kAtomDec;
  } else if (f3 == 3 || (f3 == 7 && ((i.raw >> 25) & 3) == 1)) {
    return decode_atomic64(i, f3, f7);
  } else if (f3 == 7) {
    if (((i.raw >> 25) & 3) != 0) return void(illegal(i));
    i.op = Op::kAtomCas;
    i.src[2] = xreg(i.rs3);
  } else {
    i.op = kLdg[f3];
    if (i.op == Op::kIllegal) return void(illegal(i));
    i.imm = imm_i(i.raw);
    i.mem_bytes = kBytes[f3];
    i.is_load = true;
    dst_x(i);
    i.src[0] = xreg(i.rs1);
    return;
  }
  i.mem_bytes = 4;
  i.is_load = true;
  i.is_store = true;
  dst_x(i);
  i.src[0] = xreg(i.rs1);
  i.src[1] = xreg(i.rs2);
}

// custom-3 (0x7B): hardware transactions (docs/firmware-abi.md,
// "Transactional memory (control cores)").
//   funct3 0, R: tx.begin rd    funct3 1, R: tx.end    funct3 3, R: tx.test rd
//   funct3 2, I: tx.abort code (imm 0..255)
// Every unused field (funct7, rs1, rs2, rd of tx.end and tx.abort) must be
// zero; funct3 4..7 are reserved.
void decode_custom3(Inst& i, uint32_t f3, uint32_t f7) {
  i.unit = Unit::kCtrl;
  switch (f3) {
    case 0:
    case 3:
      if (f7 != 0 || i.rs1 != 0 || i.rs2 != 0) return void(illegal(i));
      i.op = f3 == 0 ? Op::kTxBegin : Op::kTxTest;
      dst_x(i);
      return;
    case 1:
      if (f7 != 0 || i.rd != 0 || i.rs1 != 0 || i.rs2 != 0) return void(illegal(i));
      i.op = Op::kTxEnd;
      return;
    case 2:
      i.imm = imm_i(i.raw);
      if (i.rd != 0 || i.rs1 != 0 || i.imm < 0 || i.imm > 255) return void(illegal(i));
      i.op = Op::kTxAbort;
      return;
    default:
      return void(illegal(i));
  }
}

}  // namespace

Inst decode(uint32_t raw) {
  Inst i;
  i.raw = raw;
  if ((raw & 3) != 3) return i;  // compressed (or the all-zero word): not supported
  i.rd = static_cast<uint8_t>((raw >> 7) & 0x1F);
  i.rs1 = static_cast<uint8_t>((raw >> 15) & 0x1F);
  i.rs2 = static_cast<uint8_t>((raw >> 20) & 0x1F);
  i.rs3 = static_cast<uint8_t>(raw >> 27);
  const uint32_t opcode = raw & 0x7F;
  const uint32_t f3 = (raw >> 12) & 7;
  const uint32_t f7 = raw >> 25;
  switch (opcode) {
    case 0x37:  // LUI
    case 0x17:  // AUIPC
      i.op = opcode == 0x37 ? Op::kLui : Op::kAuipc;
      i.imm = static_cast<int32_t>(raw & 0xFFFFF000u);
      dst_x(i);
      break;
    case 0x6F:  // JAL
      i.op = Op::kJal;
      i.imm = imm_j(raw);
      i.is_control = true;
      dst_x(i);
      break;
    case 0x67:  // JALR
      if (f3 != 0) return illegal(i);
      i.op = Op::kJalr;
      i.imm = imm_i(raw);
      i.is_control = true;
      dst_x(i);
      i.src[0] = xreg(i.rs1);
      break;
    case 0x63:
      decode_branch(i, f3);
      break;
    case 0x03:
      decode_load(i, f3);
      break;
    case 0x23:
      decode_store(i, f3);
      break;
    case 0x13:
      decode_op_imm(i, f3, f7);
      break;
    case 0x33:
      decode_op(i, f3, f7);
      break;
    case 0x0F:
      decode_misc_mem(i, f3);
      break;
    case 0x73:
      decode_system(i, f3);
      break;
    case 0x2F:
      decode_amo(i, f3);
      break;
    case 0x07:  // FLW
      if (f3 != 2) return illegal(i);
      i.op = Op::kFlw;
      i.imm = imm_i(raw);
      i.unit = Unit::kLdst;
      i.mem_bytes = 4;
      i.is_load = true;
      dst_f(i);
      i.src[0] = xreg(i.rs1);
      break;
    case 0x27:  // FSW
      if (f3 != 2) return illegal(i);
      i.op = Op::kFsw;
      i.imm = imm_s(raw);
      i.unit = Unit::kLdst;
      i.mem_bytes = 4;
      i.is_store = true;
      i.src[0] = xreg(i.rs1);
      i.src[1] = freg(i.rs2);
      break;
    case 0x43:
    case 0x47:
    case 0x4B:
    case 0x4F:
      decode_fma(i, opcode, f3);
      break;
    case 0x53:
      decode_op_fp(i, f3, f7);
      break;
    case 0x0B:
      decode_custom0(i, f3, f7);
      break;
    case 0x2B:
      decode_custom1(i, f3, f7);
      break;
    case 0x5B:
      decode_custom2(i, f3);
      break;
    case 0x7B:
      decode_custom3(i, f3, f7);
      break;
    default:
      return illegal(i);
  }
  return i;
}

}  // namespace tessera::isa
