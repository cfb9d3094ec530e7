// The streaming multiprocessor's timing and function as plain C++ (no
// SystemC): block slots, warps with SIMT divergence and barriers, one issue
// stage per partition, lane memory access, banked shared memory and the L1
// with its MSHRs. cycle(now) advances one cycle; next_event() says the first
// cycle after it in which anything can happen. Global memory is outside:
// the engine queues line requests (line, sector mask, operation, atomic
// lanes, tag) in requests(), whoever owns it sends them, and hands the
// answers back with answer(). sm::Sm wraps it in a SystemC module.
//
// Order within a cycle: answers that arrived before this cycle are applied
// (an L1 fill, or a memory group's last line making its register readable),
// the port sends (Port::before_issue), then each partition in turn tries to
// issue, then (sm.shared_impl rtl or lockstep) the shared-memory bank unit
// steps. Anything that reaches the SM during cycle t takes effect from t+1.
//
// Shared memory: in `model` mode a warp's shared accesses are performed as
// it executes and timed by the bank arbiter's passes; in `rtl` and
// `lockstep` the lanes' accesses become one warp request queued in front of
// the bank unit's pins, and the destination register is written, and made
// readable, when the unit answers (docs/cosim.md, "Shared-memory bank unit").
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "debug/debugger.h"
#include "isa/decoded_program.h"
#include "isa/inst_trace.h"
#include "isa/isa.h"
#include "sim/backing_memory.h"
#include "sim/log.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sm/atomic_queue.h"
#include "sm/block_slots.h"
#include "sm/issue_stage.h"
#include "sm/kernel_launch.h"
#include "sm/l1_cache.h"
#include "sm/lane_memory.h"
#include "sm/shared_bank_pins.h"
#include "sm/shared_bank_unit.h"
#include "sm/sm_params.h"
#include "sm/warp_state.h"

namespace tessera::sm {

enum class LineOp : uint8_t { kRead, kWrite, kAtomic };

// A line request towards L2: `tag` comes back with its answer.
struct MemRequest {
  uint32_t line = 0;
  uint8_t sectors = 0;
  LineOp op = LineOp::kRead;
  uint8_t atomic_ops = 0;  // lanes whose atomic falls in this line
  uint32_t tag = 0;
  uint16_t warp = 0;
};

// What the waveform shows of the engine beside the partitions' IssueTrace:
// the events of the cycle last processed, filled only while tracing (the
// owner reads and resets them after each cycle).
struct SmTrace {
  struct L1Half {
    bool req = false, hit = false, miss = false;  // cached-load lookups this cycle
  };
  std::vector<L1Half> l1;      // per L1 half
  unsigned shared_passes = 0;  // passes of the last shared-memory warp request
  bool events = false;         // a strobe above was set this cycle
};

class SmEngine {
 public:
  static constexpr uint64_t kNever = ~uint64_t{0};

  // What the engine asks of its owner; called once per cycle and per block,
  // never per lane.
  class Port {
   public:
    virtual ~Port() = default;
    // After the answers of cycle `now` are applied, before issue: the owner
    // may send requests from requests().
    virtual void before_issue(uint64_t now) = 0;
    virtual void block_finished() = 0;
  };

  struct Context {
    const SmParams& params;
    sim::BackingMemory& global;
    const isa::DecodedProgram& program;
    sim::RunControl& run;
    sim::StatGroup& stats_parent;
    unsigned num_sms;
    AtomicQueue& atomics;  // performs global atomics in a fixed order
    std::string name;      // for reports and logs ("chip.sm3")
  };

  SmEngine(unsigned id, const Context& ctx);
  ~SmEngine();
  SmEngine(const SmEngine&) = delete;
  SmEngine& operator=(const SmEngine&) = delete;

  void set_port(Port* port) { port_ = port; }
  // Waveform: partitions keep what they did each cycle in IssueStage::trace,
  // the engine its events in trace().
  // rtl, lockstep: the bank unit's RTL signals in the chip's waveform under
  // `scope` (nothing in model mode).
  void trace_rtl(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) {
    if (bank_pins_) bank_pins_->trace(wave, scope, period_ps);
  }
  void set_tracing(bool on);
  // --trace-insts: each warp slot is a unit "<name>.w<slot>".
  void set_inst_trace(isa::InstTrace* trace);
  // --gdb: the resident warps are threads of `d` (sm_debug.cpp).
  void set_debugger(debug::Debugger* d);
  SmTrace& trace() { return trace_; }

  unsigned id() const { return id_; }
  bool can_accept(const KernelLaunch& k) const { return slots_.can_accept(k); }
  // Places a block during cycle `now`: its warps issue from now + 1.
  void start_block(const KernelLaunch& k, uint64_t block_index, uint64_t now);
  bool idle() const { return slots_.resident_blocks() == 0; }

  void cycle(uint64_t now);
  // The first cycle after the last one processed in which the engine can
  // change state by itself (kNever: only a new block or an answer wakes it).
  // Requests waiting in requests() are the port's business.
  uint64_t next_event() const { return next_event_; }
  bool ran() const { return ever_ran_; }
  uint64_t last_cycle() const { return last_cycle_; }

  // Line requests not yet sent, oldest first.
  std::deque<MemRequest>& requests() { return requests_; }
  // The answer to request `tag` for `sectors` of `line`, in cycle `cycle`.
  void answer(uint32_t tag, uint32_t line, uint8_t sectors, uint64_t cycle);

  // Statistics and state.
  uint64_t warp_insts() const { return warp_insts_; }
  uint64_t thread_insts() const { return thread_insts_; }
  uint64_t active_cycles() const { return active_cycles_; }
  std::pair<uint64_t, uint64_t> l1_sector_totals() const { return l1_.sector_totals(); }
  sim::StatGroup& stats() { return stats_; }
  const std::vector<Warp>& warps() const { return warps_; }
  const BlockSlots& blocks() const { return slots_; }
  const L1Cache& l1() const { return l1_; }
  // Line requests towards L2 whose answer has not yet been applied (queued,
  // sent, or answered and applied from the next cycle).
  uint64_t global_outstanding() const { return l2_outstanding_; }
  // Whether the shared-memory bank array works in cycle `now` (model mode:
  // the passes of earlier requests; rtl and lockstep: the unit's queue).
  bool shared_busy(uint64_t now) const { return bank_pins_ ? banks_have_work() : now < shared_busy_until_; }
  // The cycle from which the bank array is idle unless another request
  // comes (model mode; kNever in rtl and lockstep, which step every busy cycle).
  uint64_t shared_busy_until() const { return bank_pins_ ? kNever : shared_busy_until_; }
  // Resident warps with threads waiting at a block barrier.
  unsigned barrier_warps() const;
  std::vector<IssueStage>& partitions() { return partitions_; }
  LaneMemory& lane_memory() { return lanes_; }
  // Warp and thread states, for the deadlock report.
  std::string dump_state() const;
  // Resident warps and every memory request in flight.
  std::string describe_in_flight() const;

  // For the issue stages.
  Warp& warp(unsigned slot) { return warps_[slot]; }
  const isa::DecodedProgram& program() const { return program_; }
  bool memory_queue_full() const { return requests_.size() >= p_.mem_queue; }
  bool stopped() const { return run_.stopped(); }
  // Executes `inst` for the warp's active lanes in cycle `now`; false when
  // it faulted (the run stops).
  bool execute(unsigned slot, const isa::Inst& inst, uint64_t now);
  // --gdb: the warp in `slot` is about to issue `inst` (a breakpoint or a
  // step may stop it here; gdb may hold it).
  enum class DebugGate : uint8_t { kIssue, kHold, kStopped };
  DebugGate debug_gate(unsigned slot, const isa::Inst& inst) {
    if (!debugger_ || !debugger_->armed()) return DebugGate::kIssue;
    const Warp& w = warps_[slot];
    const bool run =
        debugger_->before(debug_source_, debug_key(slot, w), w.pc, warp_insts_, inst, w.threads.data(), w.mask);
    return run_.stopped() ? DebugGate::kStopped : run ? DebugGate::kIssue : DebugGate::kHold;
  }
  void illegal_pc(unsigned slot);

 private:
  // A global-memory access of one warp instruction: done when every line it
  // touches has been served (an L1 hit, a fill, or an answer from L2).
  struct MemGroup {
    unsigned warp = 0;
    uint8_t dst = isa::kNoReg;
    uint8_t group = 1;  // registers from dst
    unsigned remaining = 0;
    uint64_t last = 0;  // latest cycle a line was served
  };
  // A line served: an answer from L2 for a memory group, or a fill of an L1
  // half. Applied from the cycle after `cycle`.
  struct Arrival {
    uint64_t cycle;
    uint32_t tag;  // group, or kFillTag | half
    uint32_t line;
    uint8_t sectors;
    bool from_l2;  // an answer to a line request (not an L1 hit)
  };
  static constexpr uint32_t kFillTag = 0x80000000u;
  static constexpr uint32_t kConstFillTag = 0x40000000u;  // a fill of the constant cache

  void account_skipped(uint64_t upto);
  // The warp-level instructions (isa/warp_ops.h): shuffles, votes,
  // activemask, syncwarp, bar.red, membar.cta.
  bool execute_warp_op(unsigned slot, const isa::Inst& inst, uint64_t now);
  void count_issue(const Warp& w, const isa::Inst& inst, uint32_t mask, uint64_t now);
  unsigned latency(const isa::Inst& inst) const;
  void issue_shared(unsigned slot, Warp& w, const isa::Inst& inst, uint64_t now);
  // rtl and lockstep: one cycle of the bank unit's pins, and its answer.
  void step_banks(uint64_t now);
  bool banks_have_work() const { return !bank_fifo_.empty() || !bank_taken_.empty(); }
  void issue_global(unsigned slot, Warp& w, const isa::Inst& inst, uint64_t now);
  void issue_constant(unsigned slot, Warp& w, unsigned g, uint64_t now);
  void queue_request(uint32_t line, uint8_t sectors, LineOp op, unsigned atomic_ops, uint32_t tag, unsigned slot);
  void line_served(unsigned group, uint64_t cycle);
  void apply_arrivals(uint64_t now);
  uint64_t next_arrival() const;
  void maybe_retire(unsigned slot);
  void fault(const Warp& w, unsigned slot, unsigned lane, const isa::Inst& inst, const isa::ExecResult& r);
  // A warp's gdb key: the slot and which warp it holds.
  static uint64_t debug_key(unsigned slot, const Warp& w) { return w.serial << 8 | slot; }
  class DebugThreads;
  debug::Debugger* debugger_ = nullptr;
  unsigned debug_source_ = 0;
  std::unique_ptr<debug::ThreadSource> debug_threads_;

  unsigned id_;
  const SmParams& p_;
  const isa::DecodedProgram& program_;
  sim::RunControl& run_;
  std::string name_;
  isa::InstTrace* inst_trace_ = nullptr;
  std::vector<int> trace_units_;  // each warp slot's unit in inst_trace_
  // Whether the warp instruction at the warp's pc is traced; the lowest
  // lane's memory address before it runs (x[rs1] + imm).
  struct TraceCapture {
    bool on = false;
    uint32_t pc = 0, addr = 0;
    unsigned lane = 0;
  };
  TraceCapture trace_capture(unsigned slot, const Warp& w, const isa::Inst& inst, uint32_t mask, uint64_t now) const {
    if (!inst_trace_ || mask == 0 || !inst_trace_->wants(trace_units_[slot], now, w.pc)) return {};
    const auto lane = static_cast<unsigned>(__builtin_ctz(mask));
    return {true, w.pc, w.threads[lane].x[inst.rs1] + static_cast<uint32_t>(inst.imm), lane};
  }
  void trace_issue(unsigned slot, const Warp& w, const isa::Inst& inst, const TraceCapture& c, uint32_t mask,
                   uint64_t now) const;
  sim::Log log_;
  Port* port_ = nullptr;

  sim::StatGroup stats_;
  L1Cache l1_;     // its statistics first: the tree keeps that order
  L1Cache const_;  // the constant cache (one "half"), after the L1's statistics
  BlockSlots slots_;
  std::vector<Warp> warps_;
  std::vector<IssueStage> partitions_;
  SharedBankUnit banks_;  // the shared memory; model mode's unit, lockstep's reference
  LaneMemory lanes_;

  // A shared-memory warp request for the bank unit's pins (rtl, lockstep):
  // waiting in front of the unit, then in service until it answers.
  struct BankPending {
    BankRequest req;
    unsigned slot = 0;
    uint64_t serial = 0;  // the warp (a retired warp's answers are dropped)
    const isa::Inst* inst = nullptr;
    std::array<uint8_t, kWarpSize> byte{};  // each lane's byte offset in its word
    uint64_t min_ready = 0;                 // a local-memory lane's latency
    unsigned conflict_wait = 0;             // a load's conflict latency beyond its bank passes
  };
  std::unique_ptr<SharedBankPins> bank_pins_;
  std::deque<BankPending> bank_fifo_, bank_taken_;
  uint64_t warp_serial_ = 0;

  uint64_t shared_busy_until_ = 0;  // the bank array is busy with earlier passes until this cycle
  std::vector<MemGroup> groups_;
  std::vector<unsigned> free_groups_;
  std::vector<Arrival> arrivals_;  // not yet applied
  std::deque<MemRequest> requests_;

  uint64_t last_cycle_ = 0;  // last cycle processed
  bool ever_ran_ = false;
  uint64_t next_event_ = kNever;
  uint64_t l2_outstanding_ = 0;  // global_outstanding()
  bool tracing_ = false;
  SmTrace trace_;

  // Statistics.
  uint64_t active_cycles_ = 0, warp_insts_ = 0, thread_insts_ = 0;
  uint64_t blocks_started_ = 0, blocks_finished_ = 0;
  uint64_t sector_reads_ = 0, sector_writes_ = 0, shared_accesses_ = 0, local_accesses_ = 0;
  uint64_t line_requests_ = 0, shared_broadcasts_ = 0, shared_atomic_ops_ = 0, shared_atomic_insts_ = 0;
  uint64_t shared_conflict_passes_ = 0;  // passes beyond the first
  std::vector<uint64_t> shared_passes_;  // histogram: passes per warp request
  uint64_t launch_id_ = 0;               // the kernel whose blocks run here (L1 invalidation)
  bool any_launch_ = false;
  uint64_t unit_insts_[IssueStage::kUnitCount] = {};
  uint64_t ctrl_insts_ = 0;
  uint64_t const_loads_ = 0, const_serialized_ = 0;
};

}  // namespace tessera::sm
