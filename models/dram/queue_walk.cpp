// The walk of every transaction of one queue, as FCFS and FR-FCFS (with a
// row-hit cap) are defined; FR-FCFS without a cap searches its indices
// instead and is tested to decide as this walk does.
#include "dram/scheduler.h"

namespace tessera::dram {

QueueWalk::QueueWalk(const SchedulerContext& c, Rules rules)
    : rules_(rules),
      bypassed_(c.banks, 0),
      conflict_cycle_(c.banks, kNever),
      conflict_index_(c.banks, 0),
      capped_(c.banks, 0),
      seen_(c.pcs, 0),
      row_seen_(c.banks, 0) {}

void QueueWalk::walk(const ControllerView& v, unsigned dir, uint64_t cycle, WalkMode mode, QueuePicks& picks,
                     uint64_t& next_event) {
  // One pass over queue `dir`, oldest first: the first allowed command that
  // is legal now on each bus, for the pseudo channels in this queue's mode,
  // and (unless mode is kActive, and only while no row command for the
  // queue's mode is found) the first row command that prepares a bank for a
  // pseudo channel in the other mode. Every command looked at that is not
  // legal yet lowers `next` to the cycle it becomes legal (nothing can
  // change before then). The walk stops as soon as it has every kind of
  // command it looks for or no transaction of a missing kind is left (the
  // queue's hits and misses per pseudo channel are counted).
  const QueueView& queue = v.queue[dir];
  if (queue.size == 0) return;  // nothing to pick, nothing to wait for
  // The state the loop reads, in locals: through the members the compiler
  // would reload each of them after every store of the loop.
  const QueueEntry* const entries = queue.entries;
  const size_t size = queue.size;
  const uint16_t* const hits = queue.hits;
  const uint16_t* const other_hits = v.queue[1 - dir].hits;
  const uint64_t* const open_row = v.open_row;
  const uint8_t* const draining = v.draining;
  const uint64_t* const floor = v.floor;
  uint64_t* const row_seen = row_seen_.data();
  uint64_t* const conflict_cycle = conflict_cycle_.data();
  uint8_t* const capped = capped_.data();
  const bool oldest_only = rules_.oldest_only;
  const bool precharge_waits_for_hits = rules_.precharge_waits_for_hits;
  const unsigned row_hit_cap = rules_.row_hit_cap;
  const CommandKind column_kind = dir ? CommandKind::kWr : CommandKind::kRd;
  QueuePicks p = picks;
  uint64_t next = next_event;

  const bool other_wanted = mode == WalkMode::kActiveAndOther;
  WalkCounts left = walk_counts(v, dir, cycle, mode, row_hit_cap > 0, next);
  const bool rows_blocked = left.rows_blocked;
  unsigned unseen = v.pcs;
  if (oldest_only) std::fill(seen_.begin(), seen_.end(), 0);
  const uint64_t stamp = ++stamp_;
  // Whether `kind` is legal at bank `b` of pseudo channel `pc` now; if not,
  // `next` learns when.
  const auto legal_now = [&](CommandKind kind, unsigned pc, unsigned b) {
    const uint64_t at = v.earliest(kind, pc, b);
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
  // FCFS looks at the oldest transaction of each pseudo channel, hit or
  // not; under a row-hit cap a row hit waits for an older conflict of its
  // bank recorded earlier in the same walk.
  for (size_t i = 0; i < size; ++i) {
    if ((p.column != kNoPick || left.hits == 0) && (p.row != kNoPick || left.misses == 0) &&
        (p.other_row != kNoPick || left.other_misses == 0 || p.row != kNoPick))
      break;
    const QueueEntry& e = entries[i];
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
    const bool is_open = open != kClosedRow;
    const bool active = draining[pc] == dir;
    if (!is_hit && rows_blocked) continue;
    if (active) {
      --(is_hit ? left.hits : left.misses);
    } else {
      if (is_hit || !other_wanted) continue;
      --left.other_misses;
      if (p.other_row != kNoPick) continue;
    }
    if (!is_hit && !first_miss_of_bank(pc, b, is_open)) continue;
    if (v.held_by_refresh(pc, b)) continue;
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
      if (p.column != kNoPick) continue;
      if (conflict_cycle[b] == cycle && capped[b]) continue;  // an older conflict's turn
      if (legal_now(column_kind, pc, b)) p.column = i;
    } else {
      if (p.row != kNoPick) continue;
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
}

}  // namespace tessera::dram
