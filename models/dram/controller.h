// One channel controller: read and write queues, a scheduler, a page
// policy, a refresh policy, write draining between watermarks (a read or
// write mode per pseudo channel, since each has its own data bus and
// turnarounds), and the bank state machines and timing tables of the
// channel's pseudo channels. Pure
// C++ driven by cycles: `process(c)` decides the commands of cycle c (at
// most one on the row bus and one on the column bus) and `next_event()` is
// the next cycle at which anything can issue, so a driver may skip the
// cycles in between without changing any result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dram/address_map.h"
#include "dram/bank_state.h"
#include "dram/checker.h"
#include "dram/command.h"
#include "dram/energy.h"
#include "dram/page_policy.h"
#include "dram/refresh.h"
#include "dram/scheduler.h"
#include "dram/spec.h"
#include "dram/timing_state.h"

namespace tessera::dram {

struct ControllerParams {
  std::string scheduler = "fr_fcfs";
  std::string page_policy = "open";
  std::string refresh = "all_bank";
  // How refreshes are spread over the interval (refresh.h; docs/dram.md,
  // "Refresh stagger", for the measurements behind the default).
  RefreshStagger refresh_stagger = RefreshStagger::kPseudoChannels;
  // Refreshes a busy pseudo channel may owe before one is forced (elastic
  // refresh: a due refresh waits while the pseudo channel has queued
  // requests and issues once it has none). 1: every due refresh is forced.
  unsigned refresh_postpone = 8;
  // Queue entries (bursts) per pseudo channel: one pseudo channel's full
  // queue never blocks the other's requests (docs/dram.md, "Queues and sources").
  unsigned read_queue = 16;
  unsigned write_queue = 48;
  // Per pseudo channel: it drains writes from the time this many of its
  // writes are queued until only the low watermark's are left (docs/dram.md,
  // "Write draining", for the measured trade-off behind these defaults).
  unsigned write_high_watermark = 40;
  unsigned write_low_watermark = 8;
  uint64_t adaptive_timeout = 32;  // cycles a row stays open idle (adaptive page)
  // The parameters the schedulers register (SchedulerInfo::params), by
  // key, e.g. row_hit_cap; a missing key has its registered default.
  std::map<std::string, int64_t> scheduler_params;
};

struct ChannelStats {
  uint64_t reads = 0, writes = 0;
  uint64_t acts = 0, pres = 0, conflict_pres = 0, refab = 0, refsb = 0;
  uint64_t mode_switches = 0;  // read <-> write-drain switches (of any pseudo channel)
};

class ChannelController {
 public:
  // Called when a transaction's column command issues: its data transfer
  // ends at `done_cycle`.
  using Completion = std::function<void(const Transaction&, uint64_t done_cycle)>;

  ChannelController(unsigned channel, const DramSpec& spec, const ControllerParams& params, Completion on_complete);

  // Whether pseudo channel `pc`'s read (or write) queue has room for `count` more bursts.
  bool can_accept(unsigned pc, bool is_write, unsigned count) const {
    return queued_[is_write][pc] + count <= (is_write ? params_.write_queue : params_.read_queue);
  }
  // The transaction joins its queue at cycle `arrival` (>= the next cycle
  // to process); it may issue in that same cycle.
  void enqueue(const Transaction& t);
  void add_observer(CommandObserver* o) { observers_.push_back(o); }
  // The memory system's protocol checker (may be null) and energy model,
  // told of every command before the observers: direct calls, where the
  // observers cost an indirect call each per command.
  void set_models(ProtocolChecker* checker, EnergyModel* energy) {
    checker_ = checker;
    energy_ = energy;
  }

  // Decides the commands of `cycle` (>= every cycle processed before).
  void process(uint64_t cycle) { scheduler_->process(*this, cycle); }
  // Processes every cycle in [next unprocessed, end): event to event when
  // skip_idle, else each cycle.
  void run_until(uint64_t end, bool skip_idle) {
    if (skip_idle) {
      while (next_event_ < end) process(std::max(next_event_, now_));
    } else {
      for (uint64_t c = now_; c < end; ++c) process(c);
    }
    if (end > now_) now_ = end;
    if (next_event_ < now_) next_event_ = now_;
  }
  uint64_t next_event() const { return next_event_; }
  uint64_t now() const { return now_; }
  bool idle() const { return queue_[0].empty() && queue_[1].empty(); }
  size_t queued() const { return queue_[0].size() + queue_[1].size(); }
  // Queued reads (or writes) to pseudo channel `pc`.
  unsigned queued(unsigned pc, bool is_write) const { return queued_[is_write][pc]; }
  // Whether pseudo channel `pc` is draining writes (else serving reads).
  bool draining_writes(unsigned pc) const { return draining_[pc] != 0; }

  const ChannelStats& stats() const { return stats_; }
  const BankState& bank(unsigned pc, unsigned bg, unsigned b) const { return banks_[flat(pc, bg, b)]; }

 private:
  // The work of the public calls, for scheduler type S (a final class: its
  // calls are direct); defined in dram/scheduler_impl.h and instantiated
  // by SchedulerImpl<S> in each policy's file.
  template <class>
  friend class SchedulerImpl;
  template <class S>
  void process_as(S& s, uint64_t cycle);
  template <class S>
  void tell_enqueued(S& s);
  template <class S>
  void issue_as(S& s, CommandKind kind, const DramAddress& a, uint64_t cycle);
  template <class S>
  void index_bank_as(S& s, unsigned bank_flat);
  // A command outside the scheduler's choice (through the scheduler's entry).
  void issue(CommandKind kind, const DramAddress& a, uint64_t cycle) { scheduler_->issue(*this, kind, a, cycle); }
  // The start of process(): write-drain modes and refresh owed and urgent.
  inline void begin_cycle(uint64_t cycle);
  unsigned flat(unsigned pc, unsigned bg, unsigned b) const { return (pc * bank_groups_ + bg) * banks_per_group_ + b; }
  unsigned flat(const DramAddress& a) const { return flat(a.pc, a.bank_group, a.bank); }
  DramAddress address_of(unsigned bank_flat) const;  // row and column 0
  void update_floors();
  // Refresh work on the row bus once a refresh is urgent; returns true if a command issued.
  bool refresh_step(uint64_t cycle, uint64_t& next);
  bool page_close_step(uint64_t cycle, uint64_t& next);
  inline void update_mode();
  unsigned channel_;
  DramSpec spec_;
  ControllerParams params_;
  Completion on_complete_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<PagePolicy> page_;
  std::unique_ptr<RefreshPolicy> refresh_;
  bool page_closes_ = false;
  unsigned pcs_, bank_groups_, banks_per_group_, banks_per_pc_, burst_cycles_;
  TimingState timing_;
  std::vector<BankState> banks_;
  // Index 0: reads, 1: writes. Queued hits on each bank's open row, and per
  // pseudo channel the queued transactions and their hits.
  std::vector<uint16_t> hits_[2];
  std::vector<uint32_t> bank_queued_[2];  // per bank: queued transactions
  std::vector<uint32_t> queued_[2], hit_total_[2];
  // The queued transactions live in slots_; each queue orders compact
  // entries (QueueEntry) that hold what the scheduler and a row command
  // need of each (a column command takes one from the middle: moving 16
  // bytes is cheaper than moving the transaction).
  using Entry = QueueEntry;
  // The transaction's address, from its entry.
  DramAddress address_of(const Entry& e) const {
    DramAddress a;
    a.channel = channel_;
    a.pc = e.pc;
    a.bank_group = group_of_[e.bank];
    a.bank = bank_in_group_[e.bank];
    a.row = e.row;
    a.column = e.column;
    return a;
  }
  std::vector<uint8_t> group_of_, bank_in_group_;  // per flat bank
  std::vector<Transaction> slots_;
  std::vector<uint32_t> free_slots_;
  // A queue of entries, oldest first, that takes an entry out of the
  // middle by moving the shorter side: the oldest row hit usually sits near
  // the front (sequential traffic), where a vector would move the whole
  // queue behind it.
  class EntryQueue {
   public:
    size_t size() const { return buf_.size() - head_; }
    bool empty() const { return buf_.size() == head_; }
    const Entry* data() const { return buf_.data() + head_; }
    const Entry& operator[](size_t i) const { return buf_[head_ + i]; }
    void reserve(size_t n) { buf_.reserve(2 * n); }
    // The scheduler's view of this queue, kept up to date by each change
    // (cheaper than setting it again each cycle).
    void set_view(QueueView* v) {
      view_ = v;
      view_->entries = data();
      view_->size = size();
    }
    void push_back(const Entry& e) {
      // The free space before the head is reclaimed once it is as long as
      // the queue, so the buffer stays within twice the longest queue.
      if (head_ > 0 && head_ >= size()) {
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      const Entry* const before = buf_.data();
      buf_.push_back(e);
      if (buf_.data() != before || head_ == 0) view_->entries = data();
      ++view_->size;
    }
    // Takes out entry i; the younger ones move up by one.
    void erase(size_t i) {
      const auto at = buf_.begin() + static_cast<std::ptrdiff_t>(head_ + i);
      if (i < size() / 2) {
        std::move_backward(buf_.begin() + static_cast<std::ptrdiff_t>(head_), at, at + 1);
        ++head_;
        ++view_->entries;
      } else {
        buf_.erase(at);
      }
      --view_->size;
    }

   private:
    std::vector<Entry> buf_;
    size_t head_ = 0;
    QueueView* view_ = nullptr;
  };
  EntryQueue queue_[2];  // reads, writes
  // Per queue: the youngest transactions the scheduler has not been told
  // of yet (tell_enqueued), oldest first: 1 = a row hit, 2 = the first
  // miss of its bank in the queue. (Sized to the queue's capacity.)
  std::vector<uint8_t> untold_[2];
  uint32_t untold_count_[2] = {0, 0};
  // Per bank: the open row, or kClosed (no row equals it), mirroring
  // banks_ for the scheduler's hit test.
  static constexpr uint64_t kClosed = kClosedRow;
  std::vector<uint64_t> open_row_;
  // Per pseudo channel and command kind (kCommandKinds each): the cycle
  // before which no bank's command of that kind is legal (TimingState::floor),
  // taken once per process() before the walks, as no command issues
  // between them.
  std::vector<uint64_t> floor_;
  bool mode_dirty_ = true;  // queued_ changed since update_mode() last ran
  // An input of the refresh urgency changed since it was last worked out.
  bool urgency_dirty_ = true;
  std::vector<uint8_t> draining_;  // per pseudo channel: 1 = write mode
  // What the scheduler sees; each queue keeps its entries and size up to
  // date (EntryQueue::set_view), the slots' pointer is set after the slots
  // grow: per transaction rather than per cycle.
  ControllerView view_;
  // Per pseudo channel: refreshes due and not yet issued, and whether the
  // oldest must issue now (the channel idle, or the postponement limit).
  std::vector<uint32_t> owed_;
  std::vector<uint8_t> refresh_urgent_;
  uint64_t refresh_due_ = 0;  // earliest due cycle of a refresh not yet owed
  bool any_refresh_urgent_ = false;
  ProtocolChecker* checker_ = nullptr;
  EnergyModel* energy_ = nullptr;
  std::vector<CommandObserver*> observers_;
  uint64_t now_ = 0;  // next cycle to process
  uint64_t next_event_ = 0;
  ChannelStats stats_;
};

}  // namespace tessera::dram
