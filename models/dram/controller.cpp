#include "dram/controller.h"

#include <algorithm>

namespace tessera::dram {

ChannelController::ChannelController(unsigned channel, const DramSpec& spec, const ControllerParams& params,
                                     Completion on_complete)
    : channel_(channel),
      spec_(spec),
      params_(params),
      on_complete_(std::move(on_complete)),
      scheduler_(make_scheduler(params.scheduler)),
      page_(make_page_policy(params.page_policy, params.adaptive_timeout)),
      refresh_(make_refresh_policy(params.refresh, spec)),
      bank_groups_(spec.org.bank_groups),
      banks_per_group_(spec.org.banks_per_group),
      banks_per_pc_(spec.org.banks_per_pc()),
      burst_cycles_(spec.org.burst_cycles()),
      timing_(spec),
      banks_(spec.org.pseudo_channels * spec.org.banks_per_pc()),
      read_hits_(banks_.size(), 0),
      write_hits_(banks_.size(), 0),
      bypassed_(banks_.size(), 0),
      conflict_cycle_(banks_.size(), kNever),
      conflict_index_(banks_.size(), 0),
      capped_(banks_.size(), false),
      refresh_pending_(spec.org.pseudo_channels, false) {
  page_closes_ = page_->close_at(0) != kNever;
  precharge_waits_for_hits_ = !scheduler_->eligible(Candidate{CommandKind::kPre, true});
  reads_.reserve(params.read_queue);
  writes_.reserve(params.write_queue);
  refresh_due_ = kNever;
  for (unsigned pc = 0; pc < spec.org.pseudo_channels; ++pc) refresh_due_ = std::min(refresh_due_, refresh_->due(pc));
  next_event_ = refresh_due_;
}

bool ChannelController::can_accept(bool is_write, unsigned count) const {
  return is_write ? writes_.size() + count <= params_.write_queue : reads_.size() + count <= params_.read_queue;
}

void ChannelController::enqueue(const Transaction& transaction) {
  auto& q = transaction.is_write ? writes_ : reads_;
  q.push_back(transaction);
  Transaction& t = q.back();
  const unsigned b = flat(t.address);
  t.bank = static_cast<uint16_t>(b);
  if (banks_[b].hit(t.address.row)) {
    ++(t.is_write ? write_hits_ : read_hits_)[b];
    ++(t.is_write ? write_hit_total_ : read_hit_total_);
  }
  next_event_ = std::min(next_event_, std::max(t.arrival, now_));
}

void ChannelController::count_hits(unsigned b, uint32_t row) {
  uint16_t r = 0, w = 0;
  for (const auto& t : reads_) r += t.bank == b && t.address.row == row;
  for (const auto& t : writes_) w += t.bank == b && t.address.row == row;
  read_hit_total_ = read_hit_total_ - read_hits_[b] + r;
  write_hit_total_ = write_hit_total_ - write_hits_[b] + w;
  read_hits_[b] = r;
  write_hits_[b] = w;
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
    if (kind == CommandKind::kAct || kind == CommandKind::kPre) bypassed_[b] = 0;
    if (kind == CommandKind::kAct) count_hits(b, a.row);
    if (kind == CommandKind::kPre) {
      read_hit_total_ -= read_hits_[b];
      write_hit_total_ -= write_hits_[b];
      read_hits_[b] = write_hits_[b] = 0;
    }
  }
  for (CommandObserver* o : observers_) o->on_command(cmd);
}

unsigned ChannelController::queued(unsigned pc, bool is_write) const {
  unsigned n = 0;
  for (const Transaction& t : is_write ? writes_ : reads_) n += t.address.pc == pc;
  return n;
}

DramAddress ChannelController::address_of(unsigned b) const {
  DramAddress a;
  a.channel = channel_;
  a.pc = b / banks_per_pc_;
  a.bank_group = (b % banks_per_pc_) / banks_per_group_;
  a.bank = b % banks_per_group_;
  return a;
}

bool ChannelController::blocked_by_refresh(const DramAddress& a) const {
  return refresh_pending_[a.pc] && refresh_->covers(a.pc, a.bank_group * banks_per_group_ + a.bank);
}

void ChannelController::update_mode() {
  // Write draining (watermarks): reads have priority until the write queue
  // reaches the high watermark, then writes drain down to the low one.
  // With no reads waiting, writes are served opportunistically.
  const bool before = draining_writes_;
  if (draining_writes_) {
    if (writes_.empty() || (writes_.size() <= params_.write_low_watermark && !reads_.empty())) draining_writes_ = false;
  } else if (!writes_.empty() && (writes_.size() >= params_.write_high_watermark || reads_.empty())) {
    draining_writes_ = true;
  }
  if (before != draining_writes_) ++stats_.mode_switches;
}

bool ChannelController::refresh_step(uint64_t cycle, uint64_t& next) {
  next = std::min(next, refresh_due_);
  if (!any_refresh_pending_) return false;
  for (unsigned pc = 0; pc < refresh_pending_.size(); ++pc) {
    if (!refresh_pending_[pc]) continue;
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
      refresh_pending_[pc] = false;
      refresh_due_ = kNever;
      for (unsigned p = 0; p < refresh_pending_.size(); ++p)
        if (!refresh_pending_[p]) refresh_due_ = std::min(refresh_due_, refresh_->due(p));
      return true;
    }
    next = std::min(next, at);
  }
  return false;
}

bool ChannelController::page_close_step(uint64_t cycle, uint64_t& next) {
  for (unsigned b = 0; b < banks_.size(); ++b) {
    const BankState& bank = banks_[b];
    if (!bank.open() || read_hits_[b] || write_hits_[b]) continue;
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

void ChannelController::process(uint64_t cycle) {
  now_ = cycle;
  update_mode();
  if (cycle >= refresh_due_) {
    refresh_due_ = kNever;
    for (unsigned pc = 0; pc < refresh_pending_.size(); ++pc) {
      if (!refresh_pending_[pc] && cycle >= refresh_->due(pc)) refresh_pending_[pc] = true;
      if (!refresh_pending_[pc]) refresh_due_ = std::min(refresh_due_, refresh_->due(pc));
    }
  }
  any_refresh_pending_ = std::find(refresh_pending_.begin(), refresh_pending_.end(), true) != refresh_pending_.end();

  std::vector<Transaction>& queue = draining_writes_ ? writes_ : reads_;
  std::vector<uint16_t>& hits = draining_writes_ ? write_hits_ : read_hits_;
  const size_t window = scheduler_->window(queue.size());
  // One pass, oldest first: the first allowed command that is legal now on
  // each bus. When nothing is legal, `next` ends as the earliest cycle one
  // becomes legal (the state cannot change before then).
  size_t column_index = window, row_index = window;
  CommandKind row_kind = CommandKind::kAct;
  uint64_t next = kNever;
  // The queue's hits and misses are counted, so the walk stops as soon as
  // both buses have their command or no transaction of the missing kind is
  // left to look at.
  size_t& hit_total = draining_writes_ ? write_hit_total_ : read_hit_total_;
  size_t hits_left = hit_total, misses_left = queue.size() - hit_total;
  for (size_t i = 0; i < window; ++i) {
    if ((column_index != window || hits_left == 0) && (row_index != window || misses_left == 0)) break;
    const DramAddress& a = queue[i].address;
    const unsigned b = queue[i].bank;
    const BankState& bank = banks_[b];
    const bool is_hit = bank.hit(a.row);
    --(is_hit ? hits_left : misses_left);
    if (any_refresh_pending_ && blocked_by_refresh(a)) continue;
    if (is_hit) {
      if (column_index != window) continue;
      if (conflict_cycle_[b] == cycle && capped_[b]) continue;  // an older conflict's turn
      const CommandKind kind = queue[i].is_write ? CommandKind::kWr : CommandKind::kRd;
      const uint64_t at = timing_.earliest(kind, a.pc, a.bank_group, a.bank);
      if (at <= cycle) {
        column_index = i;
      } else {
        next = std::min(next, at);
      }
    } else {
      if (row_index != window) continue;
      const CommandKind kind = bank.open() ? CommandKind::kPre : CommandKind::kAct;
      if (precharge_waits_for_hits_ && kind == CommandKind::kPre && hits[b] > 0) {
        if (conflict_cycle_[b] != cycle) {  // the oldest conflict of this bank
          conflict_cycle_[b] = cycle;
          conflict_index_[b] = i;
          capped_[b] = params_.row_hit_cap > 0 && bypassed_[b] >= params_.row_hit_cap;
        }
        if (!capped_[b]) continue;
      }
      const uint64_t at = timing_.earliest(kind, a.pc, a.bank_group, a.bank);
      if (at <= cycle) {
        row_index = i;
        row_kind = kind;
      } else {
        next = std::min(next, at);
      }
    }
  }

  bool issued = false;
  // Column bus.
  if (column_index != window) {
    const Transaction t = queue[column_index];
    const unsigned b = t.bank;
    issue(t.is_write ? CommandKind::kWr : CommandKind::kRd, t.address, cycle);
    if (conflict_cycle_[b] == cycle && conflict_index_[b] < column_index) ++bypassed_[b];
    --hits[b];
    --hit_total;
    queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(column_index));
    ++(t.is_write ? stats_.writes : stats_.reads);
    issued = true;
    const uint64_t done = cycle + (t.is_write ? spec_.timing.CWL : spec_.timing.CL) + burst_cycles_;
    on_complete_(t, done);
    if (row_index != window && row_index > column_index) --row_index;
  }
  // Row bus: refresh first, then the scheduler's ACT/PRE, then page closes.
  bool row_issued = refresh_step(cycle, next);
  if (!row_issued && row_index != window) {
    // The column command of this cycle may have changed the timing; the
    // candidate stands only if it is still legal.
    const DramAddress& a = queue[row_index].address;
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
