#include "sm/issue_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <string>

#include "sm/sm_engine.h"

namespace tessera::sm {

const char* stall_name(Stall s) {
  switch (s) {
    case Stall::kNone:
      return "none";
    case Stall::kScoreboard:
      return "scoreboard";
    case Stall::kMemory:
      return "memory";
    case Stall::kUnitBusy:
      return "unit_busy";
    case Stall::kBarrier:
      return "barrier";
    case Stall::kNoWarp:
      return "no_warp";
    case Stall::kCount:
      break;
  }
  return "?";
}

namespace {
// When several warps are blocked, the partition reports the reason closest to
// issuing: a busy unit before a pending result before a barrier.
int stall_rank(Stall s) {
  switch (s) {
    case Stall::kUnitBusy:
      return 5;
    case Stall::kScoreboard:
      return 4;
    case Stall::kMemory:
      return 3;
    case Stall::kBarrier:
      return 2;
    case Stall::kNoWarp:
      return 1;
    default:
      return 0;
  }
}

unsigned lanes_in(uint32_t mask) { return static_cast<unsigned>(std::bitset<32>(mask).count()); }

IssueStage::UnitIndex unit_index(isa::Unit u) {
  switch (u) {
    case isa::Unit::kSp:
      return IssueStage::kUnitSp;
    case isa::Unit::kSfu:
      return IssueStage::kUnitSfu;
    case isa::Unit::kDp:
      return IssueStage::kUnitDp;
    default:
      return IssueStage::kUnitLdst;
  }
}
}  // namespace

IssueStage::IssueStage(unsigned index, const SmParams& p, sim::StatGroup& parent, const uint64_t* active_cycles)
    : p_(p), scheduler_(make_scheduler(p.scheduler, WarpSchedulerOptions{p.two_level_active})) {
  stats_ = std::make_unique<sim::StatGroup>(fmt::format("sched{}", index), &parent);
  stats_->add_counter("issued_warp_insts", &issued_, "Warp instructions issued by this scheduler");
  stats_->add_counter("dual_issued", &dual_issued_, "Cycles in which a second instruction issued");
  for (int s = 1; s < static_cast<int>(Stall::kCount); ++s) {
    stats_->add_counter(std::string("stall_") + stall_name(static_cast<Stall>(s)), &stalls_[static_cast<size_t>(s)],
                        "Cycles without issue for this reason");
  }
  stats_->add_formula(
      "ipc",
      [this, active_cycles] {
        return *active_cycles ? static_cast<double>(issued_) / static_cast<double>(*active_cycles) : 0.0;
      },
      "Warp instructions per active SM cycle");
}

unsigned IssueStage::unit_occupancy(isa::Unit u) const {
  switch (u) {
    case isa::Unit::kSp:
      return (kWarpSize + p_.sp_lanes - 1) / p_.sp_lanes;
    case isa::Unit::kSfu:
      return (kWarpSize + p_.sfu_lanes - 1) / p_.sfu_lanes;
    case isa::Unit::kLdst:
      return (kWarpSize + p_.ldst_lanes - 1) / p_.ldst_lanes;
    case isa::Unit::kDp:
      return (kWarpSize + p_.fp64_lanes - 1) / p_.fp64_lanes;
    case isa::Unit::kCtrl:
      return 0;
  }
  return 1;
}

void IssueStage::occupy(isa::Unit u, uint64_t now) {
  if (u == isa::Unit::kCtrl) return;
  unit_free_[unit_index(u)] = now + unit_occupancy(u);
}

void IssueStage::occupy_until(isa::Unit u, uint64_t cycle) {
  if (u == isa::Unit::kCtrl) return;
  uint64_t& free = unit_free_[unit_index(u)];
  free = std::max(free, cycle);
}

void IssueStage::remove_warp(uint16_t slot) { warps_.erase(std::find(warps_.begin(), warps_.end(), slot)); }

void IssueStage::idle() {
  if (last_stall_ != Stall::kNoWarp) note(-1, 0, 0, Stall::kNoWarp, 0);
  last_stall_ = Stall::kNoWarp;
}

Stall IssueStage::check(const Warp& w, const isa::Inst& inst, uint64_t now, bool queue_full, uint64_t& wake) const {
  // Events that land in a cycle (a block placed, a response, END_REQ) take
  // effect from the next one, whatever order SystemC runs the processes of
  // that cycle in: the results do not depend on idle skipping.
  if (w.first_issue > now) {
    wake = w.first_issue;
    return Stall::kNoWarp;
  }
  for (uint8_t r : {inst.src[0], inst.src[1], inst.src[2], inst.dst}) {
    if (r == isa::kNoReg) continue;
    const uint64_t t = w.ready[r];
    if (t <= now) continue;
    if (t == Warp::kPending) return Stall::kMemory;  // woken by the response
    wake = t;
    return Stall::kScoreboard;
  }
  // The rest of register groups (ld.v4, atom.cas64, ...): src[1], src[2], dst.
  for (unsigned k = 1; k < inst.group; ++k) {
    for (uint8_t r : {inst.src[1], inst.src[2], inst.dst}) {
      if (r == isa::kNoReg) continue;
      const uint64_t t = w.ready[r + k];
      if (t <= now) continue;
      if (t == Warp::kPending) return Stall::kMemory;
      wake = t;
      return Stall::kScoreboard;
    }
  }
  if (inst.unit == isa::Unit::kCtrl) return Stall::kNone;
  const UnitIndex u = unit_index(inst.unit);
  if (unit_free_[u] > now) {
    wake = unit_free_[u];
    return Stall::kUnitBusy;
  }
  if (u == kUnitLdst && queue_full) return Stall::kMemory;  // woken as requests drain
  return Stall::kNone;
}

bool IssueStage::cycle(uint64_t now, SmEngine& engine, uint64_t& next_wake) {
  if (warps_.empty()) {
    if (last_stall_ != Stall::kNoWarp) note(-1, 0, 0, Stall::kNoWarp, 0);
    last_stall_ = Stall::kNoWarp;
    ++stalls_[static_cast<size_t>(Stall::kNoWarp)];
    return false;
  }
  scheduler_->order(warps_, order_);
  Stall reason = Stall::kNone;
  for (uint16_t slot : order_) {
    Warp& w = engine.warp(slot);
    if (w.mask == 0) {  // every thread waits at the barrier or has exited
      const Stall s = (w.at_barrier | w.at_syncwarp) ? Stall::kBarrier : Stall::kMemory;
      if (stall_rank(s) > stall_rank(reason)) reason = s;
      continue;
    }
    const isa::Inst* inst = engine.program().find(w.pc);
    if (!inst) {
      engine.illegal_pc(slot);
      return false;
    }
    uint64_t wake = SmEngine::kNever;
    const Stall s = check(w, *inst, now, engine.memory_queue_full(), wake);
    if (s != Stall::kNone) {
      if (stall_rank(s) > stall_rank(reason)) reason = s;
      next_wake = std::min(next_wake, wake);
      continue;
    }

    const SmEngine::DebugGate gate = engine.debug_gate(slot, *inst);
    if (gate == SmEngine::DebugGate::kStopped) return false;
    if (gate == SmEngine::DebugGate::kHold) {  // gdb resumed other threads only
      next_wake = std::min(next_wake, now + 1);
      continue;
    }
    const uint32_t pc = w.pc, mask = w.mask;
    if (!engine.execute(slot, *inst, now)) return false;
    scheduler_->issued(slot);
    ++issued_;
    last_stall_ = Stall::kNone;
    note(slot, pc, static_cast<int>(inst->unit), Stall::kNone, lanes_in(mask));

    // Dual issue: the warp's next instruction, if it needs another unit and
    // does not depend on the first (the scoreboard now holds the first's
    // destination, so check() sees any dependence).
    if (p_.dual_issue && w.resident && !inst->is_control && inst->unit != isa::Unit::kCtrl && w.mask == mask &&
        w.pc == pc + 4) {
      const isa::Inst* next = engine.program().find(w.pc);
      uint64_t ignored = SmEngine::kNever;
      if (next && next->unit != inst->unit && next->unit != isa::Unit::kCtrl &&
          check(w, *next, now, engine.memory_queue_full(), ignored) == Stall::kNone &&
          engine.debug_gate(slot, *next) == SmEngine::DebugGate::kIssue) {
        if (!engine.execute(slot, *next, now)) return false;
        ++issued_;
        ++dual_issued_;
      }
    }
    return true;
  }
  if (reason == Stall::kNone) reason = Stall::kNoWarp;
  ++stalls_[static_cast<size_t>(reason)];
  if (last_stall_ != reason || last_stall_ == Stall::kNone) note(-1, 0, 0, reason, 0);
  last_stall_ = reason;
  return false;
}

}  // namespace tessera::sm
