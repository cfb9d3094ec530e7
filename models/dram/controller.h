// One channel controller: read and write queues, a scheduler, a page
// policy, a refresh policy, write draining between watermarks, and the bank
// state machines and timing tables of the channel's pseudo channels. Pure
// C++ driven by cycles: `process(c)` decides the commands of cycle c (at
// most one on the row bus and one on the column bus) and `next_event()` is
// the next cycle at which anything can issue, so a driver may skip the
// cycles in between without changing any result.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dram/address_map.h"
#include "dram/bank_state.h"
#include "dram/command.h"
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
  unsigned read_queue = 32;
  unsigned write_queue = 32;
  unsigned write_high_watermark = 24;  // start draining writes at this many
  unsigned write_low_watermark = 8;    // stop draining at this many
  uint64_t adaptive_timeout = 32;      // cycles a row stays open idle (adaptive page)
  // FR-FCFS with a cap (Mutlu and Moscibroda, MICRO 2007): at most this many
  // younger row hits are served ahead of an older request to another row of
  // the same bank; then that request may close the row. 0: no cap.
  unsigned row_hit_cap = 0;
};

// One burst-sized access to one bank.
struct Transaction {
  uint64_t tag = 0;      // the issuer's id (returned on completion)
  uint64_t arrival = 0;  // cycle it entered the queue
  DramAddress address;
  bool is_write = false;
  uint16_t bank = 0;  // flat bank index in the channel (set by the controller)
};

struct ChannelStats {
  uint64_t reads = 0, writes = 0;
  uint64_t acts = 0, pres = 0, conflict_pres = 0, refab = 0, refsb = 0;
  uint64_t mode_switches = 0;  // read <-> write-drain switches
};

class ChannelController {
 public:
  // Called when a transaction's column command issues: its data transfer
  // ends at `done_cycle`.
  using Completion = std::function<void(const Transaction&, uint64_t done_cycle)>;

  ChannelController(unsigned channel, const DramSpec& spec, const ControllerParams& params, Completion on_complete);

  bool can_accept(bool is_write, unsigned count) const;
  // The transaction joins its queue at cycle `arrival` (>= the next cycle
  // to process); it may issue in that same cycle.
  void enqueue(const Transaction& t);
  void add_observer(CommandObserver* o) { observers_.push_back(o); }

  // Decides the commands of `cycle` (>= every cycle processed before).
  void process(uint64_t cycle);
  // Processes every cycle in [next unprocessed, end): event to event when
  // skip_idle, else each cycle.
  void run_until(uint64_t end, bool skip_idle);
  uint64_t next_event() const { return next_event_; }
  uint64_t now() const { return now_; }
  bool idle() const { return reads_.empty() && writes_.empty(); }
  size_t queued() const { return reads_.size() + writes_.size(); }
  // Queued reads (or writes) to pseudo channel `pc` (waveforms; a scan).
  unsigned queued(unsigned pc, bool is_write) const;

  const ChannelStats& stats() const { return stats_; }
  const BankState& bank(unsigned pc, unsigned bg, unsigned b) const { return banks_[flat(pc, bg, b)]; }

 private:
  unsigned flat(unsigned pc, unsigned bg, unsigned b) const { return (pc * bank_groups_ + bg) * banks_per_group_ + b; }
  unsigned flat(const DramAddress& a) const { return flat(a.pc, a.bank_group, a.bank); }
  DramAddress address_of(unsigned bank_flat) const;  // row and column 0
  void issue(CommandKind kind, const DramAddress& a, uint64_t cycle);
  void count_hits(unsigned bank_flat, uint32_t row);
  bool blocked_by_refresh(const DramAddress& a) const;
  // Refresh work on the row bus; returns true if a command issued.
  bool refresh_step(uint64_t cycle, uint64_t& next);
  bool page_close_step(uint64_t cycle, uint64_t& next);
  void update_mode();

  unsigned channel_;
  DramSpec spec_;
  ControllerParams params_;
  Completion on_complete_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<PagePolicy> page_;
  std::unique_ptr<RefreshPolicy> refresh_;
  bool page_closes_ = false;
  unsigned bank_groups_, banks_per_group_, banks_per_pc_, burst_cycles_;
  TimingState timing_;
  std::vector<BankState> banks_;
  std::vector<uint16_t> read_hits_, write_hits_;  // queued hits on each bank's open row
  // Row-hit cap: per bank, hits served past an older conflicting request
  // since the row opened; and, for the cycle being scheduled, where the
  // oldest such request stands in the queue and whether it has reached the
  // cap (younger hits then wait).
  std::vector<uint32_t> bypassed_;
  std::vector<uint64_t> conflict_cycle_;
  std::vector<size_t> conflict_index_;
  std::vector<bool> capped_;
  size_t read_hit_total_ = 0, write_hit_total_ = 0;  // their sums
  std::vector<Transaction> reads_, writes_;          // oldest first
  std::vector<bool> refresh_pending_;
  bool draining_writes_ = false;
  // The scheduler's answers, asked once: its decisions depend only on them.
  bool precharge_waits_for_hits_ = false;
  uint64_t refresh_due_ = 0;  // earliest due cycle of a refresh not yet pending
  bool any_refresh_pending_ = false;
  std::vector<CommandObserver*> observers_;
  uint64_t now_ = 0;  // next cycle to process
  uint64_t next_event_ = 0;
  ChannelStats stats_;
};

}  // namespace tessera::dram
