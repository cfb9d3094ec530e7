// The Blacklisting Memory Scheduler (L. Subramanian, D. Lee, V. Seshadri,
// H. Rastogi, O. Mutlu, "The Blacklisting Memory Scheduler: Achieving High
// Performance and Fairness at Low Cost", ICCD 2014). The controller
// remembers the source (Transaction::source) of the last request it served
// and how many it served from that source in a row; a source served
// `bliss_threshold` times in a row is blacklisted, and the blacklist is
// cleared every `bliss_clearing_interval` cycles. Requests are ranked
// (§4.1 of the paper): a source not blacklisted first, then row hits, then
// the older. The paper's parameters: blacklisting threshold 4, clearing
// interval 10000 cycles (its Table 2; here DRAM command-clock cycles).
//
// On the HBM buses of this controller the ranking applies per bus: the
// column command of the first-ranked legal row hit (hits only need the
// column bus), and the row command (ACT/PRE) of the first-ranked legal
// miss. As under FR-FCFS, a row is not closed while queued hits of its
// queue outrank the conflict: for a conflict of a source not blacklisted,
// the hits of sources not blacklisted; for a blacklisted one, any hit.
// And a blacklisted hit does not issue to a bank whose row a conflict of a
// source not blacklisted waits to close: on separate buses the hits would
// otherwise keep pushing the PRE away (tRTP after each RD) and the
// blacklisted source would starve the other as under FR-FCFS.
// Row commands that prepare a bank for the other mode (write draining)
// follow FR-FCFS's rule. One served request is one column command, counted
// per channel controller (the paper's memory controller).
#include <array>
#include <memory>

#include "dram/scheduler_impl.h"

namespace tessera::dram {

namespace {

const SchedulerParam kThreshold{"bliss_threshold", 4, 1, 65535,
                                "BLISS: requests of one source served in a row that blacklist it"};
const SchedulerParam kClearingInterval{"bliss_clearing_interval", 10000, 1, 1000000000,
                                       "BLISS: cycles between clearings of the blacklist"};

class BlissScheduler final : public SchedulerImpl<BlissScheduler> {
 public:
  explicit BlissScheduler(const SchedulerContext& c)
      : threshold_(static_cast<uint32_t>(c.param(kThreshold))),
        interval_(static_cast<uint64_t>(c.param(kClearingInterval))),
        next_clear_(interval_),
        wanted_(c.banks, 0),
        conflict_(c.banks, 0) {}
  const char* name() const override { return "bliss"; }

  Choice pick(const ControllerView& v, uint64_t cycle, uint64_t& next) override {
    if (cycle >= next_clear_) {
      blacklisted_.fill(0);
      next_clear_ = cycle - cycle % interval_ + interval_;
    }
    return pick_between_queues(
        v, [&](unsigned dir, WalkMode mode, QueuePicks& p) { walk(v, dir, cycle, mode, p, next); },
        [&](size_t r, size_t w) {
          const unsigned br = blacklisted_[v.entry(0, r).source], bw = blacklisted_[v.entry(1, w).source];
          return bw != br ? bw < br : v.arrival(1, w) < v.arrival(0, r);
        });
  }

  void removed(unsigned, size_t, const QueueEntry& e, uint64_t) override {
    if (e.source == last_source_) {
      ++streak_;
    } else {
      last_source_ = e.source;
      streak_ = 1;
    }
    if (streak_ >= threshold_) blacklisted_[e.source] = 1;
  }

 private:
  void walk(const ControllerView& v, unsigned dir, uint64_t cycle, WalkMode mode, QueuePicks& p, uint64_t& next) {
    const QueueView& q = v.queue[dir];
    const uint16_t* const other_hits = v.queue[1 - dir].hits;
    const CommandKind column_kind = dir ? CommandKind::kWr : CommandKind::kRd;
    const bool other_wanted = mode == WalkMode::kActiveAndOther;
    const WalkCounts counts = walk_counts(v, dir, cycle, mode, false, next);
    const auto legal_now = [&](CommandKind kind, unsigned pc, unsigned b) {
      const uint64_t at = v.earliest(kind, pc, b);
      if (at <= cycle) return true;
      next = std::min(next, at);
      return false;
    };
    // Banks whose open row a source not blacklisted still hits in this
    // queue (wanted_), and banks whose open row such a source's request
    // conflicts with (conflict_), in this queue's mode.
    const uint64_t stamp = ++stamp_;
    for (size_t i = 0; i < q.size; ++i) {
      const QueueEntry& e = q.entries[i];
      if (blacklisted_[e.source]) continue;
      const uint64_t open = v.open_row[e.bank];
      if (open == e.row) {
        wanted_[e.bank] = stamp;
      } else if (open != kClosedRow && v.draining[e.pc] == dir) {
        conflict_[e.bank] = stamp;
      }
    }
    // Per rank (0: not blacklisted, 1: blacklisted) the oldest legal command.
    size_t column[2] = {kNoPick, kNoPick}, row[2] = {kNoPick, kNoPick};
    CommandKind row_kind[2] = {CommandKind::kAct, CommandKind::kAct};
    for (size_t i = 0; i < q.size; ++i) {
      const QueueEntry& e = q.entries[i];
      const unsigned pc = e.pc, b = e.bank;
      const bool is_hit = v.open_row[b] == e.row, is_open = v.open_row[b] != kClosedRow;
      const unsigned rank = blacklisted_[e.source];
      if (v.held_by_refresh(pc, b)) continue;
      const CommandKind kind = is_open ? CommandKind::kPre : CommandKind::kAct;
      if (v.draining[pc] == dir) {
        if (is_hit) {
          if (rank && conflict_[b] == stamp) continue;  // the outranking conflict's turn
          if (column[rank] == kNoPick && legal_now(column_kind, pc, b)) column[rank] = i;
        } else if (!counts.rows_blocked && row[rank] == kNoPick) {
          // A conflict waits for the hits that outrank it.
          if (kind == CommandKind::kPre && (rank ? q.hits[b] > 0 : wanted_[b] == stamp)) continue;
          if (legal_now(kind, pc, b)) {
            row[rank] = i;
            row_kind[rank] = kind;
          }
        }
      } else if (other_wanted && !is_hit && !counts.rows_blocked && p.other_row == kNoPick) {
        // Preparing a bank for the other mode: never close a row that this
        // pseudo channel's current mode, or the transaction's own queue,
        // still hits.
        if (kind == CommandKind::kPre && (other_hits[b] > 0 || q.hits[b] > 0)) continue;
        if (legal_now(kind, pc, b)) {
          p.other_row = i;
          p.other_row_kind = kind;
        }
      }
    }
    p.column = column[0] != kNoPick ? column[0] : column[1];
    const unsigned r = row[0] != kNoPick ? 0 : 1;
    p.row = row[r];
    p.row_kind = row_kind[r];
  }

  uint32_t threshold_;
  uint64_t interval_, next_clear_;
  std::array<uint8_t, 256> blacklisted_{};  // per source
  int last_source_ = -1;                    // none served yet
  uint32_t streak_ = 0;
  // Per bank: the stamp of the walk that found a wanted hit, a conflict.
  std::vector<uint64_t> wanted_, conflict_;
  uint64_t stamp_ = 0;
};

}  // namespace

const SchedulerInfo& scheduler_info_bliss() {
  static const SchedulerInfo info{
      "bliss", {kThreshold, kClearingInterval}, [](const SchedulerContext& c) -> std::unique_ptr<Scheduler> {
        return std::make_unique<BlissScheduler>(c);
      }};
  return info;
}

}  // namespace tessera::dram
