// One partition's issue stage: each cycle its scheduling policy orders the
// partition's resident warps and the first whose next instruction is ready
// issues: every source and destination register readable (the scoreboard),
// its unit (SP, SFU, LD/ST) free, and for LD/ST room in the memory queue.
// With dual issue the same warp's next instruction issues in the same cycle
// if it needs another unit and is ready too. A cycle without issue counts
// one stall reason, the one closest to issuing. Pure logic, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "isa/isa.h"
#include "sim/stats.h"
#include "sm/sm_params.h"
#include "sm/warp_scheduler.h"
#include "sm/warp_state.h"

namespace tessera::sm {

class SmEngine;

// Why a partition did not issue in a cycle.
enum class Stall : uint8_t { kNone, kScoreboard, kMemory, kUnitBusy, kBarrier, kNoWarp, kCount };
const char* stall_name(Stall s);

// What a partition did in a cycle, for the waveform (warp -1: none issued).
struct IssueTrace {
  int warp = -1;
  uint32_t pc = 0;
  int unit = 0;
  Stall stall = Stall::kNoWarp;
  unsigned lanes = 0;
};

class IssueStage {
 public:
  enum UnitIndex { kUnitSp, kUnitSfu, kUnitLdst, kUnitDp, kUnitCount };

  // Statistics go under `parent` as sched<index>; `active_cycles` is the SM's
  // count (the ipc formula).
  IssueStage(unsigned index, const SmParams& p, sim::StatGroup& parent, const uint64_t* active_cycles);

  // Tries to issue in cycle `now`; lowers next_wake to the first cycle a
  // stalled warp can issue. Returns whether an instruction issued.
  bool cycle(uint64_t now, SmEngine& engine, uint64_t& next_wake);
  // A cycle with no resident warp in the SM.
  void idle();
  // `n` skipped cycles: nothing changed, so each stalled for the last reason.
  void skip(uint64_t n) { stalls_[static_cast<size_t>(last_stall_)] += n; }

  // The unit busy until `now` + its occupancy (32 / lanes cycles).
  void occupy(isa::Unit u, uint64_t now);
  // The unit stays busy until `cycle` at least (a constant load's serialised addresses).
  void occupy_until(isa::Unit u, uint64_t cycle);
  unsigned unit_occupancy(isa::Unit u) const;

  void add_warp(uint16_t slot) { warps_.push_back(slot); }
  void remove_warp(uint16_t slot);
  WarpScheduler& scheduler() { return *scheduler_; }

  uint64_t issued() const { return issued_; }
  uint64_t dual_issued() const { return dual_issued_; }
  uint64_t stalls(Stall s) const { return stalls_[static_cast<size_t>(s)]; }
  Stall last_stall() const { return last_stall_; }

  // Waveform: set when tracing and the partition's signals change this cycle.
  bool tracing = false;
  bool traced = false;
  IssueTrace trace;

 private:
  Stall check(const Warp& w, const isa::Inst& inst, uint64_t now, bool queue_full, uint64_t& wake) const;
  void note(int warp, uint32_t pc, int unit, Stall stall, unsigned lanes) {
    if (!tracing) return;
    traced = true;
    trace = IssueTrace{warp, pc, unit, stall, lanes};
  }

  const SmParams& p_;
  std::unique_ptr<WarpScheduler> scheduler_;
  std::vector<uint16_t> warps_;  // resident warp slots, oldest first
  std::vector<uint16_t> order_;  // scratch
  std::array<uint64_t, kUnitCount> unit_free_{};
  Stall last_stall_ = Stall::kNoWarp;
  uint64_t issued_ = 0, dual_issued_ = 0;
  std::array<uint64_t, static_cast<size_t>(Stall::kCount)> stalls_{};
  std::unique_ptr<sim::StatGroup> stats_;
};

}  // namespace tessera::sm
