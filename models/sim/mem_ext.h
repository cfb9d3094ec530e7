// TLM-2.0 extension carried by every memory transaction: who issued it, so
// responses find their warp and statistics can be attributed.
#pragma once

#include <tlm>

#include <cstdint>

#include "sim/waveform.h"

namespace tessera::sim {

enum class MemOp : uint8_t { kRead, kWrite, kAtomic };
// Its names in waveforms (chip.smN.mem.req_op, chip.l2.sliceN.req_kind).
inline const WaveEnum kMemOpWave{"mem_op", {{0, "read"}, {1, "write"}, {2, "atomic"}}};

struct MemExt : tlm::tlm_extension<MemExt> {
  uint16_t source = 0;  // SM number, or control core number
  uint16_t warp = 0;    // hardware warp slot in the SM
  uint32_t tag = 0;     // the issuer's request id
  MemOp op = MemOp::kRead;
  // A request for part of a 128-byte line: bit i asks for its 32-byte sector
  // i (0: the whole address range of the payload).
  uint8_t sectors = 0;
  uint8_t atomic_ops = 0;  // lanes whose atomic operations the request carries
  // The issuer already performed the access on the functional memory (the
  // SMs execute at issue); the target models only its timing.
  bool timing_only = false;

  tlm::tlm_extension_base* clone() const override { return new MemExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const MemExt&>(other); }
};

// "read", "write" or "atomic": a payload's operation for reports.
inline const char* op_name(const tlm::tlm_generic_payload& gp) {
  const auto* ext = gp.get_extension<MemExt>();
  if (ext && ext->op == MemOp::kAtomic) return "atomic";
  return gp.is_read() ? "read" : "write";
}

}  // namespace tessera::sim
