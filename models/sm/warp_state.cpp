#include "sm/warp_state.h"

namespace tessera::sm {

void Warp::start(unsigned block, unsigned index, unsigned part, const KernelLaunch& k, uint64_t threads_in_block,
                 uint32_t stack_top, uint64_t first) {
  resident = true;
  block_slot = block;
  warp_in_block = index;
  partition = part;
  existing = exited = at_barrier = 0;
  at_syncwarp = syncwarp_need = at_collective = 0;
  bar_op.fill(kBarRedNone);
  outstanding = 0;
  first_issue = first;
  ready.fill(0);
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const uint32_t t = index * kWarpSize + lane;
    isa::ThreadState& ts = threads[lane];
    ts.clear();
    if (t >= threads_in_block) continue;
    existing |= 1u << lane;
    ts.pc = k.start_pc;
    ts.x[10] = k.args;    // a0
    ts.x[11] = k.kernel;  // a1
    ts.x[2] = stack_top;  // sp: top of local memory
    tid[lane] = {static_cast<uint16_t>(t % k.block.x), static_cast<uint16_t>((t / k.block.x) % k.block.y),
                 static_cast<uint16_t>(t / (k.block.x * k.block.y))};
  }
  reconverge();
}

void Warp::reconverge() {
  // Locals, not members, in the loop: the compiler cannot keep a member in a
  // register while it loads the threads' PCs (same type, may alias).
  const uint32_t free_lanes = runnable();
  // Parked lanes run again only with others that reach their pc, or when no
  // other lane can run (the collective then decides: run or report).
  const uint32_t candidates = free_lanes ? free_lanes : at_collective;
  uint32_t best = ~0u, best_mask = 0;
  for (uint32_t m = candidates; m; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    const uint32_t lane_pc = threads[lane].pc;
    if (lane_pc < best) {
      best = lane_pc;
      best_mask = 1u << lane;
    } else if (lane_pc == best) {
      best_mask |= 1u << lane;
    }
  }
  if (free_lanes) {
    for (uint32_t m = at_collective; m; m &= m - 1) {
      const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
      if (threads[lane].pc == best) best_mask |= 1u << lane;
    }
  }
  mask = best_mask;
  if (candidates) pc = best;
}

bool Warp::release_syncwarp_if_complete() {
  if (at_syncwarp == 0) return false;
  // Named lanes that exited (or never existed) are not waited for.
  if ((syncwarp_need & existing & ~exited & ~at_syncwarp) != 0) return false;
  at_syncwarp = syncwarp_need = at_collective = 0;
  return true;
}

WarpActivity warp_activity(const Warp& w, const isa::Inst* next) {
  if (!w.resident) return WarpActivity::kEmpty;
  if (w.exited == w.existing) return WarpActivity::kExited;
  if (w.mask == 0) return (w.at_barrier | w.at_syncwarp) ? WarpActivity::kBarrier : WarpActivity::kMemory;
  if (!next) return WarpActivity::kActive;
  // The registers IssueStage::check() reads: the first of each operand, then
  // the rest of a register group (ld.v4, atom.cas64) for src[1], src[2], dst.
  auto pending = [&](uint8_t r, unsigned k) { return r != isa::kNoReg && w.ready[r + k] == Warp::kPending; };
  for (uint8_t r : {next->src[0], next->src[1], next->src[2], next->dst})
    if (pending(r, 0)) return WarpActivity::kMemory;
  for (unsigned k = 1; k < next->group; ++k)
    for (uint8_t r : {next->src[1], next->src[2], next->dst})
      if (pending(r, k)) return WarpActivity::kMemory;
  return WarpActivity::kActive;
}

void release_barrier_if_complete(unsigned slot, Block& b, std::vector<Warp>& warps, uint64_t ready_at) {
  if (b.waiting == 0 || b.waiting != b.threads - b.exited) return;
  b.waiting = 0;
  // __syncthreads_count/_and/_or over the predicates of the threads that
  // arrived through bar.red (every thread, when the block uses one form).
  const uint32_t results[4] = {0, b.red_true, b.red_true == b.red_arrived ? 1u : 0u, b.red_true != 0 ? 1u : 0u};
  for (unsigned s : b.warps) {
    Warp& w = warps[s];
    if (!w.resident || w.block_slot != slot) continue;
    for (uint32_t m = w.at_barrier; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      const uint8_t op = w.bar_op[lane];
      if (op == kBarRedNone) continue;
      w.bar_op[lane] = kBarRedNone;
      const uint8_t rd = w.bar_rd[lane];
      if (rd == 0) continue;
      w.threads[lane].x[rd] = results[op];
      w.ready[rd] = ready_at;
    }
    w.at_barrier = 0;
    w.reconverge();
  }
  b.red_true = b.red_arrived = 0;
}

}  // namespace tessera::sm
