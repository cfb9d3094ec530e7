// The SM's block slots: which thread blocks are resident, the occupancy
// limits a new block must fit (block slots, warps, threads, registers) and
// the first-fit allocation of its shared-memory extent (16-byte aligned).
// Pure logic, no SystemC.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sm/kernel_launch.h"
#include "sm/sm_params.h"

namespace tessera::sm {

struct Block {
  bool resident = false;
  uint64_t index = 0;  // linear block index in the grid
  uint32_t ctaid[3] = {0, 0, 0};
  KernelLaunch launch;
  BlockFootprint use{};
  uint32_t shared_base = 0;     // offset in the SM's shared memory
  std::vector<unsigned> warps;  // slots given at start (reused after they retire)
  unsigned live_warps = 0;
  unsigned threads = 0, waiting = 0, exited = 0;  // barrier: threads waiting, threads that exited (not waited for)
  unsigned red_arrived = 0, red_true = 0;         // bar.red: threads arrived with a predicate, true ones
};

class BlockSlots {
 public:
  explicit BlockSlots(const SmParams& p);

  // Occupancy: can a block of this launch be placed now?
  bool can_accept(const KernelLaunch& k) const;
  // Places a block of `k` (can_accept must hold): the lowest free slot and
  // the first free shared-memory extent that fits. Returns the slot.
  unsigned start(const KernelLaunch& k, uint64_t block_index);
  // The block in `slot` finished: frees its slot, warps, threads, registers
  // and shared memory (merged with free neighbours).
  void retire(unsigned slot);

  Block& operator[](unsigned slot) { return blocks_[slot]; }
  const Block& operator[](unsigned slot) const { return blocks_[slot]; }
  const std::vector<Block>& blocks() const { return blocks_; }
  unsigned resident_blocks() const { return resident_blocks_; }
  unsigned resident_warps() const { return resident_warps_; }
  unsigned resident_threads() const { return resident_threads_; }
  unsigned used_registers() const { return used_registers_; }
  // Free [offset, size) extents of shared memory, by offset.
  const std::vector<std::pair<uint32_t, uint32_t>>& free_extents() const { return shared_free_; }

  static uint32_t align16(uint64_t v) { return static_cast<uint32_t>((v + 15u) & ~uint64_t{15}); }

 private:
  const SmParams& p_;
  std::vector<Block> blocks_;
  std::vector<std::pair<uint32_t, uint32_t>> shared_free_;
  unsigned resident_blocks_ = 0, resident_warps_ = 0, resident_threads_ = 0, used_registers_ = 0;
};

}  // namespace tessera::sm
