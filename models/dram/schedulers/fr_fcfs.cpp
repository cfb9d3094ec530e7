// First-ready, first-come first-served (Rixner et al., "Memory Access
// Scheduling", ISCA 2000): among all queued transactions, ready commands
// first, oldest first. Column commands (row hits) have their own bus, so a
// row hit never waits behind an older row miss; a bank's open row is not
// precharged while queued requests of its queue still hit it. With
// dram.row_hit_cap (Mutlu and Moscibroda, "Stall-Time Fair Memory Access
// Scheduling", MICRO 2007) at most that many younger row hits are served
// ahead of an older request to another row of the same bank; then that
// request may close the row.
//
// Without a cap (the default) the scheduler keeps two indices per queue
// and searches them instead of walking the whole queue: the positions of
// the row hits, and of each bank's oldest miss. A cap takes the walk of
// every transaction (QueueWalk), as the policy is defined; the unit test
// FrFcfsSearch.DecidesAsTheWalkOfEveryTransaction runs both on the same
// traffic and requires the same commands.
#include <algorithm>
#include <memory>

#include "dram/scheduler_impl.h"

namespace tessera::dram {

namespace {

// A set of queue indices as a bit mask: a column command takes an entry
// from the middle of its queue, and removing its index moves every younger
// one down in a few word operations, whatever their number.
class IndexMask {
 public:
  // (Always inlined, as the old controller's were: row_changed inserts a
  // bank's every entry.)
  [[gnu::always_inline]] void insert(size_t i) {
    const size_t k = i / 64;
    if (k >= words_.size()) words_.resize(k + 1, 0);
    words_[k] |= uint64_t{1} << (i % 64);
    top_ = std::max(top_, k + 1);
  }
  [[gnu::always_inline]] void erase(size_t i) {
    if (i / 64 < top_) words_[i / 64] &= ~(uint64_t{1} << (i % 64));
  }
  // Takes index i out (in the set or not): every larger index moves down
  // by one. Only the words up to the highest one in use are shifted.
  void remove(size_t i) {
    size_t k = i / 64;
    // (top_ in a local: a store to a word could be a store to it, for all
    // the compiler knows, and it would be loaded again after each.)
    const size_t top = top_;
    if (k >= top) return;
    uint64_t* const words = words_.data();
    const unsigned bit = i % 64;
    uint64_t w = words[k];
    w = (w & ((uint64_t{1} << bit) - 1)) | (bit == 63 ? 0 : (w >> (bit + 1)) << bit);
    for (; k + 1 < top; ++k) {
      words[k] = w | (words[k + 1] << 63);
      w = words[k + 1] >> 1;
    }
    words[k] = w;
    if (w == 0) top_ = top - 1;  // (a word below may be empty too: it is passed over until then)
  }
  // The smallest index in the set for which `found(index)` is true (each
  // index is offered in ascending order until then), or kNoPick.
  template <class F>
  size_t find_first(F found) const {
    const size_t top = top_;
    for (size_t k = 0; k < top; ++k)
      for (uint64_t w = words_[k]; w != 0; w &= w - 1) {
        const size_t i = k * 64 + static_cast<size_t>(__builtin_ctzll(w));
        if (found(i)) return i;
      }
    return kNoPick;
  }

 private:
  std::vector<uint64_t> words_;
  // Words at and above top_ are zero (the set's indices are below top_ x 64).
  size_t top_ = 0;
};

const SchedulerParam kRowHitCap{
    "row_hit_cap", 0, 0, 65535,
    "FR-FCFS: younger row hits served ahead of an older request to another row of the bank (0: no cap)"};

class FrFcfsScheduler final : public SchedulerImpl<FrFcfsScheduler> {
 public:
  explicit FrFcfsScheduler(const SchedulerContext& c)
      : cap_(static_cast<unsigned>(c.param(kRowHitCap))), walk_(c, QueueWalk::Rules{false, true, cap_}) {}
  const char* name() const override { return "fr_fcfs"; }

  // (Inlined into the controller's process(): a call costs 2% of stream traffic's instructions.)
  [[gnu::always_inline]] Choice pick(const ControllerView& v, uint64_t cycle, uint64_t& next) override {
    const auto older = [&](size_t r, size_t w) { return write_is_older(v, r, w); };
    if (cap_ > 0)
      return pick_between_queues(
          v, [&](unsigned dir, WalkMode mode, QueuePicks& p) { walk_.walk(v, dir, cycle, mode, p, next); }, older);
    return pick_between_queues(
        v,
        [&](unsigned dir, WalkMode mode, QueuePicks& p)
            __attribute__((always_inline)) { search(v, dir, cycle, mode, p, next); },
        older);
  }

  void enqueued(unsigned dir, size_t index, bool hit, bool first_miss) override {
    if (hit) {
      hit_index_[dir].insert(index);
    } else if (first_miss) {
      miss_index_[dir].insert(index);
    }
  }

  void removed(unsigned dir, size_t index, const QueueEntry& e, uint64_t cycle) override {
    if (cap_ > 0) walk_.removed(index, e.bank, cycle);
    // A column command serves a row hit: its index leaves the hit index,
    // and the younger ones move up with the queue.
    hit_index_[dir].remove(index);
    miss_index_[dir].remove(index);
  }

  void row_changed(const ControllerView& v, unsigned b, const bool (&recount)[2], uint16_t (&hit_count)[2]) override {
    if (cap_ > 0) walk_.row_changed(b);
    const uint64_t open = v.open_row[b];
    for (unsigned d = 0; d < 2; ++d) {
      // (A bank that closes without hits in this queue keeps its indices:
      // its oldest miss was its oldest transaction already.)
      if (!recount[d]) continue;
      // The bank's entries in queue d, oldest first: its hits enter the
      // hit index, its oldest miss the miss index.
      IndexMask &hits = hit_index_[d], &misses = miss_index_[d];
      uint16_t n = 0;
      bool miss_found = false;
      for_each_of_bank(v, d, b, [&](size_t i, const QueueEntry& e) {
        if (e.row == open) {
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
      });
      hit_count[d] = n;
    }
  }

 private:
  // FR-FCFS without a row-hit cap: the walk's decisions from the indices.
  // (Inlined into pick(): a call per queue walk costs 1% of random traffic's
  // instructions.)
  [[gnu::always_inline]] void search(const ControllerView& v, unsigned dir, uint64_t cycle, WalkMode mode,
                                     QueuePicks& picks, uint64_t& next_event) const {
    const QueueEntry* const entries = v.queue[dir].entries;
    const uint16_t* const hits = v.queue[dir].hits;
    const uint16_t* const other_hits = v.queue[1 - dir].hits;
    const uint64_t* const open_row = v.open_row;
    const uint8_t* const draining = v.draining;
    const uint64_t* const floor = v.floor;
    const bool any_refresh_urgent = v.any_refresh_urgent;
    const bool other_wanted = mode == WalkMode::kActiveAndOther;
    const CommandKind column_kind = dir ? CommandKind::kWr : CommandKind::kRd;
    QueuePicks p = picks;
    uint64_t next = next_event;
    const WalkCounts left = walk_counts(v, dir, cycle, mode, false, next);
    const auto legal_now = [&](CommandKind kind, unsigned pc, unsigned b) {
      const uint64_t at = v.earliest(kind, pc, b);
      if (at <= cycle) return true;
      next = std::min(next, at);
      return false;
    };
    // The column command: the oldest row hit of a pseudo channel in this
    // queue's mode that is legal now, from the hit index (the hits are few
    // and the queue walk would pass every miss on the way). Without a cap
    // no conflict holds a hit back, so the hits need not be interleaved
    // with the row commands' loop below.
    if (left.hits > 0) {
      p.column = hit_index_[dir].find_first([&](size_t i) {
        const unsigned pc = entries[i].pc, b = entries[i].bank;
        return draining[pc] == dir && !(any_refresh_urgent && v.held_by_refresh(pc, b)) &&
               legal_now(column_kind, pc, b);
      });
    }
    // The row command: the oldest miss of a bank (the younger misses of a
    // bank need the same command at the same cycle) whose command is legal
    // now; the search stops there (a found row command always issues in
    // this cycle, so neither `next` nor the other mode's row command can
    // matter any more). It never runs while the row bus is busy (no misses
    // are counted then).
    if (left.misses + left.other_misses == 0) {
      picks = p;
      next_event = next;
      return;
    }
    uint64_t rows_next = kNever;  // a local the loop keeps in a register
    const uint64_t* const bank_next = v.bank_next;
    p.row = miss_index_[dir].find_first([&](size_t i) {
      const QueueEntry& e = entries[i];
      const unsigned pc = e.pc, b = e.bank;
      const bool is_open = open_row[b] != kClosedRow;
      const CommandKind kind = is_open ? CommandKind::kPre : CommandKind::kAct;
      if (draining[pc] != dir) {
        // Preparing a bank for the other mode: never close a row that this
        // pseudo channel's current mode, or the transaction's own queue,
        // still hits.
        if (!other_wanted || p.other_row != kNoPick) return false;
        if (any_refresh_urgent && v.held_by_refresh(pc, b)) return false;
        if (kind == CommandKind::kPre && (other_hits[b] > 0 || hits[b] > 0)) return false;
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
      const bool waits = is_open & (hits[b] > 0);
      const uint64_t candidate = uint64_t{0} - static_cast<uint64_t>(!waits);  // all ones or zero
      const unsigned kind_index = static_cast<unsigned>(kind);
      uint64_t at = std::max(floor[pc * kCommandKinds + kind_index], bank_next[b * kCommandKinds + kind_index]);
      at = (at & candidate) | ~candidate;
      if (any_refresh_urgent && v.held_by_refresh(pc, b)) at = kNever;
      rows_next = std::min(rows_next, at);
      if (at > cycle) return false;
      p.row_kind = kind;
      return true;
    });
    picks = p;
    next_event = std::min(next, rows_next);
  }

  unsigned cap_;
  QueueWalk walk_;
  // Per queue: the queue indices of its row hits, and of each bank's
  // oldest miss (every miss of a bank needs the same row command, legal at
  // the same cycle).
  IndexMask hit_index_[2];
  IndexMask miss_index_[2];
};

}  // namespace

const SchedulerInfo& scheduler_info_fr_fcfs() {
  static const SchedulerInfo info{"fr_fcfs", {kRowHitCap}, [](const SchedulerContext& c) -> std::unique_ptr<Scheduler> {
                                    return std::make_unique<FrFcfsScheduler>(c);
                                  }};
  return info;
}

}  // namespace tessera::dram
