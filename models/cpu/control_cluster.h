// The control-core cluster: `cluster.cores` in-order RV32IMAF cores whose
// data loads, stores, AMOs, LR/SC and fences go through their coherent L1D
// caches in the bus::Cluster engine (docs/coherence.md), with the engine's
// timing: a load that misses waits for the bus and memory. Instructions are
// fetched a line at a time through the core's L1I into a one-line fetch
// buffer (cpu.fetch_l1i); they are decoded from the program image, and a
// fetched word that differs (code written at run time) stops the run.
//
// One SC_METHOD steps every core and the engine (docs/architecture.md, "Timing model"): cores run
// ahead of SystemC time up to `cpu.quantum` cycles (TLM temporal
// decoupling) and synchronise at MMIO accesses and wfi, so launches,
// status reads, core start and exit happen at exact times. Inside a step,
// cores and the engine advance in lockstep by cycle, cores in hart order,
// so nothing depends on the order SystemC runs processes in.
//
// Core 0 runs main(); the others start parked and run only when firmware
// starts them through the cluster's MMIO registers (docs/firmware-abi.md).
// Kernel-launch coherence points: before the dispatcher's LAUNCH write is
// accepted and before each DISP_STATUS read while a launched kernel may
// have run, the cluster drains its operations, writes every dirty line back
// to global memory and empties every cache.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "bus/cluster.h"
#include "bus/cluster_waves.h"
#include "cpu/checkpoint.h"
#include "cpu/hart.h"
#include "debug/debugger.h"
#include "isa/decoded_program.h"
#include "isa/inst_trace.h"
#include "mem/backing_memory_side.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/timeline.h"
#include "vector/vector_unit.h"

namespace tessera::cpu {

// The cluster's own MMIO registers (offsets from the MMIO base;
// docs/firmware-abi.md). Accesses elsewhere go out through mmio_socket.
namespace cluster_reg {
inline constexpr uint32_t kNumCores = 0x040;         // R: cluster.cores
inline constexpr uint32_t kHartPc = 0x044;           // RW: start PC for HART_START
inline constexpr uint32_t kHartArg = 0x048;          // RW: a0 for HART_START
inline constexpr uint32_t kHartFn = 0x04C;           // RW: a1 for HART_START
inline constexpr uint32_t kHartSp = 0x050;           // RW: sp for HART_START
inline constexpr uint32_t kHartStart = 0x054;        // W: hart id to start (must be parked, not 0)
inline constexpr uint32_t kHartRunning = 0x058;      // R: bit h set while hart h is not parked
inline constexpr uint32_t kHartPark = 0x05C;         // W: the writing hart parks (not hart 0)
inline constexpr uint32_t kBusTransactions = 0x060;  // R: bus transactions ordered so far (low word)
inline constexpr uint32_t kInvalidations = 0x064;    // R: copies invalidated by other caches (low word)
inline constexpr uint32_t kCacheToCache = 0x068;     // R: lines supplied cache to cache (low word)
inline constexpr uint32_t kMemoryReads = 0x06C;      // R: lines read from memory (low word)
inline constexpr uint32_t kFirst = 0x040, kEnd = 0x070;
}  // namespace cluster_reg

// The lowest bytes of a control core's stack, which no access may touch: a
// stack that grows into them has overflowed (the run stops, status 3,
// instead of silently overwriting the heap or the program image).
struct StackGuard {
  uint32_t base = 0, bytes = 0;  // the guard region
  std::string stack;             // the stack it guards, with its size and the symbol that sets it
};

// Where a fast-forward ends (docs/fast-forward.md): before the first ROI
// begin, dispatcher LAUNCH write, tx.* instruction, wfi or vector
// instruction; or the program ended (or stopped) while running functionally.
enum class SwitchReason : uint8_t { kNone, kRoiBegin, kLaunch, kTx, kWfi, kProgramEnd, kVector, kDevice };
const char* switch_reason_name(SwitchReason r);

struct FastForwardInfo {
  bool enabled = false;
  uint64_t instructions = 0;  // executed functionally, every core
  double host_seconds = 0;
  SwitchReason reason = SwitchReason::kNone;
  uint32_t switch_pc = 0;
  unsigned switch_core = 0;
};

class ControlCluster : public sc_core::sc_module, public sim::InFlightReporter {
 public:
  tlm_utils::simple_initiator_socket<ControlCluster> mmio_socket;

  struct Context {
    sim::Config& config;
    const sim::ClockDomain& clock;
    sim::BackingMemory& global;
    const isa::DecodedProgram& program;
    sim::RunControl& run;
    sim::StatGroup& stats_parent;
    uint32_t entry;
    uint32_t stack_top;
    // The dispatcher's LAUNCH and STATUS register offsets: the coherence points.
    uint32_t launch_offset;
    uint32_t status_offset;
    std::vector<StackGuard> stack_guards;
    sim::Waveform* wave = nullptr;  // null when nothing is traced
    // Core 0's s0 and s1 at start: main's argc and argv (crt0 passes them on).
    uint32_t argc = 0, argv = 0;
    // The ROI register's offset (a non-zero store begins the region of
    // interest): a fast-forward switch point.
    uint32_t roi_offset = ~0u;
  };

  ControlCluster(const sc_core::sc_module_name& name, const Context& ctx);
  ~ControlCluster() override;

  // Kernel completion: a core sleeping in wfi continues. `busy` tells wfi
  // whether a kernel is still running (it may sleep until this interrupt).
  void interrupt();
  // A source whose work ends in an interrupt (a kernel, a device): a core in
  // wfi sleeps while any says it is busy.
  void add_wfi_condition(std::function<bool()> busy) { wfi_conditions_.push_back(std::move(busy)); }

  unsigned cores() const { return static_cast<unsigned>(harts_.size()); }
  uint64_t instructions() const;
  const bus::Cluster& engine() const { return *engine_; }
  // sim::InFlightReporter: each core waiting for a data access or a fetch,
  // then the engine's requests (with their transient states), bus queues
  // and bridge slots (bus::Cluster::describe_in_flight).
  std::string describe_in_flight() const override;
  // --timeline: a track per core (parked, asleep in wfi, long memory
  // waits; the gaps are running) and one for the bus.
  void set_timeline(sim::Timeline* t);
  // --trace-insts: each core's retired instructions (fast-forwarded ones
  // are not traced).
  void set_inst_trace(isa::InstTrace* trace);
  // --gdb: the cores are threads of `d` (cluster_debug.cpp).
  void set_debugger(debug::Debugger* d);

  // Fast-forward (docs/fast-forward.md): the first step runs the cores
  // functionally up to the switch point; max_instructions (0: none) bounds
  // it (--max-cycles).
  void set_fast_forward(bool on, uint64_t max_instructions);
  // Called at the switch point with the memory exact (after a coherence
  // point in a detailed run): --checkpoint-out. `detailed`: find the switch
  // point in a detailed run too.
  void on_switch(std::function<void()> hook, bool detailed);
  const FastForwardInfo& fast_forward_info() const { return ff_; }
  // The architectural state of the cores (at a switch point), and its
  // restoration before a run (--restore): every running core ready at cycle 0.
  ClusterSnapshot snapshot() const;
  void restore(const ClusterSnapshot& s);

 private:
  class FfEnv;
  void fast_forward();
  // Runs h functionally for at most `batch` instructions; the switch point
  // it reached (kNone: none yet, or the run stopped).
  SwitchReason fast_forward_hart(Hart& h, unsigned batch);
  SwitchReason switch_reason(const isa::Inst& inst, const Hart& h) const;
  // The detailed run at a switch instruction (--checkpoint-out without
  // --fast-forward): true when the hart must wait (drain, synchronise).
  bool detailed_switch(Hart& h, SwitchReason reason, uint64_t t, uint64_t now, uint64_t sc_now);
  void step();
  void step_cores();
  // Waveform (waves_ set): the changes up to now to the waveform, and a
  // wake-up for the next.
  void release_waves();
  void retired(Hart& h, uint64_t cycle) {
    ++h.instructions;
    if (waves_) waves_->retire(h.id(), cycle);
    if (inst_trace_ && inst_trace_->wants(trace_units_[h.id()], cycle, h.issue_pc)) trace_retired(h, cycle);
  }
  void trace_retired(const Hart& h, uint64_t cycle);
  void set_mode(Hart& h, Hart::Mode mode, uint64_t cycle) {
    h.mode = mode;
    if (waves_) waves_->stall(h.id(), static_cast<unsigned>(stall_code(mode)), cycle);
  }
  static unsigned stall_code(Hart::Mode mode);
  // Runs h's instructions due by `horizon` (engine time engine_now):
  // each pass of its loop asks the instruction handlers below, in the order
  // run_hart writes once (control_cluster.cpp says why).
  void run_hart(Hart& h, uint64_t engine_now, uint64_t sc_now, uint64_t horizon);
  // One pass: the instruction at h's pc, due at t.
  struct Pass {
    Hart& h;
    const isa::Inst& inst;
    uint64_t t, now, sc_now;
    MemClass mc = MemClass::kNone;  // on_access_check classifies kAccess and kFence
    bool mmio_access = false;       // an access to the MMIO window (on_access_check)
  };
  // A handler's answer: kNext, not its instruction (the next handler's
  // turn); kAgain, handled and the hart runs on; kWait, the hart stops
  // running for now (it issued to the engine and waits, synchronises, or
  // faulted).
  enum class Step : uint8_t { kNext, kAgain, kWait };
  template <Step (ControlCluster::*... Handlers)(Pass&)>
  Step run_handlers(Pass& p);
  Step on_switch_point(Pass& p);  // fast_forward.cpp
  Step on_transaction(Pass& p);   // cluster_tx.cpp
  Step on_access_done(Pass& p);   // cluster_memory.cpp
  Step on_fetch(Pass& p);         // cluster_fetch.cpp
  Step on_vector(Pass& p);        // cluster_vector.cpp
  Step on_access_check(Pass& p);  // cluster_memory.cpp
  Step on_io(Pass& p);            // cluster_io.cpp: MMIO and wfi
  Step on_memory(Pass& p);        // cluster_memory.cpp
  Step on_execute(Pass& p);       // control_cluster.cpp
  // HTM (docs/htm.md). A tx.* instruction at time t (engine time now):
  // true when the hart must stop running for now (it issued to the engine,
  // waits for it, or faulted).
  bool run_tx_instruction(Hart& h, const isa::Inst& inst, uint64_t t, uint64_t now);
  // Ends the core's transaction with `status` (MMIO, nesting): issues the abort.
  void abort_transaction(Hart& h, uint32_t status, uint64_t t);
  // Issues a transaction-control operation; `done` runs when it completes.
  // The core's load/store/fence/atomic statistic for an access it issues.
  static void count_access(Hart& h, bus::OpKind kind);
  void issue_tx(Hart& h, bus::OpKind kind, uint64_t t, uint32_t value, std::function<void(uint32_t)> done);
  void resume(Hart& h);
  bool needs_coherence_point(const isa::Inst& inst, const Hart& h) const;
  void coherence_point(Hart& h, uint64_t now);
  bool mmio(Hart& h, bool write, uint32_t addr, unsigned bytes, uint32_t* value);
  bool cluster_register(Hart& h, bool write, uint32_t offset, uint32_t* value);
  bool should_sleep(const Hart& h) const;
  void wake_sleepers(uint64_t at);
  void fault(Hart& h, const isa::Inst& inst, const isa::ExecResult& r);
  // A data access that must not be issued (MMIO other than a 32-bit load or
  // store, a stack guard, the program's code): the run stops; true.
  bool refuse_access(Hart& h, const isa::Inst& inst, uint32_t addr, bool mmio_access);
  // An outermost tx.begin whose undo log (txlogbase, txlogsize: guest CSRs)
  // eager versioning could not write, misaligned, outside global memory or
  // on the program's code: the run stops with a guest fault; true.
  bool refuse_undo_log(Hart& h);
  void stop_on_engine_failure();
  // Vector units (docs/vector.md, "On the control cores"). The decoded
  // vector instruction of the word at pc (op kIllegal: not one).
  const isa::vec::VInst& vector_inst(uint32_t pc, uint32_t raw);
  // Runs the vector instruction v on h at time t: true when the hart must
  // stop running for now (an element access in flight, waiting for the
  // engine, or a fault).
  bool run_vector(Hart& h, const isa::vec::VInst& v, uint64_t t, uint64_t now);
  // Why an element access must not happen ("" when it may): MMIO, outside
  // memory, a stack guard, a store into the code.
  std::string vector_refusal(uint32_t addr, unsigned bytes, bool store) const;
  void vector_fault(Hart& h, const isa::vec::VInst& v, const isa::vec::VResult& r);
  void add_vector_stats(unsigned core);
  void add_vector_unit_stats(sim::StatGroup& g, const vector::VectorUnit& unit);
  void forget_fetch_lines() { fetch_line_.assign(harts_.size(), kNoLine); }
  // "0x8000011c in main+0x1c (lock.c:42)": a PC for a message.
  std::string pc_text(uint32_t pc) const { return program_.image().format_pc(pc); }

  const sim::ClockDomain& clock_;
  sim::BackingMemory& global_;
  const isa::DecodedProgram& program_;
  sim::RunControl& run_;
  uint32_t launch_offset_, status_offset_;
  std::vector<StackGuard> stack_guards_;
  uint64_t seen_value_changes_ = 0;  // the engine's, last told to the progress watchdog
  // The cores' register changes (Hart::register_changes), and the count last
  // told to the progress watchdog.
  uint64_t register_changes_ = 0, seen_register_changes_ = 0;
  unsigned quantum_, mul_latency_, div_latency_;
  bool launch_coherence_ = true;

  std::unique_ptr<mem::BackingMemorySide> memory_side_;
  std::unique_ptr<bus::Cluster> engine_;
  std::vector<std::unique_ptr<Hart>> harts_;
  std::vector<std::optional<uint32_t>> completed_;  // per hart: result of its finished operation
  // Per hart: the low word of an fld/fsd whose high word is in flight (the
  // cores' data path is 32 bits: a doubleword is two word accesses).
  std::vector<std::optional<uint32_t>> first_half_;
  std::vector<uint64_t> issued_at_, sleep_start_;
  // For the livelock report: each core's last load (the line a spin
  // reads), and the last control-core write to each line, in a
  // direct-mapped table (an entry another line took is forgotten).
  struct LastLoad {
    uint32_t line = 0, pc = 0;
    bool valid = false;
  };
  struct LineWrite {
    uint64_t line = ~uint64_t{0};
    uint64_t cycle = 0;
    uint32_t pc = 0;
    unsigned core = 0;
  };
  static constexpr unsigned kLineWrites = 4096;
  std::vector<LastLoad> last_load_;
  std::vector<LineWrite> line_writes_;
  uint32_t line_of(uint64_t addr) const { return static_cast<uint32_t>(addr & ~uint64_t{engine_->line_bytes() - 1}); }
  // A completed access that wrote memory (before its instruction retires).
  void note_write(const Hart& h, const isa::Inst& inst, uint32_t result, uint64_t cycle);
  // "core1 spins reading line 0x... (lock); core0 wrote it last, at cycle
  // N, pc ...": the running cores' last loads and their lines' writers.
  std::string describe_spins() const;
  // Per hart: the line in its fetch buffer (kNoLine: none), and the word it
  // expects from the fetch in flight (the decoded program's).
  static constexpr uint64_t kNoLine = ~uint64_t{0};
  std::vector<uint64_t> fetch_line_;
  std::vector<uint32_t> fetch_expected_;
  bool fetch_l1i_ = true;
  uint64_t line_mask_ = 0;
  uint32_t start_pc_ = 0, start_arg_ = 0, start_fn_ = 0, start_sp_ = 0;

  std::vector<std::function<bool()>> wfi_conditions_;
  bool interrupt_source_busy() const;
  uint64_t mmio_extra_cycles_ = 0;  // a device's register access took this many cycles more
  sc_core::sc_event interrupt_;
  bool interrupt_pending_ = false;
  uint64_t interrupt_at_ = 0;
  bool draining_ = false;             // a coherence point waits for the engine to go idle
  bool kernel_may_have_run_ = false;  // launched since the last coherence point at a status read

  uint64_t coherence_points_ = 0, coherence_write_backs_ = 0;

  uint32_t roi_offset_;
  FastForwardInfo ff_;
  bool ff_pending_ = false, switch_armed_ = false;
  uint64_t ff_limit_ = 0;
  std::function<void()> switch_hook_;
  std::vector<uint32_t> ff_reservation_;                // per hart: the LR word, or kNoReservation
  static constexpr uint32_t kNoReservation = 1;         // never a word address
  std::vector<std::unique_ptr<isa::ExecEnv>> ff_envs_;  // per hart: FfEnv
  std::unique_ptr<sim::StatGroup> ff_stats_;
  // Device-register writes before the switch (ClusterSnapshot::device_writes),
  // logged while log_device_writes_; replay_writes_: a restore's, written at
  // the first step.
  bool log_device_writes_ = false;
  std::vector<std::pair<uint32_t, uint32_t>> device_writes_, replay_writes_;

  // The vector units (cluster.vector_units), each serving
  // cluster.cores_per_vector_unit consecutive cores from core 0, one
  // register context per core; per hart: its unit (null: none), the element
  // accesses of the vector load or store it is making through the L1D, and
  // counters.
  vector::VectorParams vector_params_;
  std::vector<std::unique_ptr<vector::VectorUnit>> vector_units_;
  unsigned cores_per_vector_unit_ = 1;
  std::vector<vector::VectorUnit*> core_vector_unit_;  // per hart; null: the core has no unit
  unsigned vector_context(unsigned core) const { return core % cores_per_vector_unit_; }
  // The settings behind a core without a unit, for its fault message.
  std::string vector_unit_settings() const;
  std::unordered_map<uint32_t, isa::vec::VInst> vector_decoded_;  // by pc
  struct VectorAccesses {
    bool active = false;
    size_t issued = 0;               // accesses of the unit's plan issued so far
    std::vector<uint32_t> loaded;    // per completed access: the value read
    std::vector<uint64_t> arrivals;  // per completed access: the cycle it completed
    uint64_t start = 0;              // the cycle the instruction reached the unit
  };
  std::vector<VectorAccesses> vector_accesses_;
  struct VectorCounters {
    uint64_t scalar_wait_cycles = 0;  // the core waited for the queue or a scalar result
    uint64_t bytes_loaded = 0, bytes_stored = 0;
    uint64_t engine_drains = 0;  // banked accesses that waited for the cluster to go idle
  };
  std::vector<VectorCounters> vector_counters_;
  std::vector<std::unique_ptr<sim::StatGroup>> vector_stats_;

  std::unique_ptr<bus::ClusterWaves> waves_;  // null when the cluster is not traced
  isa::InstTrace* inst_trace_ = nullptr;      // --trace-insts
  class DebugThreads;
  debug::Debugger* debugger_ = nullptr;  // --gdb
  unsigned debug_source_ = 0;
  std::unique_ptr<debug::ThreadSource> debug_threads_;
  std::vector<int> trace_units_;  // each core's unit in inst_trace_
  sc_core::sc_event wave_event_;  // the next cycle with changes to release
  uint64_t ps_per_tick_ = 1;      // SystemC time resolution in picoseconds
  // A memory wait shows on a core's track when it lasts at least this many
  // cycles: longer than an L1D hit, so the track shows misses, not every load.
  static constexpr uint64_t kTimelineMemoryWait = 8;
  uint64_t timeline_ps(uint64_t cycle) const { return sim::Timeline::cycle_ps(clock_, cycle); }
  sim::Timeline* timeline_ = nullptr;
  std::vector<int> core_tracks_;
};

}  // namespace tessera::cpu
