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
      scheduler_(make_scheduler(params.scheduler)),
      page_(make_page_policy(params.page_policy, params.adaptive_timeout)),
      refresh_(make_refresh_policy(params.refresh, spec, channel, params.refresh_stagger)),
      pcs_(spec.org.pseudo_channels),
      bank_groups_(spec.org.bank_groups),
      banks_per_group_(spec.org.banks_per_group),
      banks_per_pc_(spec.org.banks_per_pc()),
      burst_cycles_(spec.org.burst_cycles()),
      timing_(spec),
      banks_(spec.org.pseudo_channels * spec.org.banks_per_pc()),
      bypassed_(banks_.size(), 0),
      conflict_cycle_(banks_.size(), kNever),
      conflict_index_(banks_.size(), 0),
      capped_(banks_.size(), 0),
      open_row_(banks_.size(), kClosed),
      floor_(size_t{spec.org.pseudo_channels} * kCommandKinds, 0),
      draining_(spec.org.pseudo_channels, 0),
      seen_(spec.org.pseudo_channels, 0),
      row_seen_(banks_.size(), 0),
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
  precharge_waits_for_hits_ = !scheduler_->eligible(Candidate{CommandKind::kPre, true});
  oldest_only_ = scheduler_->oldest_only();
  queue_[0].reserve(size_t{params.read_queue} * pcs_);
  queue_[1].reserve(size_t{params.write_queue} * pcs_);
  slots_.reserve((size_t{params.read_queue} + params.write_queue) * pcs_);
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
  queue_[d].push_back(Entry{t.address.row, t.address.column, slot, t.bank, static_cast<uint8_t>(t.address.pc)});
  mode_dirty_ = urgency_dirty_ = true;
  if (banks_[b].hit(t.address.row)) {
    ++hits_[d][b];
    ++hit_total_[d][t.address.pc];
    hit_index_[d].insert(queue_[d].size() - 1);
  } else if (bank_queued_[d][b] == hits_[d][b]) {  // the bank's first miss in this queue
    miss_index_[d].insert(queue_[d].size() - 1);
  }
  ++queued_[d][t.address.pc];
  ++bank_queued_[d][b];
  next_event_ = std::min(next_event_, std::max(t.arrival, now_));
}

void ChannelController::index_bank(unsigned b) {
  const unsigned pc = b / banks_per_pc_;
  const uint64_t open = open_row_[b];
  for (unsigned d = 0; d < 2; ++d) {
    // A bank that closes without hits in this queue keeps its indices: its
    // oldest miss was its oldest transaction already.
    if (open == kClosed && hits_[d][b] == 0) continue;
    IndexMask &hits = hit_index_[d], &misses = miss_index_[d];
    uint16_t n = 0;
    bool miss_found = false;
    // The bank's queued transactions are counted: the scan stops at its last.
    const Entry* const first = queue_[d].data();
    const Entry* e = first;
    for (uint32_t left = bank_queued_[d][b]; left > 0; ++e) {
      if (e->bank != b) continue;
      --left;
      const auto i = static_cast<size_t>(e - first);
      if (e->row == open) {
        ++n;
        hits.insert(i);
        misses.erase(i);
      } else {
        hits.erase(i);
        if (miss_found) {
          misses.erase(i);
        } else {
          misses.insert(i);
          miss_found = true;
        }
      }
    }
    hit_total_[d][pc] = hit_total_[d][pc] - hits_[d][b] + n;
    hits_[d][b] = n;
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
      bypassed_[b] = 0;
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

void ChannelController::walk(unsigned dir, uint64_t cycle, WalkMode mode, Picks& picks, uint64_t& next_event) {
  // One pass over queue `dir`, oldest first: the first allowed command that
  // is legal now on each bus, for the pseudo channels in this queue's mode,
  // and (unless mode is kActive, and only while no row command for the
  // queue's mode is found) the first row command that prepares a bank for a
  // pseudo channel in the other mode. Every command looked at that is
  // not legal yet lowers `next` to the cycle it becomes legal (nothing can
  // change before then). FCFS and a row-hit cap pass over the queue itself
  // and stop as soon as they have every kind of command they look for or
  // no transaction of a missing kind is left (the queue's hits and misses
  // per pseudo channel are counted); FR-FCFS without a cap looks only at
  // the row hits (hit_index_) and each bank's oldest miss (miss_index_),
  // in the same order.
  const EntryQueue& queue = queue_[dir];
  if (queue.empty()) return;  // nothing to pick, nothing to wait for
  // The state the loop reads, in locals: through the members the compiler
  // would reload each of them after every store of the loop.
  const Entry* const entries = queue.data();
  const size_t size = queue.size();
  const uint16_t* const hits = hits_[dir].data();
  const uint16_t* const other_hits = hits_[1 - dir].data();
  const uint64_t* const open_row = open_row_.data();
  const uint8_t* const draining = draining_.data();
  const uint64_t* const floor = floor_.data();
  uint64_t* const row_seen = row_seen_.data();
  uint64_t* const conflict_cycle = conflict_cycle_.data();
  uint8_t* const capped = capped_.data();
  const bool oldest_only = oldest_only_;
  const bool precharge_waits_for_hits = precharge_waits_for_hits_;
  const bool any_refresh_urgent = any_refresh_urgent_;
  const unsigned row_hit_cap = params_.row_hit_cap;
  const CommandKind column_kind = dir ? CommandKind::kWr : CommandKind::kRd;
  Picks p = picks;
  uint64_t next = next_event;

  const bool other_wanted = mode == WalkMode::kActiveAndOther;
  size_t hits_left = 0, misses_left = 0, other_misses_left = 0;
  for (unsigned pc = 0; pc < pcs_; ++pc) {
    const size_t h = hit_total_[dir][pc], m = queued_[dir][pc] - hit_total_[dir][pc];
    if (draining[pc] == dir) {
      hits_left += h;
      misses_left += m;
    } else if (other_wanted) {
      other_misses_left += m;
    }
  }
  // While the row bus is busy (the second cycle of an ACT) no row command
  // can issue: only column commands are looked for (unless a row-hit cap
  // needs the conflicts of this cycle found).
  const bool rows_blocked = row_hit_cap == 0 && timing_.row_bus_free() > cycle;
  if (rows_blocked) {
    if (misses_left + other_misses_left > 0) next = std::min(next, timing_.row_bus_free());
    misses_left = other_misses_left = 0;
  }
  unsigned unseen = pcs_;
  if (oldest_only) std::fill(seen_.begin(), seen_.end(), 0);
  const uint64_t stamp = ++walk_stamp_;
  // Whether `kind` is legal at bank `b` of pseudo channel `pc` now; if not,
  // `next` learns when.
  const auto legal_now = [&](CommandKind kind, unsigned pc, unsigned b) {
    const uint64_t at = std::max(floor[pc * kCommandKinds + static_cast<unsigned>(kind)], timing_.bank_next(kind, b));
    if (at <= cycle) return true;
    next = std::min(next, at);
    return false;
  };
  // Whether a miss of bank `b` is looked at for a row command: only the
  // oldest miss of each bank (every miss of a bank needs the same row
  // command at the same cycle), and an ACT only once the pseudo channel's
  // floor (tRRD, tFAW) has passed; if not, `next` learns when.
  const auto first_miss_of_bank = [&](unsigned pc, unsigned b, bool is_open) {
    if (row_seen[b] == stamp) return false;
    row_seen[b] = stamp;
    if (is_open) return true;
    const uint64_t act_floor = floor[pc * kCommandKinds + static_cast<unsigned>(CommandKind::kAct)];
    if (act_floor <= cycle) return true;
    next = std::min(next, act_floor);
    return false;
  };
  // Whether a started refresh holds bank `b` of pseudo channel `pc`.
  const auto held_by_refresh = [&](unsigned pc, unsigned b) {
    return any_refresh_urgent && refresh_urgent_[pc] && refresh_->covers(pc, b - pc * banks_per_pc_);
  };
  if (oldest_only || row_hit_cap > 0) {
    // Every transaction in one loop, as the policies are defined: FCFS
    // looks at the oldest transaction of each pseudo channel, hit or not;
    // under a row-hit cap a row hit waits for an older conflict of its
    // bank recorded earlier in the same walk.
    for (size_t i = 0; i < size; ++i) {
      if ((p.column != npos || hits_left == 0) && (p.row != npos || misses_left == 0) &&
          (p.other_row != npos || other_misses_left == 0 || p.row != npos))
        break;
      const Entry& e = entries[i];
      const unsigned pc = e.pc;
      if (oldest_only) {
        if (unseen == 0) break;
        if (seen_[pc]) continue;
        seen_[pc] = 1;
        --unseen;
      }
      const unsigned b = e.bank;
      const uint64_t open = open_row[b];
      const bool is_hit = open == e.row;
      const bool is_open = open != kClosed;
      const bool active = draining[pc] == dir;
      if (!is_hit && rows_blocked) continue;
      if (active) {
        --(is_hit ? hits_left : misses_left);
      } else {
        if (is_hit || !other_wanted) continue;
        --other_misses_left;
        if (p.other_row != npos) continue;
      }
      if (!is_hit && !first_miss_of_bank(pc, b, is_open)) continue;
      if (held_by_refresh(pc, b)) continue;
      if (!active) {
        // Preparing a bank for the other mode: never close a row that this
        // pseudo channel's current mode still hits (nor, under FR-FCFS, one
        // the transaction's own queue still hits).
        const CommandKind kind = is_open ? CommandKind::kPre : CommandKind::kAct;
        if (kind == CommandKind::kPre && (other_hits[b] > 0 || (precharge_waits_for_hits && hits[b] > 0))) continue;
        if (legal_now(kind, pc, b)) {
          p.other_row = i;
          p.other_row_kind = kind;
        }
      } else if (is_hit) {
        if (p.column != npos) continue;
        if (conflict_cycle[b] == cycle && capped[b]) continue;  // an older conflict's turn
        if (legal_now(column_kind, pc, b)) p.column = i;
      } else {
        if (p.row != npos) continue;
        const CommandKind kind = is_open ? CommandKind::kPre : CommandKind::kAct;
        if (precharge_waits_for_hits && kind == CommandKind::kPre && hits[b] > 0) {
          if (conflict_cycle[b] != cycle) {  // the oldest conflict of this bank
            conflict_cycle[b] = cycle;
            conflict_index_[b] = i;
            capped[b] = row_hit_cap > 0 && bypassed_[b] >= row_hit_cap;
          }
          if (!capped[b]) continue;
        }
        if (legal_now(kind, pc, b)) {
          p.row = i;
          p.row_kind = kind;
        }
      }
    }
    picks = p;
    next_event = next;
    return;
  }
  // FR-FCFS without a row-hit cap. The column command: the oldest row hit
  // of a pseudo channel in this queue's mode that is legal now, from the
  // hit index (the hits are few and the queue walk would pass every miss
  // on the way). Without a cap no conflict holds a hit back, so the hits
  // need not be interleaved with the row commands' loop below.
  if (hits_left > 0) {
    p.column = hit_index_[dir].find_first([&](size_t i) {
      const unsigned pc = entries[i].pc, b = entries[i].bank;
      return draining[pc] == dir && !held_by_refresh(pc, b) && legal_now(column_kind, pc, b);
    });
  }
  // The row command: the oldest miss of a bank (miss_index_: the younger
  // misses of a bank need the same command at the same cycle) whose
  // command is legal now; the search stops there (a found row command
  // always issues in this cycle, so neither `next` nor the other mode's row
  // command can matter any more). It never runs while the row bus is busy
  // (no misses are counted then).
  if (misses_left + other_misses_left == 0) {
    picks = p;
    next_event = next;
    return;
  }
  uint64_t rows_next = kNever;  // a local the loop keeps in a register
  const uint64_t* const bank_next = timing_.bank_next_table();
  p.row = miss_index_[dir].find_first([&](size_t i) {
    const Entry& e = entries[i];
    const unsigned pc = e.pc, b = e.bank;
    const bool is_open = open_row[b] != kClosed;
    const CommandKind kind = is_open ? CommandKind::kPre : CommandKind::kAct;
    if (draining[pc] != dir) {
      // Preparing a bank for the other mode, as above.
      if (!other_wanted || p.other_row != npos) return false;
      if (held_by_refresh(pc, b)) return false;
      if (kind == CommandKind::kPre && (other_hits[b] > 0 || (precharge_waits_for_hits && hits[b] > 0))) return false;
      if (legal_now(kind, pc, b)) {
        p.other_row = i;
        p.other_row_kind = kind;
      }
      return false;
    }
    // A miss of this mode, without branches on the data: which banks are
    // open and which commands are legal now follow no pattern in random
    // traffic, and a branch on each was mispredicted about every other
    // miss. The command's legal cycle `at` becomes kNever for a conflict
    // waiting for the hits of its bank (no cap to record it for).
    const bool waits = precharge_waits_for_hits & is_open & (hits[b] > 0);
    const uint64_t candidate = uint64_t{0} - static_cast<uint64_t>(!waits);  // all ones or zero
    const unsigned kind_index = static_cast<unsigned>(kind);
    uint64_t at = std::max(floor[pc * kCommandKinds + kind_index], bank_next[b * kCommandKinds + kind_index]);
    at = (at & candidate) | ~candidate;
    if (any_refresh_urgent && held_by_refresh(pc, b)) at = kNever;
    rows_next = std::min(rows_next, at);
    if (at > cycle) return false;
    p.row_kind = kind;
    return true;
  });
  picks = p;
  next_event = std::min(next, rows_next);
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
  Picks pick[2];
  for (Picks& p : pick) p = Picks{npos, npos, npos, CommandKind::kAct, CommandKind::kAct};
  update_floors();
  // (An empty queue offers nothing: the call is skipped.)
  if (!queue_[0].empty()) walk(0, cycle, WalkMode::kActiveAndOther, pick[0], next);
  if (!queue_[1].empty())
    walk(1, cycle, pick[0].row == npos ? WalkMode::kActiveAndOther : WalkMode::kActive, pick[1], next);

  // Between the queues the older candidate wins (a read on a tie).
  auto older = [&](size_t r, size_t w) -> int {
    if (r == npos) return w == npos ? -1 : 1;
    if (w == npos) return 0;
    return slots_[queue_[1][w].slot].arrival < slots_[queue_[0][r].slot].arrival ? 1 : 0;
  };
  const int column_dir = older(pick[0].column, pick[1].column);
  int row_dir = older(pick[0].row, pick[1].row);
  size_t row_index = npos;
  CommandKind row_kind = CommandKind::kAct;
  if (row_dir >= 0) {
    row_index = pick[row_dir].row;
    row_kind = pick[row_dir].row_kind;
  } else {
    row_dir = older(pick[0].other_row, pick[1].other_row);
    if (row_dir >= 0) {
      row_index = pick[row_dir].other_row;
      row_kind = pick[row_dir].other_row_kind;
    }
  }

  bool issued = false;
  // Column bus.
  if (column_dir >= 0) {
    EntryQueue& queue = queue_[column_dir];
    const size_t column_index = pick[column_dir].column;
    const Entry e = queue[column_index];
    const bool is_write = column_dir == 1;
    const unsigned b = e.bank;
    issue(is_write ? CommandKind::kWr : CommandKind::kRd, address_of(e), cycle);
    if (conflict_cycle_[b] == cycle && conflict_index_[b] < column_index) ++bypassed_[b];
    --hits_[column_dir][b];
    --hit_total_[column_dir][e.pc];
    --queued_[column_dir][e.pc];
    --bank_queued_[column_dir][b];
    mode_dirty_ = urgency_dirty_ = true;
    queue.erase(column_index);
    // A column command serves a row hit: its index leaves the hit index,
    // and the younger ones move up with the queue.
    hit_index_[column_dir].remove(column_index);
    miss_index_[column_dir].remove(column_index);
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
