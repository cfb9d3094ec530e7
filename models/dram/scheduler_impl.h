// The channel controller's per-transaction and per-cycle work, written
// once for every scheduler type S and instantiated in each policy's file
// (SchedulerImpl<S>): the scheduler's calls inside are direct calls on a
// final class, which the compiler inlines. Include this header in a policy's
// file (docs/architecture.md, "Adding a DRAM scheduler").
#pragma once

#include <algorithm>

#include "dram/controller.h"
#include "dram/scheduler.h"

namespace tessera::dram {

// Tells the scheduler of the transactions enqueued since it was last told,
// in their order: batched, so that enqueue() (inlined into the memory
// system's) makes no call through the scheduler's interface. Every call of
// the scheduler that reads its indices comes after this, and no queue
// index moves in between (only a column command takes an entry out), so
// it sees what it would have seen told at each enqueue.
template <class S>
[[gnu::always_inline]] inline void ChannelController::tell_enqueued(S& s) {
  if ((untold_count_[0] | untold_count_[1]) == 0) return;
  for (unsigned d = 0; d < 2; ++d) {
    const size_t n = untold_count_[d];
    const size_t first = queue_[d].size() - n;
    for (size_t k = 0; k < n; ++k) s.enqueued(d, first + k, untold_[d][k] & 1, untold_[d][k] >> 1);
    untold_count_[d] = 0;
  }
}

// After bank b's row opened or closed: its hits counted again and the
// scheduler told where its entries stand. (Not inlined into issue_as:
// only ACT and PRE take it.)
template <class S>
[[gnu::noinline]] void ChannelController::index_bank_as(S& s, unsigned b) {
  // A bank that closes without hits in a queue has nothing to count again
  // there, and its entries keep their standing (none was a hit); if that
  // holds for both queues the scheduler is not told (Scheduler::row_changed).
  const bool closed = open_row_[b] == kClosed;
  const bool recount[2] = {!closed || hits_[0][b] > 0, !closed || hits_[1][b] > 0};
  if (!recount[0] && !recount[1]) return;
  const unsigned pc = b / banks_per_pc_;
  uint16_t n[2] = {hits_[0][b], hits_[1][b]};
  tell_enqueued(s);
  s.row_changed(view_, b, recount, n);
  for (unsigned d = 0; d < 2; ++d) {
    hit_total_[d][pc] = hit_total_[d][pc] - hits_[d][b] + n[d];
    hits_[d][b] = n[d];
  }
}

inline void ChannelController::update_mode() {
  // Write draining (watermarks), per pseudo channel: reads have priority
  // until the pseudo channel's queued writes reach the high watermark, then
  // its writes drain down to the low one. With no reads waiting for it,
  // its writes are served opportunistically.
  for (unsigned pc = 0; pc < pcs_; ++pc) {
    const uint32_t writes = queued_[1][pc], reads = queued_[0][pc];
    uint8_t& draining = draining_[pc];
    const uint8_t before = draining;
    if (draining) {
      if (writes == 0 || (writes <= params_.write_low_watermark && reads > 0)) draining = 0;
    } else if (writes > 0 && (writes >= params_.write_high_watermark || reads == 0)) {
      draining = 1;
    }
    if (before != draining) ++stats_.mode_switches;
  }
}

inline void ChannelController::begin_cycle(uint64_t cycle) {
  now_ = cycle;
  // update_mode() is a function of the queue counts alone, and applying it
  // twice changes nothing: it only needs to run after they changed.
  if (mode_dirty_) {
    update_mode();
    mode_dirty_ = false;
  }
  if (cycle >= refresh_due_) {
    refresh_due_ = kNever;
    for (unsigned pc = 0; pc < pcs_; ++pc) {
      while (cycle >= refresh_->due(pc)) {
        ++owed_[pc];
        urgency_dirty_ = true;
        refresh_->advance(pc);
      }
      refresh_due_ = std::min(refresh_due_, refresh_->due(pc));
    }
  }
  // An owed refresh starts as soon as its pseudo channel has nothing
  // queued, or once it owes the postponement limit. A started refresh
  // stops new activations in its scope, precharges and issues as soon as
  // legal, even if requests arrive meanwhile (else every idle moment would
  // close rows for a refresh that never comes).
  // (A function of owed_, the queue counts and itself that gives the same
  // answer when applied again: it is only redone after one of them changed.)
  if (urgency_dirty_) {
    urgency_dirty_ = false;
    any_refresh_urgent_ = false;
    for (unsigned pc = 0; pc < pcs_; ++pc) {
      const bool urgent =
          refresh_urgent_[pc] ||
          (owed_[pc] > 0 && (owed_[pc] >= params_.refresh_postpone || queued_[0][pc] + queued_[1][pc] == 0));
      refresh_urgent_[pc] = urgent;
      any_refresh_urgent_ = any_refresh_urgent_ || urgent;
    }
  }
}

template <class S>
void ChannelController::issue_as(S& s, CommandKind kind, const DramAddress& a, uint64_t cycle) {
  Command cmd;
  cmd.cycle = cycle;
  cmd.kind = kind;
  cmd.channel = static_cast<uint16_t>(channel_);
  cmd.pc = static_cast<uint8_t>(a.pc);
  cmd.bank_group = static_cast<uint8_t>(a.bank_group);
  cmd.bank = static_cast<uint8_t>(a.bank);
  cmd.row = a.row;
  cmd.column = a.column;
  timing_.issue(cmd);
  if (kind == CommandKind::kRefAb) {
    for (unsigned i = 0; i < banks_per_pc_; ++i) banks_[a.pc * banks_per_pc_ + i].apply(kind, 0, cycle);
  } else {
    const unsigned b = flat(a);
    banks_[b].apply(kind, a.row, cycle);
    if (kind == CommandKind::kAct || kind == CommandKind::kPre) {
      open_row_[b] = kind == CommandKind::kAct ? a.row : kClosed;
      index_bank_as(s, b);
    }
  }
  if (checker_) checker_->on_command(cmd);
  if (energy_) energy_->on_command(cmd);
  for (CommandObserver* o : observers_) o->on_command(cmd);
}

template <class S>
void ChannelController::process_as(S& s, uint64_t cycle) {
  begin_cycle(cycle);
  tell_enqueued(s);
  // Each pseudo channel is served from the queue of its mode; the row bus
  // may also prepare banks (ACT/PRE) for the other mode when the current
  // modes have no row command ready, as per-bank command queues do.
  uint64_t next = kNever;
  Choice choice;
  // (With both queues empty there is nothing to choose nor to wait for.)
  if (!queue_[0].empty() || !queue_[1].empty()) {
    update_floors();
    view_.row_bus_free = timing_.row_bus_free();
    view_.any_refresh_urgent = any_refresh_urgent_;
    choice = s.pick(view_, cycle, next);
  }
  const unsigned row_dir = choice.row_dir;
  size_t row_index = choice.row;
  const CommandKind row_kind = choice.row_kind;

  bool issued = false;
  // Column bus.
  if (choice.column != kNoPick) {
    const unsigned column_dir = choice.column_dir;
    EntryQueue& queue = queue_[column_dir];
    const size_t column_index = choice.column;
    const Entry e = queue[column_index];
    const bool is_write = column_dir == 1;
    const unsigned b = e.bank;
    issue_as(s, is_write ? CommandKind::kWr : CommandKind::kRd, address_of(e), cycle);
    --hits_[column_dir][b];
    --hit_total_[column_dir][e.pc];
    --queued_[column_dir][e.pc];
    --bank_queued_[column_dir][b];
    mode_dirty_ = urgency_dirty_ = true;
    queue.erase(column_index);
    s.removed(column_dir, column_index, e, cycle);
    ++(is_write ? stats_.writes : stats_.reads);
    issued = true;
    const uint64_t done = cycle + (is_write ? spec_.timing.CWL : spec_.timing.CL) + burst_cycles_;
    // The slot is freed after the callback, which may enqueue.
    on_complete_(slots_[e.slot], done);
    free_slots_.push_back(e.slot);
    if (row_dir == column_dir && row_index != kNoPick && row_index > column_index) --row_index;
  }
  // Row bus: refresh first, then the scheduler's ACT/PRE, then page closes.
  next = std::min(next, refresh_due_);
  bool row_issued = any_refresh_urgent_ && refresh_step(cycle, next);
  if (!row_issued && row_index != kNoPick) {
    // The column command of this cycle may have changed the timing; the
    // candidate stands only if it is still legal.
    const DramAddress a = address_of(queue_[row_dir][row_index]);
    if (timing_.earliest(row_kind, a.pc, a.bank_group, a.bank) <= cycle) {
      issue_as(s, row_kind, a, cycle);
      if (row_kind == CommandKind::kAct) {
        ++stats_.acts;
      } else {
        ++stats_.pres;
        ++stats_.conflict_pres;
      }
      row_issued = true;
    }
  }
  if (!row_issued && page_closes_) row_issued = page_close_step(cycle, next);
  issued = issued || row_issued;

  // After a command the new state may allow more at once.
  next = issued ? cycle + 1 : std::max(next, cycle + 1);
  now_ = cycle + 1;
  next_event_ = next;
}

template <class D>
void SchedulerImpl<D>::process(ChannelController& c, uint64_t cycle) {
  c.process_as(static_cast<D&>(*this), cycle);
}
template <class D>
void SchedulerImpl<D>::issue(ChannelController& c, CommandKind kind, const DramAddress& a, uint64_t cycle) {
  c.issue_as(static_cast<D&>(*this), kind, a, cycle);
}

}  // namespace tessera::dram
