#include "dram/controller.h"

#include <algorithm>

namespace tessera::dram {

namespace {
constexpr size_t npos = static_cast<size_t>(-1);
}

ChannelController::ChannelController(unsigned channel, const DramSpec& spec, const ControllerParams& params,
                                     Completion on_complete)
    : channel_(channel),
      spec_(spec),
      params_(params),
      on_complete_(std::move(on_complete)),
      scheduler_(make_scheduler(params.scheduler, SchedulerContext{spec.org.pseudo_channels,
                                                                   spec.org.pseudo_channels * spec.org.banks_per_pc(),
                                                                   spec.org.banks_per_pc(), &params.scheduler_params})),
      page_(make_page_policy(params.page_policy, params.adaptive_timeout)),
      refresh_(make_refresh_policy(params.refresh, spec, channel, params.refresh_stagger)),
      pcs_(spec.org.pseudo_channels),
      bank_groups_(spec.org.bank_groups),
      banks_per_group_(spec.org.banks_per_group),
      banks_per_pc_(spec.org.banks_per_pc()),
      burst_cycles_(spec.org.burst_cycles()),
      timing_(spec),
      banks_(spec.org.pseudo_channels * spec.org.banks_per_pc()),
      open_row_(banks_.size(), kClosed),
      floor_(size_t{spec.org.pseudo_channels} * kCommandKinds, 0),
      draining_(spec.org.pseudo_channels, 0),
      owed_(spec.org.pseudo_channels, 0),
      refresh_urgent_(spec.org.pseudo_channels, 0) {
  for (unsigned b = 0; b < banks_.size(); ++b) {
    const DramAddress a = address_of(b);
    group_of_.push_back(static_cast<uint8_t>(a.bank_group));
    bank_in_group_.push_back(static_cast<uint8_t>(a.bank));
  }
  for (unsigned d = 0; d < 2; ++d) {
    hits_[d].assign(banks_.size(), 0);
    bank_queued_[d].assign(banks_.size(), 0);
    queued_[d].assign(pcs_, 0);
    hit_total_[d].assign(pcs_, 0);
  }
  page_closes_ = page_->close_at(0) != kNever;
  queue_[0].reserve(size_t{params.read_queue} * pcs_);
  queue_[1].reserve(size_t{params.write_queue} * pcs_);
  slots_.reserve((size_t{params.read_queue} + params.write_queue) * pcs_);
  for (unsigned d = 0; d < 2; ++d) {
    QueueView& q = view_.queue[d];
    q.hits = hits_[d].data();
    q.queued = queued_[d].data();
    q.hit_total = hit_total_[d].data();
    q.bank_queued = bank_queued_[d].data();
  }
  view_.open_row = open_row_.data();
  view_.draining = draining_.data();
  view_.floor = floor_.data();
  view_.bank_next = timing_.bank_next_table();
  view_.pcs = pcs_;
  view_.banks = static_cast<unsigned>(banks_.size());
  view_.banks_per_pc = banks_per_pc_;
  view_.refresh_urgent = refresh_urgent_.data();
  view_.refresh = refresh_.get();
  sync_view();
  refresh_due_ = kNever;
  for (unsigned pc = 0; pc < pcs_; ++pc) refresh_due_ = std::min(refresh_due_, refresh_->due(pc));
  next_event_ = refresh_due_;
}

void ChannelController::enqueue(const Transaction& transaction) {
  const unsigned d = transaction.is_write;
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(transaction);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = transaction;
  }
  Transaction& t = slots_[slot];
  const unsigned b = flat(t.address);
  t.bank = static_cast<uint16_t>(b);
  queue_[d].push_back(
      Entry{t.address.row, t.address.column, slot, t.bank, static_cast<uint8_t>(t.address.pc), t.source});
  mode_dirty_ = urgency_dirty_ = true;
  const bool hit = banks_[b].hit(t.address.row);
  if (hit) {
    ++hits_[d][b];
    ++hit_total_[d][t.address.pc];
  }
  // (A miss is the bank's first in this queue if every queued transaction of the bank is a hit.)
  scheduler_->enqueued(d, queue_[d].size() - 1, hit, !hit && bank_queued_[d][b] == hits_[d][b]);
  ++queued_[d][t.address.pc];
  ++bank_queued_[d][b];
  next_event_ = std::min(next_event_, std::max(t.arrival, now_));
}

void ChannelController::index_bank(unsigned b) {
  // A bank that closes without hits in a queue has nothing to count again
  // there, and its entries keep their standing (none was a hit); if that
  // holds for both queues the scheduler is not told (Scheduler::row_changed).
  const bool closed = open_row_[b] == kClosed;
  const bool recount[2] = {!closed || hits_[0][b] > 0, !closed || hits_[1][b] > 0};
  if (!recount[0] && !recount[1]) return;
  const unsigned pc = b / banks_per_pc_;
  uint16_t n[2] = {hits_[0][b], hits_[1][b]};
  sync_view();
  scheduler_->row_changed(view_, b, recount, n);
  for (unsigned d = 0; d < 2; ++d) {
    hit_total_[d][pc] = hit_total_[d][pc] - hits_[d][b] + n[d];
    hits_[d][b] = n[d];
  }
}

void ChannelController::issue(CommandKind kind, const DramAddress& a, uint64_t cycle) {
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
      index_bank(b);
    }
  }
  if (checker_) checker_->on_command(cmd);
  if (energy_) energy_->on_command(cmd);
  for (CommandObserver* o : observers_) o->on_command(cmd);
}

DramAddress ChannelController::address_of(unsigned b) const {
  DramAddress a;
  a.channel = channel_;
  a.pc = b / banks_per_pc_;
  a.bank_group = (b % banks_per_pc_) / banks_per_group_;
  a.bank = b % banks_per_group_;
  return a;
}

void ChannelController::update_mode() {
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

bool ChannelController::refresh_step(uint64_t cycle, uint64_t& next) {
  next = std::min(next, refresh_due_);
  if (!any_refresh_urgent_) return false;
  for (unsigned pc = 0; pc < pcs_; ++pc) {
    if (!refresh_urgent_[pc]) continue;
    // Precharge what the refresh covers, then refresh.
    const bool all = refresh_->command() == CommandKind::kRefAb;
    const unsigned first = all ? 0 : refresh_->target_bank(pc);
    const unsigned last = all ? banks_per_pc_ : first + 1;
    bool any_open = false;
    for (unsigned i = first; i < last; ++i) {
      const unsigned b = pc * banks_per_pc_ + i;
      if (!banks_[b].open()) continue;
      any_open = true;
      const DramAddress a = address_of(b);
      const uint64_t at = timing_.earliest(CommandKind::kPre, pc, a.bank_group, a.bank);
      if (at <= cycle) {
        issue(CommandKind::kPre, a, cycle);
        ++stats_.pres;
        return true;
      }
      next = std::min(next, at);
    }
    if (any_open) continue;
    const DramAddress a = address_of(pc * banks_per_pc_ + first);
    const CommandKind kind = refresh_->command();
    const uint64_t at = timing_.earliest(kind, pc, a.bank_group, a.bank);
    if (at <= cycle) {
      issue(kind, a, cycle);
      ++(all ? stats_.refab : stats_.refsb);
      refresh_->issued(pc);
      --owed_[pc];
      refresh_urgent_[pc] = 0;  // the next owed one starts when the rule says
      urgency_dirty_ = true;
      return true;
    }
    next = std::min(next, at);
  }
  return false;
}

bool ChannelController::page_close_step(uint64_t cycle, uint64_t& next) {
  for (unsigned b = 0; b < banks_.size(); ++b) {
    const BankState& bank = banks_[b];
    if (!bank.open() || hits_[0][b] || hits_[1][b]) continue;
    const DramAddress a = address_of(b);
    const uint64_t at =
        std::max(page_->close_at(bank.last_access()), timing_.earliest(CommandKind::kPre, a.pc, a.bank_group, a.bank));
    if (at <= cycle) {
      issue(CommandKind::kPre, a, cycle);
      ++stats_.pres;
      return true;
    }
    next = std::min(next, at);
  }
  return false;
}

void ChannelController::update_floors() {
  for (unsigned pc = 0; pc < pcs_; ++pc) {
    uint64_t* f = &floor_[size_t{pc} * kCommandKinds];
    for (const CommandKind k : {CommandKind::kAct, CommandKind::kPre, CommandKind::kRd, CommandKind::kWr})
      f[static_cast<unsigned>(k)] = timing_.floor(k, pc);
  }
}

void ChannelController::process(uint64_t cycle) {
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
    sync_view();
    choice = scheduler_->pick(view_, cycle, next);
  }
  const unsigned row_dir = choice.row_dir;
  size_t row_index = choice.row;
  const CommandKind row_kind = choice.row_kind;

  bool issued = false;
  // Column bus.
  if (choice.column != npos) {
    const unsigned column_dir = choice.column_dir;
    EntryQueue& queue = queue_[column_dir];
    const size_t column_index = choice.column;
    const Entry e = queue[column_index];
    const bool is_write = column_dir == 1;
    const unsigned b = e.bank;
    issue(is_write ? CommandKind::kWr : CommandKind::kRd, address_of(e), cycle);
    --hits_[column_dir][b];
    --hit_total_[column_dir][e.pc];
    --queued_[column_dir][e.pc];
    --bank_queued_[column_dir][b];
    mode_dirty_ = urgency_dirty_ = true;
    queue.erase(column_index);
    scheduler_->removed(column_dir, column_index, e, cycle);
    ++(is_write ? stats_.writes : stats_.reads);
    issued = true;
    const uint64_t done = cycle + (is_write ? spec_.timing.CWL : spec_.timing.CL) + burst_cycles_;
    // The slot is freed after the callback, which may enqueue.
    on_complete_(slots_[e.slot], done);
    free_slots_.push_back(e.slot);
    if (row_dir == column_dir && row_index != npos && row_index > column_index) --row_index;
  }
  // Row bus: refresh first, then the scheduler's ACT/PRE, then page closes.
  bool row_issued = refresh_step(cycle, next);
  if (!row_issued && row_index != npos) {
    // The column command of this cycle may have changed the timing; the
    // candidate stands only if it is still legal.
    const DramAddress a = address_of(queue_[row_dir][row_index]);
    if (timing_.earliest(row_kind, a.pc, a.bank_group, a.bank) <= cycle) {
      issue(row_kind, a, cycle);
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

void ChannelController::run_until(uint64_t end, bool skip_idle) {
  if (skip_idle) {
    while (next_event_ < end) process(std::max(next_event_, now_));
  } else {
    for (uint64_t c = now_; c < end; ++c) process(c);
  }
  if (end > now_) now_ = end;
  if (next_event_ < now_) next_event_ = now_;
}

}  // namespace tessera::dram
