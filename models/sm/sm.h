// The streaming multiprocessor (DESIGN.md section 4): partitions with a warp
// scheduler, a scoreboard and dual issue to SP, SFU and LD/ST units; SIMT
// threads with their own PCs and minimum-PC reconvergence; block barriers;
// banked shared memory with remote atomics and local memory; the coalescer,
// the unified L1/texture cache and global memory through a TLM-2.0 AT
// initiator (one request per 128-byte line with a sector mask).
//
// Timing: one SC_METHOD per SM advances one cycle per activation and stops
// its clock when no warp can issue, waking at the next cycle something
// changes (a result ready, a unit free, a memory response). Instructions
// execute functionally when they issue; the scoreboard holds their results
// back for the unit's latency, and global-memory results until every sector
// request of the warp has been answered.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

#include "isa/decoded_program.h"
#include "isa/isa.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/log.h"
#include "sim/payload_pool.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/vcd.h"
#include "sm/coalescer.h"
#include "sm/global_atomics.h"
#include "sm/kernel_launch.h"
#include "mem/sector_cache.h"
#include "sm/sm_params.h"
#include "sm/warp_scheduler.h"

namespace tessera::sm {

class Sm;

// Told when a block leaves an SM, so the dispatcher can place the next one.
class BlockListener {
 public:
  virtual ~BlockListener() = default;
  virtual void block_finished(Sm& sm) = 0;
};

// Why a partition did not issue in a cycle.
enum class Stall : uint8_t { kNone, kScoreboard, kMemory, kUnitBusy, kBarrier, kNoWarp, kCount };
const char* stall_name(Stall s);

class Sm : public sc_core::sc_module, public isa::ExecEnv {
 public:
  tlm_utils::simple_initiator_socket<Sm> mem_socket;

  struct Context {
    sim::Config& config;
    const SmParams& params;
    const sim::ClockDomain& clock;
    sim::BackingMemory& global;
    const isa::DecodedProgram& program;
    sim::RunControl& run;
    sim::StatGroup& stats_parent;
    sim::VcdWriter* vcd;  // may be null
    unsigned num_sms;
    GlobalAtomics& atomics;  // performs global atomics in a fixed order
  };

  Sm(const sc_core::sc_module_name& name, unsigned id, const Context& ctx);
  ~Sm() override;

  unsigned id() const { return id_; }
  // Occupancy: can a block of this launch be placed now?
  bool can_accept(const KernelLaunch& k) const;
  void start_block(const KernelLaunch& k, uint64_t block_index);
  bool idle() const { return resident_blocks_ == 0; }
  void set_listener(BlockListener* l) { listener_ = l; }

  // Warp and thread states, for the deadlock report.
  std::string dump_state() const;

  uint64_t warp_insts() const { return warp_insts_; }
  uint64_t thread_insts() const { return thread_insts_; }
  // Requested sectors of cached loads over both L1 halves: hits, misses.
  std::pair<uint64_t, uint64_t> l1_sector_totals() const {
    std::pair<uint64_t, uint64_t> t{0, 0};
    for (const L1Half& h : l1_) {
      t.first += h.hit_sectors;
      t.second += h.miss_sectors;
    }
    return t;
  }

  // isa::ExecEnv, for the thread being executed.
  isa::MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) override;
  isa::MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override;
  isa::MemStatus load_reserved(uint32_t addr, uint32_t* value) override;
  isa::MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override;
  bool csr_read(uint16_t csr, uint32_t* value) override;
  bool csr_write(uint16_t csr, uint32_t value) override;

 private:
  static constexpr uint64_t kPending = ~uint64_t{0};  // register waits on memory
  enum ThreadStatus : uint8_t { kEmpty, kActive, kAtBarrier, kExited };
  enum UnitIndex { kUnitSp, kUnitSfu, kUnitLdst, kUnitCount };

  struct Warp {
    bool resident = false;
    unsigned block_slot = 0;
    unsigned warp_in_block = 0;
    unsigned partition = 0;
    uint32_t pc = 0;    // the PC the warp issues next (minimum over active threads)
    uint32_t mask = 0;  // threads at that PC
    uint32_t existing = 0, exited = 0, at_barrier = 0;
    unsigned outstanding = 0;  // global-memory groups in flight
    uint64_t first_issue = 0;  // placed in cycle c, a warp issues from c + 1
    std::array<uint64_t, 64> ready{};  // scoreboard: cycle each register is readable
    std::array<isa::ThreadState, kWarpSize> threads{};
    std::array<std::array<uint16_t, 3>, kWarpSize> tid{};
  };

  struct Block {
    bool resident = false;
    uint64_t index = 0;  // linear block index in the grid
    uint32_t ctaid[3] = {0, 0, 0};
    KernelLaunch launch;
    BlockFootprint use{};
    uint32_t shared_base = 0;  // offset in the SM's shared memory
    std::vector<unsigned> warps;  // slots given at start (reused after they retire)
    unsigned live_warps = 0;
    unsigned threads = 0, waiting = 0, exited = 0;
  };

  // A global-memory access of one warp instruction: done when every line it
  // touches has been served (an L1 hit, a fill, or an answer from L2).
  struct MemGroup {
    unsigned warp = 0;
    uint8_t dst = isa::kNoReg;
    unsigned remaining = 0;
    uint64_t last = 0;  // latest cycle a line was served
  };

  // One L1 half: the tag array, its MSHRs (waiters are memory groups) and
  // its statistics.
  struct L1Half {
    SectorCache cache;
    MshrTable<unsigned> mshr;
    uint64_t requests = 0, hit_sectors = 0, miss_sectors = 0, merged_sectors = 0, bypassed = 0;
    std::unique_ptr<sim::StatGroup> stats;
    L1Half(const CacheGeometry& g, unsigned mshrs) : cache(g), mshr(mshrs) {}
  };

  struct Partition {
    std::unique_ptr<WarpScheduler> scheduler;
    std::vector<uint16_t> warps;  // resident warp slots, oldest first
    std::vector<uint16_t> order;  // scratch
    std::array<uint64_t, kUnitCount> unit_free{};
    Stall last_stall = Stall::kNoWarp;
    // statistics
    uint64_t issued = 0, dual_issued = 0;
    std::array<uint64_t, static_cast<size_t>(Stall::kCount)> stalls{};
    std::unique_ptr<sim::StatGroup> stats;
    // waveform signals
    int vcd_warp = -1, vcd_pc = -1, vcd_unit = -1, vcd_stall = -1, vcd_lanes = -1;
  };

  void cycle();
  void account_skipped(uint64_t upto);
  bool issue_partition(unsigned p, uint64_t now, uint64_t& next_wake);
  Stall check(const Warp& w, const isa::Inst& inst, const Partition& part, uint64_t now, uint64_t& wake) const;
  bool execute_warp(unsigned slot, const isa::Inst& inst, uint64_t now);
  void update_warp_pc(Warp& w);
  void maybe_release_barrier(Block& b);
  void maybe_retire(unsigned slot);
  void fault(const Warp& w, unsigned lane, const isa::Inst& inst, const isa::ExecResult& r);
  unsigned unit_occupancy(isa::Unit u) const;
  unsigned latency(const isa::Inst& inst) const;
  void note_shared(uint32_t sm_offset);
  void issue_global(unsigned slot, Warp& w, const isa::Inst& inst, uint64_t now);
  void issue_shared(Warp& w, const isa::Inst& inst, uint64_t now);
  void queue_request(uint32_t line, uint8_t sectors, sim::MemOp op, unsigned atomic_ops, uint32_t tag, unsigned slot);
  void send_requests();
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void complete_request(tlm::tlm_generic_payload& gp);
  void line_served(unsigned group, uint64_t cycle);
  void apply_arrivals(uint64_t now);
  uint64_t next_arrival() const;  // first cycle an arrival takes effect
  void trace_partition(Partition& part, int warp, uint32_t pc, int unit, Stall stall, unsigned lanes);
  uint64_t now_cycle() const { return clock_.now_cycle(); }
  void wake_at_next_cycle();

  unsigned id_;
  const SmParams& p_;
  const sim::ClockDomain& clock_;
  sim::BackingMemory& global_;
  const isa::DecodedProgram& program_;
  sim::RunControl& run_;
  GlobalAtomics& atomics_;
  sim::VcdWriter* vcd_;
  unsigned num_sms_;
  sim::Log log_;
  BlockListener* listener_ = nullptr;

  sim::BackingMemory shared_;  // this SM's shared memory
  sim::BackingMemory local_;   // every thread slot's local memory, side by side
  std::vector<Warp> warps_;
  std::vector<Block> blocks_;
  std::vector<Partition> partitions_;
  std::vector<std::pair<uint32_t, uint32_t>> shared_free_;  // free [offset, size) extents
  unsigned resident_blocks_ = 0, resident_warps_ = 0, resident_threads_ = 0, used_registers_ = 0;

  // The instruction being executed: set before each lane's execute().
  unsigned cur_warp_ = 0, cur_lane_ = 0;
  uint64_t cur_cycle_ = 0;
  bool cur_local_ = false, cur_shared_ = false, cur_read_only_ = false;
  // Why the current instruction's access faulted, for the report.
  enum class FaultWhy { kUnmapped, kSharedWindow, kStackOverflow, kLocalAtomic, kCodeStore };
  FaultWhy cur_fault_why_ = FaultWhy::kUnmapped;
  uint32_t cur_fault_addr_ = 0;
  isa::MemStatus access_fault(FaultWhy why, uint32_t addr);
  bool is_atomic() const;
  uint32_t cur_shared_mask_ = 0;              // lanes that accessed shared memory
  uint32_t cur_global_lanes_ = 0;             // lanes already given to the coalescer
  uint32_t cur_deferred_lanes_ = 0;           // lanes whose global atomic GlobalAtomics performs
  const isa::Inst* cur_inst_ = nullptr;
  std::array<uint32_t, kWarpSize> cur_shared_words_{};  // their bank-word indices
  Coalescer coalescer_;                       // the global accesses

  // Shared memory's bank array: busy until this cycle with earlier passes.
  uint64_t shared_busy_until_ = 0;
  std::vector<L1Half> l1_;

  // Global memory path.
  sim::PayloadPool pool_;
  std::vector<MemGroup> groups_;
  // A line served: an answer from L2 for a memory group, or a fill of an L1
  // half. Applied from the cycle after `cycle`.
  struct Arrival {
    uint64_t cycle;
    uint32_t tag;  // group, or kFillTag | half
    uint32_t line;
    uint8_t sectors;
  };
  static constexpr uint32_t kFillTag = 0x80000000u;
  std::vector<Arrival> arrivals_;  // not yet applied
  std::vector<unsigned> free_groups_;
  std::deque<tlm::tlm_generic_payload*> outgoing_;
  bool waiting_end_req_ = false;
  const tlm::tlm_generic_payload* awaiting_end_req_ = nullptr;
  uint64_t end_req_cycle_ = 0;  // the next request goes out the cycle after this

  sc_core::sc_event wake_;
  uint64_t last_cycle_ = 0;     // last cycle processed
  bool ever_ran_ = false;
  uint64_t next_planned_ = 0;   // cycle the method is armed for (kPending: sleeping)

  // Statistics.
  sim::StatGroup stats_;
  uint64_t active_cycles_ = 0, warp_insts_ = 0, thread_insts_ = 0;
  uint64_t blocks_started_ = 0, blocks_finished_ = 0;
  uint64_t sector_reads_ = 0, sector_writes_ = 0, shared_accesses_ = 0, local_accesses_ = 0;
  uint64_t line_requests_ = 0, shared_broadcasts_ = 0, shared_atomic_ops_ = 0, shared_atomic_insts_ = 0;
  uint64_t shared_conflict_passes_ = 0;   // passes beyond the first
  std::vector<uint64_t> shared_passes_;   // histogram: passes per warp request
  uint64_t launch_id_ = 0;                // the kernel whose blocks run here (L1 invalidation)
  bool any_launch_ = false;
  uint64_t unit_insts_[kUnitCount] = {0, 0, 0};
  uint64_t ctrl_insts_ = 0;
};

}  // namespace tessera::sm
