#include "dram/controller.h"

#include <algorithm>

namespace tessera::dram {

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
  untold_[0].assign(size_t{params.read_queue} * pcs_ + 1, 0);
  untold_[1].assign(size_t{params.write_queue} * pcs_ + 1, 0);
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
  queue_[0].set_view(&view_.queue[0]);
  queue_[1].set_view(&view_.queue[1]);
  view_.slots = slots_.data();
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
    view_.slots = slots_.data();
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
  // The scheduler is told before it next looks at the queues (tell_enqueued).
  // (A miss is the bank's first in this queue if every queued transaction of the bank is a hit.)
  if (untold_count_[d] == untold_[d].size()) untold_[d].resize(2 * untold_[d].size());
  untold_[d][untold_count_[d]++] = static_cast<uint8_t>(hit | (!hit && bank_queued_[d][b] == hits_[d][b]) << 1);
  ++queued_[d][t.address.pc];
  ++bank_queued_[d][b];
  next_event_ = std::min(next_event_, std::max(t.arrival, now_));
}

DramAddress ChannelController::address_of(unsigned b) const {
  DramAddress a;
  a.channel = channel_;
  a.pc = b / banks_per_pc_;
  a.bank_group = (b % banks_per_pc_) / banks_per_group_;
  a.bank = b % banks_per_group_;
  return a;
}

bool ChannelController::refresh_step(uint64_t cycle, uint64_t& next) {
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

}  // namespace tessera::dram
