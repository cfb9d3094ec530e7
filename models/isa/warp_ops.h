// Semantics of the warp-level SIMT instructions (custom-0 funct3 2 and 3,
// docs/firmware-abi.md "Warp-level instructions") over the 32 lanes of a warp:
// shuffles, votes and activemask. They read other lanes' registers, so the SM
// executes them here for a warp's active lanes instead of thread by thread
// through execute() (where they are illegal, as on a control core). Pure
// logic, no SystemC.
#pragma once

#include <array>
#include <cstdint>

#include "isa/isa.h"

namespace tessera::isa {

inline constexpr unsigned kWarpLanes = 32;

// is_warp_op and is_warp_collective (isa/opcodes.h) say which instructions
// these are.

// The lane a shuffle reads, as PTX shfl.sync defines it: `operand` bits 4:0
// are the lane, delta or xor mask (b), bits 12:8 the segment mask (32 -
// width); the clamp is the segment's first lane for shfl.up, its last for
// the others. A source outside the lane's segment gives in_range false: the
// lane keeps its own value.
struct ShflSource {
  unsigned lane = 0;
  bool in_range = false;
};
ShflSource shfl_source(Op op, unsigned lane, uint32_t operand);

// The member mask a lane gives a shuffle (rs3) or vote (rs2).
uint32_t member_mask(const Inst& inst, const ThreadState& t);

// The instruction each lane executes. Lanes of one collective normally share
// one; copies of a call that the compiler placed at several pcs (with their
// own registers) run together as one collective when they have the same op.
using LaneInsts = std::array<const Inst*, kWarpLanes>;
inline LaneInsts same_inst(const Inst& inst) {
  LaneInsts a;
  a.fill(&inst);
  return a;
}

// CUDA's contract for the *_sync collectives: each calling lane is in its own
// mask, and every lane its mask names that exists and has not exited
// (`live`) executes the same instruction with it (is `active`). The first
// lane that breaks it, or ok.
struct MemberCheck {
  bool ok = true;
  unsigned lane = 0;           // the offending calling lane
  uint32_t mask = 0;           // its mask
  bool self_missing = false;   // it is not in its own mask
  uint32_t not_converged = 0;  // live lanes its mask names that are not active
};
MemberCheck check_members(const LaneInsts& insts, const ThreadState* lanes, uint32_t active, uint32_t live);
inline MemberCheck check_members(const Inst& inst, const ThreadState* lanes, uint32_t active, uint32_t live) {
  return check_members(same_inst(inst), lanes, active, live);
}

// Executes a collective (is_warp_collective) for the `active` lanes of
// `lanes` (kWarpLanes states): every active lane's rd is written from the
// operands all active lanes had before it, and its pc advances by 4.
//   shfl.*: the source lane's rs1 when it is in range, active and in the
//     caller's mask; otherwise the caller's own rs1 (CUDA leaves reading an
//     inactive lane undefined; Tessera returns the caller's value).
//   vote.ballot: bit j set for each active lane j in the caller's mask with
//     rs1 != 0; vote.any: that ballot != 0; vote.all: every active lane of
//     the mask has rs1 != 0 (1 or 0); activemask: the active lanes.
void execute_warp_collective(const LaneInsts& insts, ThreadState* lanes, uint32_t active);
inline void execute_warp_collective(const Inst& inst, ThreadState* lanes, uint32_t active) {
  execute_warp_collective(same_inst(inst), lanes, active);
}

}  // namespace tessera::isa
