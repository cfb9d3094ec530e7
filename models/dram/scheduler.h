// Request scheduling policy of a channel controller. Each cycle the
// controller hands the scheduler read-only views of its queues and banks
// (ControllerView) and the scheduler chooses: at most one column command
// (RD/WR of a row hit) and one row command (ACT or PRE for a queued
// transaction). The controller then only checks legality (a row command
// chosen before the column command of the same cycle issued is checked
// again) and issues; refresh and page closes stay the controller's.
//
// A scheduler may keep indices of the queues: it is told when a
// transaction enters a queue, when one leaves it (its column command
// issued) and when a bank's row opens or closes. A policy is one file in
// models/dram/schedulers/ (a final class deriving from SchedulerImpl, and
// including dram/scheduler_impl.h) plus one line in scheduler_registry.cpp
// (docs/architecture.md, "Adding a DRAM scheduler").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dram/address_map.h"
#include "dram/command.h"
#include "dram/refresh.h"

namespace tessera::dram {

// One burst-sized access to one bank.
struct Transaction {
  uint64_t tag = 0;      // the issuer's id (returned on completion)
  uint64_t arrival = 0;  // cycle it entered the queue
  DramAddress address;
  bool is_write = false;
  uint8_t source = 0;  // the requester (traffic source, or the initiator socket on the TLM path)
  uint16_t bank = 0;   // flat bank index in the channel (set by the controller)
};

// What a queue holds of each transaction, 16 bytes: the walks read the
// queue in order instead of following each slot to its transaction, which
// is seldom in the L1 cache.
struct QueueEntry {
  uint32_t row, column;
  uint32_t slot;  // the transaction (ControllerView::slots)
  uint16_t bank;  // flat index in the channel
  uint8_t pc;
  uint8_t source;  // Transaction::source
};
static_assert(sizeof(QueueEntry) == 16, "a queue entry is 16 bytes");

inline constexpr uint64_t kClosedRow = uint64_t{1} << 32;  // no row equals it
inline constexpr size_t kNoPick = static_cast<size_t>(-1);

struct QueueView {
  const QueueEntry* entries = nullptr;  // oldest first
  size_t size = 0;
  const uint16_t* hits = nullptr;         // per bank: queued hits on its open row
  const uint32_t* queued = nullptr;       // per pseudo channel: queued transactions
  const uint32_t* hit_total = nullptr;    // per pseudo channel: of them, row hits
  const uint32_t* bank_queued = nullptr;  // per bank: queued transactions
};

// The controller's state as a scheduler sees it (read-only). Banks are
// numbered flat in the channel: (pc x bank groups + group) x banks per
// group + bank.
struct ControllerView {
  QueueView queue[2];                  // 0: reads, 1: writes
  const Transaction* slots = nullptr;  // QueueEntry::slot -> transaction
  const uint64_t* open_row = nullptr;  // per bank: the open row or kClosedRow
  const uint8_t* draining = nullptr;   // per pseudo channel: 1 = serving writes (else reads)
  // The earliest legal cycle of a command kind at bank b of pseudo channel
  // pc is max(floor[pc x kCommandKinds + kind], bank_next[b x kCommandKinds + kind])
  // (TimingState); the floors hold the command buses as well.
  const uint64_t* floor = nullptr;
  const uint64_t* bank_next = nullptr;
  uint64_t row_bus_free = 0;  // no row command is legal before it
  unsigned pcs = 0, banks = 0, banks_per_pc = 0;
  // Refresh: a pseudo channel whose owed refresh has started holds the
  // banks it covers (no command is chosen for them).
  bool any_refresh_urgent = false;
  const uint8_t* refresh_urgent = nullptr;  // per pseudo channel
  const RefreshPolicy* refresh = nullptr;

  const QueueEntry& entry(unsigned dir, size_t i) const { return queue[dir].entries[i]; }
  uint64_t arrival(unsigned dir, size_t i) const { return slots[queue[dir].entries[i].slot].arrival; }
  uint64_t earliest(CommandKind kind, unsigned pc, unsigned b) const {
    const unsigned k = static_cast<unsigned>(kind);
    return std::max(floor[pc * kCommandKinds + k], bank_next[b * kCommandKinds + k]);
  }
  bool held_by_refresh(unsigned pc, unsigned b) const {
    return any_refresh_urgent && refresh_urgent[pc] && refresh->covers(pc, b - pc * banks_per_pc);
  }
};

// The scheduler's choice for one cycle: the queue (0 reads, 1 writes) and
// index of the transaction whose column command issues, and of the one
// whose row command (row_kind) issues; kNoPick for none.
struct Choice {
  unsigned column_dir = 0;
  size_t column = kNoPick;
  unsigned row_dir = 0;
  size_t row = kNoPick;
  CommandKind row_kind = CommandKind::kAct;
};

// Calls f(index, entry) for each transaction of bank `bank` in queue
// `dir`, oldest first (the bank's queued transactions are counted: the scan
// stops at its last).
template <class F>
void for_each_of_bank(const ControllerView& v, unsigned dir, unsigned bank, F&& f) {
  const QueueEntry* const first = v.queue[dir].entries;
  const QueueEntry* e = first;
  for (uint32_t left = v.queue[dir].bank_queued[bank]; left > 0; ++e) {
    if (e->bank != bank) continue;
    --left;
    f(static_cast<size_t>(e - first), *e);
  }
}

class ChannelController;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual const char* name() const = 0;
  // The controller's entry points. A policy derives from
  // SchedulerImpl<itself>, which implements them by calling the
  // controller's code instantiated for the policy's (final) type: one
  // virtual call per process(), and the calls of
  // pick, enqueued, removed and row_changed inside are direct and inlined
  // (as virtual calls they cost 3-5% of the DRAM tool's instructions).
  virtual void process(ChannelController& c, uint64_t cycle) = 0;
  // A command the controller issues outside process()'s choice (refresh, page closes).
  virtual void issue(ChannelController& c, CommandKind kind, const DramAddress& a, uint64_t cycle) = 0;
  // The commands of `cycle`; every command looked at that is not legal yet
  // lowers `next` to the cycle it becomes legal (the controller sleeps
  // until then if nothing issues, so it must not be later than the first
  // cycle a choice could differ).
  virtual Choice pick(const ControllerView& v, uint64_t cycle, uint64_t& next) = 0;
  // Transaction `index` (the youngest) entered queue `dir`; `hit`: its row
  // is open; `first_miss`: not a hit, and no other miss of its bank is in
  // that queue.
  virtual void enqueued(unsigned dir, size_t index, bool hit, bool first_miss) {
    (void)dir, (void)index, (void)hit, (void)first_miss;
  }
  // The column command of transaction `index` of queue `dir`, at bank
  // `bank`, issued at `cycle` and the transaction left the queue (the
  // younger ones moved up by one).
  virtual void removed(unsigned dir, size_t index, const QueueEntry& e, uint64_t cycle) {
    (void)dir, (void)index, (void)e, (void)cycle;
  }
  // Bank `bank`'s row opened, or closed while queued transactions hit it
  // (a close without hits changes no hit; v.open_row is up to date). For each
  // queue `recount` marks, `hits` gets the bank's queued transactions there
  // that hit the open row (in the others nothing changed: the bank closed
  // and none of them hit). The controller's per-bank hit counts come from
  // here so that a scheduler with indices of the queue updates them in the
  // same pass over the bank's transactions.
  virtual void row_changed(const ControllerView& v, unsigned bank, const bool (&recount)[2], uint16_t (&hits)[2]) {
    for (unsigned d = 0; d < 2; ++d) {
      if (!recount[d]) continue;
      uint16_t n = 0;
      for_each_of_bank(
          v, d, bank, [&](size_t, const QueueEntry& e) { n = static_cast<uint16_t>(n + (e.row == v.open_row[bank])); });
      hits[d] = n;
    }
  }
};

// The base of every policy: `class MyScheduler final : public
// SchedulerImpl<MyScheduler>`. The entry points are defined in
// dram/scheduler_impl.h, which the policy's file includes.
template <class Derived>
class SchedulerImpl : public Scheduler {
 public:
  void process(ChannelController& c, uint64_t cycle) final;
  void issue(ChannelController& c, CommandKind kind, const DramAddress& a, uint64_t cycle) final;
};

// A scheduler parameter, a `dram.<key>` configuration key.
struct SchedulerParam {
  const char* key;
  int64_t def, lo, hi;
  const char* description;
};

// What a scheduler is built from.
struct SchedulerContext {
  unsigned pcs = 1, banks = 1, banks_per_pc = 1;
  // Values of the registered parameters by key (a missing key: its default).
  const std::map<std::string, int64_t>* params = nullptr;
  int64_t param(const SchedulerParam& p) const {
    if (params) {
      const auto it = params->find(p.key);
      if (it != params->end()) return it->second;
    }
    return p.def;
  }
};

struct SchedulerInfo {
  const char* name;
  std::vector<SchedulerParam> params;
  std::unique_ptr<Scheduler> (*make)(const SchedulerContext&);
};

// The registry (scheduler_registry.cpp), in its order.
const std::vector<const SchedulerInfo*>& schedulers();
std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const SchedulerContext& context);
const std::vector<std::string>& scheduler_names();

// ---- Helpers shared by the policies that walk each queue in turn.

// What a walk of one queue found (indices into the queue, or kNoPick): a
// column command of a pseudo channel in this queue's mode, a row command
// (ACT/PRE) for one, and a row command preparing a bank for a pseudo
// channel in the other mode.
struct QueuePicks {
  size_t column = kNoPick, row = kNoPick, other_row = kNoPick;
  CommandKind row_kind = CommandKind::kAct, other_row_kind = CommandKind::kAct;
};
enum class WalkMode { kActive, kActiveAndOther };

// Walks the read queue, then the write queue (looking for a row command
// for the other mode only if the reads offered no row command for their
// own), with walk(dir, mode, picks) for each non-empty queue, and chooses
// on each bus between the two queues' candidates: the one `first(read
// index, write index)` prefers (1: the write), and on the row bus a row
// command for a pseudo channel's own mode before one preparing a bank for
// the other mode.
// (Always inlined: as a call it costs about 60 instructions a cycle.)
template <class Walk, class First>
[[gnu::always_inline]] inline Choice pick_between_queues(const ControllerView& v, Walk&& walk, First&& first) {
  QueuePicks p[2];
  // One call site of `walk` in a loop, not one per queue: inlined once,
  // where two call sites made the compiler keep it out of line (1-3% of
  // the DRAM tool's instructions).
  for (unsigned d = 0; d < 2; ++d)
    if (v.queue[d].size) walk(d, d == 0 || p[0].row == kNoPick ? WalkMode::kActiveAndOther : WalkMode::kActive, p[d]);
  // -1: neither, else the queue whose candidate wins.
  const auto between = [&](size_t r, size_t w) -> int {
    if (r == kNoPick) return w == kNoPick ? -1 : 1;
    if (w == kNoPick) return 0;
    return first(r, w) ? 1 : 0;
  };
  Choice c;
  const int column_dir = between(p[0].column, p[1].column);
  if (column_dir >= 0) {
    c.column_dir = static_cast<unsigned>(column_dir);
    c.column = p[column_dir].column;
  }
  int row_dir = between(p[0].row, p[1].row);
  if (row_dir >= 0) {
    c.row_dir = static_cast<unsigned>(row_dir);
    c.row = p[row_dir].row;
    c.row_kind = p[row_dir].row_kind;
  } else if ((row_dir = between(p[0].other_row, p[1].other_row)) >= 0) {
    c.row_dir = static_cast<unsigned>(row_dir);
    c.row = p[row_dir].other_row;
    c.row_kind = p[row_dir].other_row_kind;
  }
  return c;
}

// The older of a read and a write candidate (a read on a tie): true if the write.
inline bool write_is_older(const ControllerView& v, size_t r, size_t w) { return v.arrival(1, w) < v.arrival(0, r); }

// What a walk of queue `dir` looks for: the queue's row hits and misses of
// the pseudo channels in its mode, and (mode kActiveAndOther) the misses of
// those in the other mode. While the row bus is busy (the second cycle of
// an ACT) no row command can issue: only column commands are looked for,
// unless `need_conflicts` (a row-hit cap records the conflicts of each
// cycle), and `next` learns when the bus frees.
struct WalkCounts {
  size_t hits = 0, misses = 0, other_misses = 0;
  bool rows_blocked = false;
};
inline WalkCounts walk_counts(const ControllerView& v, unsigned dir, uint64_t cycle, WalkMode mode, bool need_conflicts,
                              uint64_t& next) {
  WalkCounts w;
  const QueueView& q = v.queue[dir];
  for (unsigned pc = 0; pc < v.pcs; ++pc) {
    const size_t h = q.hit_total[pc], m = q.queued[pc] - q.hit_total[pc];
    if (v.draining[pc] == dir) {
      w.hits += h;
      w.misses += m;
    } else if (mode == WalkMode::kActiveAndOther) {
      w.other_misses += m;
    }
  }
  w.rows_blocked = !need_conflicts && v.row_bus_free > cycle;
  if (w.rows_blocked) {
    if (w.misses + w.other_misses > 0) next = std::min(next, v.row_bus_free);
    w.misses = w.other_misses = 0;
  }
  return w;
}

// The walk of every transaction of a queue, oldest first, as FCFS and
// FR-FCFS are defined (queue_walk.cpp): the first command that the rules
// allow and that is legal now, on each bus. Its scratch and the row-hit
// cap's state per bank live here.
class QueueWalk {
 public:
  struct Rules {
    bool oldest_only = false;  // only the oldest transaction of each pseudo channel (FCFS)
    // A PRE waits while queued requests of its queue hit the open row (FR-FCFS).
    bool precharge_waits_for_hits = false;
    // At most this many younger hits pass an older conflict of their bank (0: no cap).
    unsigned row_hit_cap = 0;
  };
  QueueWalk(const SchedulerContext& c, Rules rules);
  void walk(const ControllerView& v, unsigned dir, uint64_t cycle, WalkMode mode, QueuePicks& picks, uint64_t& next);
  // The row-hit cap's bookkeeping (call from Scheduler::removed and row_changed).
  void removed(size_t index, unsigned bank, uint64_t cycle) {
    if (conflict_cycle_[bank] == cycle && conflict_index_[bank] < index) ++bypassed_[bank];
  }
  // A row opened (or closed with hits): no hit of it has passed a conflict yet.
  void row_changed(unsigned bank) { bypassed_[bank] = 0; }

 private:
  Rules rules_;
  // Row-hit cap: per bank, hits served past an older conflicting request
  // since the row opened; and, for the cycle being scheduled, where the
  // oldest such request stands in the queue and whether it has reached the
  // cap (younger hits then wait).
  std::vector<uint32_t> bypassed_;
  std::vector<uint64_t> conflict_cycle_;
  std::vector<size_t> conflict_index_;
  std::vector<uint8_t> capped_;
  std::vector<uint8_t> seen_;  // per pseudo channel (oldest_only)
  // Banks whose row command was already looked at (the stamp of the walk).
  std::vector<uint64_t> row_seen_;
  uint64_t stamp_ = 0;
};

}  // namespace tessera::dram
