#include "isa/warp_ops.h"

#include <array>

namespace tessera::isa {

ShflSource shfl_source(Op op, unsigned lane, uint32_t operand) {
  // PTX ISA, shfl.sync: lane computation (minLane, maxLane, pval).
  const int b = static_cast<int>(operand & 31);
  const int seg = static_cast<int>((operand >> 8) & 31);
  const int me = static_cast<int>(lane);
  const int clamp = op == Op::kShflUp ? 0 : 31;
  const int max_lane = (me & seg) | (clamp & ~seg);
  const int min_lane = me & seg;
  int j = me;
  bool in_range = false;
  switch (op) {
    case Op::kShflUp:
      j = me - b;
      in_range = j >= max_lane;
      break;
    case Op::kShflDown:
      j = me + b;
      in_range = j <= max_lane;
      break;
    case Op::kShflXor:
      j = me ^ b;
      in_range = j <= max_lane;
      break;
    default:  // kShflIdx
      j = min_lane | (b & ~seg);
      in_range = j <= max_lane;
      break;
  }
  if (!in_range) j = me;
  return ShflSource{static_cast<unsigned>(j), in_range};
}

uint32_t member_mask(const Inst& inst, const ThreadState& t) {
  // A collective's member mask is its last register operand (opcodes.def).
  const OpInfo& o = info(inst.op);
  if (!(o.flags & opflag::kCollective)) return ~0u;
  if (o.rs3 != Reg::kNone) return t.x[inst.rs3];
  if (o.rs2 != Reg::kNone) return t.x[inst.rs2];
  return ~0u;
}

MemberCheck check_members(const LaneInsts& insts, const ThreadState* lanes, uint32_t active, uint32_t live) {
  MemberCheck c;
  for (uint32_t m = active; m; m &= m - 1) {
    const auto lane = static_cast<unsigned>(__builtin_ctz(m));
    if (insts[lane]->op == Op::kActivemask) continue;  // no mask operand
    const uint32_t mask = member_mask(*insts[lane], lanes[lane]);
    const bool self_missing = !(mask >> lane & 1);
    const uint32_t missing = mask & live & ~active;
    if (!self_missing && missing == 0) continue;
    c.ok = false;
    c.lane = lane;
    c.mask = mask;
    c.self_missing = self_missing;
    c.not_converged = missing;
    return c;
  }
  return c;
}

void execute_warp_collective(const LaneInsts& insts, ThreadState* lanes, uint32_t active) {
  // Every operand is read before any lane's rd is written (rd may be rs1).
  std::array<uint32_t, kWarpLanes> result{}, value{};
  uint32_t pred = 0;  // active lanes whose rs1 is non-zero (votes)
  for (uint32_t m = active; m; m &= m - 1) {
    const auto lane = static_cast<unsigned>(__builtin_ctz(m));
    value[lane] = lanes[lane].x[insts[lane]->rs1];
    if (value[lane] != 0) pred |= 1u << lane;
  }
  for (uint32_t m = active; m; m &= m - 1) {
    const auto lane = static_cast<unsigned>(__builtin_ctz(m));
    const Inst& inst = *insts[lane];
    const ThreadState& t = lanes[lane];
    const uint32_t members = member_mask(inst, t) & active;
    switch (inst.op) {
      case Op::kShflIdx:
      case Op::kShflUp:
      case Op::kShflDown:
      case Op::kShflXor: {
        const ShflSource s = shfl_source(inst.op, lane, t.x[inst.rs2]);
        const bool readable = s.in_range && (members >> s.lane & 1);
        result[lane] = value[readable ? s.lane : lane];
        break;
      }
      case Op::kVoteBallot:
        result[lane] = pred & members;
        break;
      case Op::kVoteAny:
        result[lane] = (pred & members) != 0;
        break;
      case Op::kVoteAll:
        result[lane] = (members & ~pred) == 0;
        break;
      case Op::kActivemask:
        result[lane] = active;
        break;
      default:
        break;
    }
  }
  for (uint32_t m = active; m; m &= m - 1) {
    const auto lane = static_cast<unsigned>(__builtin_ctz(m));
    ThreadState& t = lanes[lane];
    if (insts[lane]->rd != 0) t.x[insts[lane]->rd] = result[lane];
    t.pc += 4;
  }
}

}  // namespace tessera::isa
