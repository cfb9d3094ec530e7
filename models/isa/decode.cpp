// Instruction decoder: a switch on the major opcode, then on funct3/funct7,
// finds the Op, its immediate and the encoding's reserved fields; the rest
// of Inst (unit, scoreboard view, memory class, register groups, rounding
// mode validity) comes from the opcode table (isa/opcodes.h) in finish().
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

inline Inst& illegal(Inst& i) {
  const uint32_t raw = i.raw;
  i = Inst{};
  i.raw = raw;
  return i;
}

void decode_load(Inst& i, uint32_t f3) {
  static constexpr Op kOps[8] = {Op::kLb,  Op::kLh,  Op::kLw,      Op::kIllegal,
                                 Op::kLbu, Op::kLhu, Op::kIllegal, Op::kIllegal};
  i.op = kOps[f3];
  if (i.op == Op::kIllegal) return void(illegal(i));
  i.imm = imm_i(i.raw);
}

void decode_store(Inst& i, uint32_t f3) {
  static constexpr Op kOps[4] = {Op::kSb, Op::kSh, Op::kSw, Op::kIllegal};
  if (f3 > 2) return void(illegal(i));
  i.op = kOps[f3];
  i.imm = imm_s(i.raw);
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
}

void decode_branch(Inst& i, uint32_t f3) {
  static constexpr Op kOps[8] = {Op::kBeq, Op::kBne, Op::kIllegal, Op::kIllegal,
                                 Op::kBlt, Op::kBge, Op::kBltu,    Op::kBgeu};
  i.op = kOps[f3];
  if (i.op == Op::kIllegal) return void(illegal(i));
  i.imm = imm_b(i.raw);
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
}

void decode_system(Inst& i, uint32_t f3) {
  if (f3 == 0) {
    switch (i.raw) {
      case 0x00000073:
        i.op = Op::kEcall;
        break;
      case 0x00100073:
        i.op = Op::kEbreak;
        break;
      case 0x10500073:
        i.op = Op::kWfi;
        break;
      default:
        return void(illegal(i));
    }
    return;
  }
  static constexpr Op kOps[8] = {Op::kIllegal, Op::kCsrrw,  Op::kCsrrs,  Op::kCsrrc,
                                 Op::kIllegal, Op::kCsrrwi, Op::kCsrrsi, Op::kCsrrci};
  i.op = kOps[f3];
  if (i.op == Op::kIllegal) return void(illegal(i));
  i.csr = static_cast<uint16_t>(i.raw >> 20);
  if (f3 >= 4) i.imm = i.rs1;  // zimm
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
  i.rm = static_cast<uint8_t>((i.raw >> 25) & 3);  // aq << 1 | rl
}

void decode_fma(Inst& i, uint32_t opcode, uint32_t f3) {
  const uint32_t fmt = (i.raw >> 25) & 3;  // 0 S, 1 D
  if (fmt > 1) return void(illegal(i));
  static constexpr Op kOps[2][4] = {{Op::kFmaddS, Op::kFmsubS, Op::kFnmsubS, Op::kFnmaddS},
                                    {Op::kFmaddD, Op::kFmsubD, Op::kFnmsubD, Op::kFnmaddD}};
  i.op = kOps[fmt][(opcode >> 2) & 3];  // 0x43, 0x47, 0x4B, 0x4F
  i.rm = static_cast<uint8_t>(f3);
}

// OP-FP (0x53): funct7 is the operation in bits 6:2 and the format in 1:0
// (0 S, 1 D); the conversions between formats and to/from integers carry
// the other operand's type in rs2.
void decode_op_fp(Inst& i, uint32_t f3, uint32_t f7) {
  i.rm = static_cast<uint8_t>(f3);
  const uint32_t fmt = f7 & 3;
  if (fmt > 1) return void(illegal(i));
  const bool d = fmt == 1;
  const auto pick = [d](Op s, Op dbl) { return d ? dbl : s; };
  switch (f7 >> 2) {
    case 0x00:
      i.op = pick(Op::kFaddS, Op::kFaddD);
      break;
    case 0x01:
      i.op = pick(Op::kFsubS, Op::kFsubD);
      break;
    case 0x02:
      i.op = pick(Op::kFmulS, Op::kFmulD);
      break;
    case 0x03:
      i.op = pick(Op::kFdivS, Op::kFdivD);
      break;
    case 0x0B:
      if (i.rs2 != 0) return void(illegal(i));
      i.op = pick(Op::kFsqrtS, Op::kFsqrtD);
      break;
    case 0x04:
      if (f3 > 2) return void(illegal(i));
      i.op = f3 == 0   ? pick(Op::kFsgnjS, Op::kFsgnjD)
             : f3 == 1 ? pick(Op::kFsgnjnS, Op::kFsgnjnD)
                       : pick(Op::kFsgnjxS, Op::kFsgnjxD);
      break;
    case 0x05:
      if (f3 > 1) return void(illegal(i));
      i.op = f3 == 0 ? pick(Op::kFminS, Op::kFminD) : pick(Op::kFmaxS, Op::kFmaxD);
      break;
    case 0x08:  // fcvt.s.d (fmt S, rs2 1) and fcvt.d.s (fmt D, rs2 0)
      if (i.rs2 != (d ? 0u : 1u)) return void(illegal(i));
      if (d && !valid_rm(f3)) return void(illegal(i));
      i.op = pick(Op::kFcvtSD, Op::kFcvtDS);
      break;
    case 0x18:
      if (i.rs2 > 1) return void(illegal(i));
      i.op = i.rs2 == 0 ? pick(Op::kFcvtWS, Op::kFcvtWD) : pick(Op::kFcvtWuS, Op::kFcvtWuD);
      break;
    case 0x1C:  // fmv.x.w and fclass; RV32D has no fmv.x.d
      if (i.rs2 != 0 || f3 > 1 || (d && f3 == 0)) return void(illegal(i));
      i.op = f3 == 0 ? Op::kFmvXW : pick(Op::kFclassS, Op::kFclassD);
      break;
    case 0x14:
      if (f3 > 2) return void(illegal(i));
      i.op = f3 == 2 ? pick(Op::kFeqS, Op::kFeqD) : f3 == 1 ? pick(Op::kFltS, Op::kFltD) : pick(Op::kFleS, Op::kFleD);
      break;
    case 0x1A:
      if (i.rs2 > 1) return void(illegal(i));
      // fcvt.d.w and fcvt.d.wu are exact: any valid rounding mode.
      if (d && !valid_rm(f3)) return void(illegal(i));
      i.op = i.rs2 == 0 ? pick(Op::kFcvtSW, Op::kFcvtDW) : pick(Op::kFcvtSWu, Op::kFcvtDWu);
      break;
    case 0x1E:  // fmv.w.x; RV32D has no fmv.d.x
      if (i.rs2 != 0 || f3 != 0 || d) return void(illegal(i));
      i.op = Op::kFmvWX;
      break;
    default:
      return void(illegal(i));
  }
}

// The Tessera custom instructions leave the register fields they do not use
// (no role in the opcode table) zero.
bool unused_registers_zero(const Inst& i) {
  const OpInfo& o = info(i.op);
  return (o.rd != Reg::kNone || i.rd == 0) && (o.rs1 != Reg::kNone || i.rs1 == 0) &&
         (o.rs2 != Reg::kNone || i.rs2 == 0);
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
    return;
  }
  static constexpr Op kOps[] = {Op::kVoteBallot, Op::kVoteAny,   Op::kVoteAll,  Op::kActivemask, Op::kSyncwarp,
                                Op::kBarRedPopc, Op::kBarRedAnd, Op::kBarRedOr, Op::kMembarCta};
  if (f7 >= std::size(kOps)) return void(illegal(i));
  i.op = kOps[f7];
  if (!unused_registers_zero(i)) return void(illegal(i));
}

// custom-0: SFU functions, bar.sync and exit.
void decode_custom0(Inst& i, uint32_t f3, uint32_t f7) {
  if (f3 == 0) {
    static constexpr Op kOps[6] = {Op::kSfuSin, Op::kSfuCos, Op::kSfuEx2, Op::kSfuLg2, Op::kSfuRcp, Op::kSfuRsqrt};
    if (f7 > 5) return void(illegal(i));
    i.op = kOps[f7];
    if (!unused_registers_zero(i)) return void(illegal(i));
  } else if (f3 == 1) {
    if (f7 > 1) return void(illegal(i));
    i.op = f7 == 0 ? Op::kBarSync : Op::kExit;
    if (!unused_registers_zero(i)) return void(illegal(i));
  } else if (f3 == 2 || f3 == 3) {
    decode_warp(i, f3, f7);
  } else {
    illegal(i);
  }
}

// custom-2 (0x5B): ld.v2/v4, fld.v2/v4 (I-type, funct3 0..3) and st.v2/v4,
// fst.v2/v4 (S-type, funct3 4..7); bit 0 of funct3 selects 4 registers,
// bit 1 f registers. finish() checks the register groups.
void decode_custom2(Inst& i, uint32_t f3) {
  static constexpr Op kOps[8] = {Op::kLdV2, Op::kLdV4, Op::kFldV2, Op::kFldV4,
                                 Op::kStV2, Op::kStV4, Op::kFstV2, Op::kFstV4};
  i.op = kOps[f3];
  i.imm = (f3 & 4) != 0 ? imm_s(i.raw) : imm_i(i.raw);
}

// custom-1: LDG loads, the Tessera atomics and, at funct3 3 (atom.add64,
// atom.exch64) and funct3 7 funct2 1 (atom.cas64), the 64-bit atomics on
// register pairs (docs/firmware-abi.md).
void decode_custom1(Inst& i, uint32_t f3, uint32_t f7) {
  static constexpr Op kLdg[8] = {Op::kLdgB,  Op::kLdgH,  Op::kLdgW,    Op::kIllegal,
                                 Op::kLdgBu, Op::kLdgHu, Op::kIllegal, Op::kIllegal};
  const uint32_t f2 = (i.raw >> 25) & 3;
  if (f3 == 6) {
    if (f7 > 2) return void(illegal(i));
    i.op = f7 == 0 ? Op::kAtomFadd : f7 == 1 ? Op::kAtomInc : Op::kAtomDec;
  } else if (f3 == 3) {
    if (f7 > 1) return void(illegal(i));
    i.op = f7 == 0 ? Op::kAtomAdd64 : Op::kAtomExch64;
  } else if (f3 == 7) {
    if (f2 > 1) return void(illegal(i));
    i.op = f2 == 0 ? Op::kAtomCas : Op::kAtomCas64;
  } else {
    i.op = kLdg[f3];
    if (i.op == Op::kIllegal) return void(illegal(i));
    i.imm = imm_i(i.raw);
  }
}

// custom-3 (0x7B): hardware transactions (docs/firmware-abi.md,
// "Transactional memory (control cores)").
//   funct3 0, R: tx.begin rd    funct3 1, R: tx.end    funct3 3, R: tx.test rd
//   funct3 2, I: tx.abort code (imm 0..255)
// Every unused field (funct7, rs1, rs2, rd of tx.end and tx.abort) must be
// zero; funct3 4..7 are reserved.
void decode_custom3(Inst& i, uint32_t f3, uint32_t f7) {
  switch (f3) {
    case 0:
    case 1:
    case 3:
      if (f7 != 0) return void(illegal(i));
      i.op = f3 == 0 ? Op::kTxBegin : f3 == 1 ? Op::kTxEnd : Op::kTxTest;
      if (!unused_registers_zero(i)) return void(illegal(i));
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

// A register field's scoreboard index for its role in the table.
constexpr uint8_t scoreboard_reg(Reg role, uint8_t r) {
  return role == Reg::kX ? xreg(r) : is_fp(role) ? freg(r) : kNoReg;
}

// A group of n registers starting at r for a role: x groups not at x0,
// and no group past register 31.
constexpr bool group_fits(Reg role, uint8_t r, unsigned n) {
  return role == Reg::kNone || (r + n <= 32 && (role != Reg::kX || r != 0));
}

// Everything the table knows about i.op (which the bit patterns found).
Inst& finish(Inst& i) {
  const OpInfo& o = info(i.op);
  if ((o.flags & opflag::kRm) != 0 && !valid_rm(i.rm)) return illegal(i);
  if (o.group > 1 &&
      !(group_fits(o.rd, i.rd, o.group) && group_fits(o.rs2, i.rs2, o.group) && group_fits(o.rs3, i.rs3, o.group)))
    return illegal(i);
  i.unit = o.unit;
  i.lat = o.lat;
  i.dst = scoreboard_reg(o.rd, i.rd);
  i.src[0] = scoreboard_reg(o.rs1, i.rs1);
  i.src[1] = scoreboard_reg(o.rs2, i.rs2);
  i.src[2] = scoreboard_reg(o.rs3, i.rs3);
  i.mem_bytes = o.bytes;
  i.group = o.group;
  i.is_load = reads_memory(o.mem);
  i.is_store = writes_memory(o.mem);
  i.is_control = (o.flags & opflag::kControl) != 0;
  i.exec = static_cast<uint8_t>(((o.flags & opflag::kReadOnly) != 0 ? kExecReadOnly : 0) |
                                ((o.flags & opflag::kUnsigned) != 0 ? kExecUnsigned : 0) |
                                (o.mem != Mem::kNone && (is_fp(o.rd) || is_fp(o.rs2)) ? kExecFpData : 0) |
                                (o.mem != Mem::kNone ? kExecMemory : 0) | (o.mem == Mem::kFence ? kExecFence : 0) |
                                ((o.flags & opflag::kSmOnly) != 0 ? kExecSmOnly : 0));
  return i;
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
      break;
    case 0x6F:  // JAL
      i.op = Op::kJal;
      i.imm = imm_j(raw);
      break;
    case 0x67:  // JALR
      if (f3 != 0) return illegal(i);
      i.op = Op::kJalr;
      i.imm = imm_i(raw);
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
    case 0x07:  // FLW, FLD
      if (f3 != 2 && f3 != 3) return illegal(i);
      i.op = f3 == 2 ? Op::kFlw : Op::kFld;
      i.imm = imm_i(raw);
      break;
    case 0x27:  // FSW, FSD
      if (f3 != 2 && f3 != 3) return illegal(i);
      i.op = f3 == 2 ? Op::kFsw : Op::kFsd;
      i.imm = imm_s(raw);
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
  if (i.op == Op::kIllegal) return i;
  return finish(i);
}

}  // namespace tessera::isa
