// Opcodes (isa/opcodes.h) and CSR numbers of RV32IMAF + Zicsr + Zifencei and
// the Tessera SIMT extension (docs/firmware-abi.md).
#pragma once

#include <cstdint>

#include "isa/opcodes.h"

namespace tessera::isa {

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
