// A resident warp: its threads (each with its own PC), the scoreboard, and
// SIMT divergence by minimum-PC reconvergence: the warp issues for the
// threads at the lowest PC among those that can run, so both sides of a
// branch run one after the other (the lower-addressed first) and the warp
// reconverges at the first common PC. And the block barrier: a thread that
// executes bar.sync stops until every thread of its block has arrived.
// Pure logic, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/isa.h"
#include "sm/block_slots.h"
#include "sm/sm_params.h"

namespace tessera::sm {

struct Warp {
  static constexpr uint64_t kPending = ~uint64_t{0};  // a register waits on memory

  bool resident = false;
  unsigned block_slot = 0;
  unsigned warp_in_block = 0;
  unsigned partition = 0;
  uint32_t pc = 0;    // the PC the warp issues next (minimum over runnable threads)
  uint32_t mask = 0;  // threads at that PC
  uint32_t existing = 0, exited = 0, at_barrier = 0;
  // __syncwarp: lanes waiting at a syncwarp, and the lanes their masks name
  // (released together when every named lane still live waits too).
  uint32_t at_syncwarp = 0, syncwarp_need = 0;
  // Lanes parked at a shuffle or vote whose mask names lanes that are not
  // there yet (their pc is the collective's): they rejoin the lanes that
  // reach the same pc, as CUDA's *_sync calls converge the named lanes.
  uint32_t at_collective = 0;
  // A lane waiting at the block barrier through bar.red.*: its reduction
  // (kBarRed*, 0 for bar.sync) and the register that receives the result.
  std::array<uint8_t, kWarpSize> bar_op{}, bar_rd{};
  unsigned outstanding = 0;          // global-memory groups in flight
  uint64_t serial = 0;               // which warp the slot holds (the engine numbers the warps it starts)
  uint64_t first_issue = 0;          // placed in cycle c, a warp issues from c + 1
  std::array<uint64_t, 64> ready{};  // scoreboard: cycle each register is readable
  std::array<isa::ThreadState, kWarpSize> threads{};
  std::array<std::array<uint16_t, 3>, kWarpSize> tid{};

  // Makes the warp warp_in_block of block `block_slot` (launch `k`, `threads`
  // threads in the block), its threads at the kernel's start with a0, a1
  // and sp set, able to issue from cycle `first_issue`.
  void start(unsigned block_slot, unsigned warp_in_block, unsigned partition, const KernelLaunch& k,
             uint64_t threads_in_block, uint32_t stack_top, uint64_t first_issue);
  // Minimum-PC reconvergence: sets pc and mask from the runnable threads,
  // with the lanes parked at a collective at that pc; when only parked lanes
  // remain, those at the lowest pc (mask 0: every thread waits at a barrier
  // or has exited).
  void reconverge();
  // Threads that can run on their own: not exited, waiting or parked.
  uint32_t runnable() const { return existing & ~exited & ~at_barrier & ~at_syncwarp & ~at_collective; }
  bool done() const { return exited == existing && outstanding == 0; }
  // Releases the lanes waiting at __syncwarp when every lane their masks
  // name has arrived or exited (call reconverge() after). Returns whether
  // it released them.
  bool release_syncwarp_if_complete();
};

// What a warp slot does, as the waveform shows it (chip.smN.warpW.state,
// docs/waveforms.md).
enum class WarpActivity : uint8_t {
  kEmpty,    // no warp resident
  kActive,   // can issue, or waits for a unit or an arithmetic result
  kMemory,   // its next instruction needs a register a memory access has not delivered
  kBarrier,  // every live lane waits at __syncthreads or __syncwarp
  kExited,   // every lane exited; the slot waits for its accesses in flight
};
// `next`: the instruction at w.pc (nullptr when none is known).
WarpActivity warp_activity(const Warp& w, const isa::Inst* next);

// bar.red reductions a lane may wait with (Warp::bar_op).
enum BarRed : uint8_t { kBarRedNone, kBarRedPopc, kBarRedAnd, kBarRedOr };

// Releases the barrier of the block in `slot` if every thread of it that
// has not exited has arrived: its warps' waiting threads run on. Exited
// threads drop out, as on the hardware (PTX ISA, "bar, barrier": a barrier
// waits for the non-exited threads, and an exit that leaves only arrived
// threads releases it), so `if (i >= n) return; __syncthreads();` works. A
// thread that neither exits nor arrives (say a lane of a split warp parked at
// __syncwarp) holds the others for ever, and the watchdog reports it.
// Lanes that arrived through bar.red.* receive the block's reduction of the
// predicates in their destination register, readable from cycle `ready_at`.
void release_barrier_if_complete(unsigned slot, Block& b, std::vector<Warp>& warps, uint64_t ready_at = 0);

}  // namespace tessera::sm
