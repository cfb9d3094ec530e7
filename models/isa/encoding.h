// Opcodes and CSR numbers of RV32IMAF + Zicsr + Zifencei and the Tessera
// SIMT extension (docs/firmware-abi.md).
#pragma once

#include <cstdint>

namespace tessera::isa {

// One value per instruction mnemonic. The order is the unprivileged spec's
// (20191213) instruction listing chapter by chapter, then the Tessera ones.
enum class Op : uint16_t {
  kIllegal,
  // RV32I
  kLui,
  kAuipc,
  kJal,
  kJalr,
  kBeq,
  kBne,
  kBlt,
  kBge,
  kBltu,
  kBgeu,
  kLb,
  kLh,
  kLw,
  kLbu,
  kLhu,
  kSb,
  kSh,
  kSw,
  kAddi,
  kSlti,
  kSltiu,
  kXori,
  kOri,
  kAndi,
  kSlli,
  kSrli,
  kSrai,
  kAdd,
  kSub,
  kSll,
  kSlt,
  kSltu,
  kXor,
  kSrl,
  kSra,
  kOr,
  kAnd,
  kFence,
  kFenceTso,
  kEcall,
  kEbreak,
  // Zifencei
  kFenceI,
  // Zicsr
  kCsrrw,
  kCsrrs,
  kCsrrc,
  kCsrrwi,
  kCsrrsi,
  kCsrrci,
  // Privileged, used by the control cores' idle loop
  kWfi,
  // M
  kMul,
  kMulh,
  kMulhsu,
  kMulhu,
  kDiv,
  kDivu,
  kRem,
  kRemu,
  // A
  kLrW,
  kScW,
  kAmoswapW,
  kAmoaddW,
  kAmoxorW,
  kAmoandW,
  kAmoorW,
  kAmominW,
  kAmomaxW,
  kAmominuW,
  kAmomaxuW,
  // F
  kFlw,
  kFsw,
  kFmaddS,
  kFmsubS,
  kFnmsubS,
  kFnmaddS,
  kFaddS,
  kFsubS,
  kFmulS,
  kFdivS,
  kFsqrtS,
  kFsgnjS,
  kFsgnjnS,
  kFsgnjxS,
  kFminS,
  kFmaxS,
  kFcvtWS,
  kFcvtWuS,
  kFmvXW,
  kFeqS,
  kFltS,
  kFleS,
  kFclassS,
  kFcvtSW,
  kFcvtSWu,
  kFmvWX,
  // Tessera custom-0 (opcode 0x0B)
  kSfuSin,
  kSfuCos,
  kSfuEx2,
  kSfuLg2,
  kSfuRcp,
  kSfuRsqrt,
  kBarSync,
  kExit,
  // Tessera custom-1 (opcode 0x2B)
  kLdgB,
  kLdgH,
  kLdgW,
  kLdgBu,
  kLdgHu,
  kAtomFadd,
  kAtomInc,
  kAtomDec,
  kAtomCas,
  // Tessera wide memory (custom-2, opcode 0x5B) and 64-bit atomics (custom-1
  // funct3 3, funct3 7 funct2 1): register groups, docs/firmware-abi.md.
  kLdV2,
  kLdV4,
  kFldV2,
  kFldV4,
  kStV2,
  kStV4,
  kFstV2,
  kFstV4,
  kAtomAdd64,
  kAtomExch64,
  kAtomCas64,
  // Tessera custom-0 (opcode 0x0B) funct3 2 and 3: warp-level SIMT
  // instructions, executed across a warp's lanes by the SM (sm/warp_ops.h).
  kShflIdx,
  kShflUp,
  kShflDown,
  kShflXor,
  kVoteBallot,
  kVoteAny,
  kVoteAll,
  kActivemask,
  kSyncwarp,
  kBarRedPopc,
  kBarRedAnd,
  kBarRedOr,
  kMembarCta,
  // Tessera custom-3 (opcode 0x7B): hardware transactions, control cores only
  // (docs/firmware-abi.md, "Transactional memory (control cores)").
  kTxBegin,
  kTxEnd,
  kTxAbort,  // imm = the abort code, 0..255
  kTxTest,
  kCount  // number of opcodes, not an instruction
};

inline constexpr unsigned kOpCount = static_cast<unsigned>(Op::kCount);

// Mnemonic as objdump prints it ("fcvt.w.s", "amoadd.w"; without aq/rl
// suffixes), or our own name for the Tessera instructions ("sfu.sin").
// "illegal" for Op::kIllegal.
const char* op_name(Op op);

// F extension rounding modes (rm field and frm), spec section 11.2.
namespace rm {
inline constexpr uint8_t kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7;
}

// fflags bits (spec section 11.2).
namespace fflag {
inline constexpr uint32_t kNx = 1, kUf = 2, kOf = 4, kDz = 8, kNv = 16;
}

namespace csr {
// Standard user CSRs.
inline constexpr uint16_t kFflags = 0x001, kFrm = 0x002, kFcsr = 0x003;
inline constexpr uint16_t kCycle = 0xC00, kTime = 0xC01, kInstret = 0xC02;
inline constexpr uint16_t kCycleh = 0xC80, kTimeh = 0xC81, kInstreth = 0xC82;
inline constexpr uint16_t kMhartid = 0xF14;
// Tessera SIMT CSRs, read-only (docs/firmware-abi.md "CSRs").
inline constexpr uint16_t kTidX = 0xCC0, kTidY = 0xCC1, kTidZ = 0xCC2;
inline constexpr uint16_t kNtidX = 0xCC3, kNtidY = 0xCC4, kNtidZ = 0xCC5;
inline constexpr uint16_t kCtaidX = 0xCC6, kCtaidY = 0xCC7, kCtaidZ = 0xCC8;
inline constexpr uint16_t kNctaidX = 0xCC9, kNctaidY = 0xCCA, kNctaidZ = 0xCCB;
inline constexpr uint16_t kLaneid = 0xCCC, kWarpid = 0xCCD, kSmid = 0xCCE, kNsmid = 0xCCF;
inline constexpr uint16_t kSharedBytes = 0xCD0;
// Tessera transactional-memory CSRs of the control cores, read/write
// (docs/firmware-abi.md, "Transactional memory (control cores)").
inline constexpr uint16_t kTxLogBase = 0x8C0, kTxLogSize = 0x8C1, kTxFallback = 0x8C2;
inline constexpr bool is_tx_csr(uint16_t csr) { return csr >= kTxLogBase && csr <= kTxFallback; }

// The counters every thread reads the same way (Zicntr, mhartid): cycle and
// time are the cycle count, instret the instructions retired, each 64 bits
// read in halves. Returns false for any other CSR.
inline bool read_counter(uint16_t csr, uint64_t cycles, uint64_t instret, uint32_t hart_id, uint32_t* value) {
  switch (csr) {
    case kCycle:
    case kTime:
      *value = static_cast<uint32_t>(cycles);
      return true;
    case kCycleh:
    case kTimeh:
      *value = static_cast<uint32_t>(cycles >> 32);
      return true;
    case kInstret:
      *value = static_cast<uint32_t>(instret);
      return true;
    case kInstreth:
      *value = static_cast<uint32_t>(instret >> 32);
      return true;
    case kMhartid:
      *value = hart_id;
      return true;
    default:
      return false;
  }
}
}  // namespace csr

}  // namespace tessera::isa
