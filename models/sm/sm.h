// The streaming multiprocessor as a SystemC module (docs/architecture.md): a
// thin wrapper around sm::SmEngine, which holds the SM's timing and
// function (partitions with a warp scheduler, a scoreboard and dual issue;
// SIMT threads with minimum-PC reconvergence; block barriers; banked shared
// memory, local memory, the coalescer and the L1). The wrapper owns what
// touches SystemC: the TLM-2.0 AT initiator towards L2 (one request per
// 128-byte line with a sector mask), the clock, and the waveform.
//
// Timing: one SC_METHOD per SM advances one cycle per activation and stops
// its clock when no warp can issue, waking at the engine's next event (a
// result ready, a unit free, a memory answer), or when a block is placed or
// an answer or END_REQ comes in.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <utility>

#include "isa/decoded_program.h"
#include "sim/at_initiator_port.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/clocked_method.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/payload_pool.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/timeline.h"
#include "sim/waveform.h"
#include "sm/block_launch.h"
#include "sm/global_atomics.h"
#include "sm/kernel_launch.h"
#include "sm/sm_engine.h"
#include "sm/sm_params.h"

namespace tessera::sm {

// The launch port (BlockLaunchIf) is what the dispatcher is bound to.
class Sm final : public sc_core::sc_module, public BlockLaunchIf, public sim::InFlightReporter, private SmEngine::Port {
  // Global memory: one line request in its request phase at a time; the
  // next goes out the cycle after END_REQ (sim/at_initiator_port.h).
  sim::AtInitiatorPort<Sm> mem_port_;

 public:
  decltype(mem_port_.socket)& mem_socket = mem_port_.socket;

  struct Context {
    sim::Config& config;
    const SmParams& params;
    const sim::ClockDomain& clock;
    sim::BackingMemory& global;
    const isa::DecodedProgram& program;
    sim::RunControl& run;
    sim::StatGroup& stats_parent;
    sim::Waveform* wave;  // may be null
    unsigned num_sms;
    GlobalAtomics& atomics;  // performs global atomics in a fixed order
  };

  Sm(const sc_core::sc_module_name& name, unsigned id, const Context& ctx);
  ~Sm() override;

  // BlockLaunchIf
  unsigned id() const override { return engine_.id(); }
  const char* sm_name() const override { return name(); }
  bool can_accept(const KernelLaunch& k) const override { return engine_.can_accept(k); }
  void start_block(const KernelLaunch& k, uint64_t block_index) override;
  void set_listener(BlockListener* l) override { listener_ = l; }
  LaunchLimits launch_limits() const override { return limits_; }

  bool idle() const { return engine_.idle(); }
  // --timeline: block slices per block slot, sampled memory requests.
  void set_timeline(sim::Timeline* t);
  void set_inst_trace(isa::InstTrace* t) { engine_.set_inst_trace(t); }
  void set_debugger(debug::Debugger* d) { engine_.set_debugger(d); }
  // The device register windows its kernels reach (nullptr: none).
  void set_devices(DeviceRegisters* d) { engine_.lane_memory().set_devices(d); }

  // Warp and thread states, for the deadlock report.
  std::string dump_state() const { return engine_.dump_state(); }
  // Resident warps and the memory requests in flight (queued, awaiting
  // END_REQ, waiting in an MSHR, answered but not yet applied).
  std::string describe_in_flight() const override;

  uint64_t warp_insts() const { return engine_.warp_insts(); }
  uint64_t thread_insts() const { return engine_.thread_insts(); }
  // Requested sectors of cached loads over both L1 halves: hits, misses.
  std::pair<uint64_t, uint64_t> l1_sector_totals() const { return engine_.l1_sector_totals(); }

  const SmEngine& engine() const { return engine_; }

 private:
  void cycle();
  // SmEngine::Port
  void before_issue(uint64_t now) override;
  void block_finished() override;

  void send_requests(uint64_t now);
  void on_answer(unsigned socket, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  void on_end_req(unsigned socket);
  void trace_partitions(uint64_t t);
  // The SM's own signals after cycle `now` (at time t ps): levels, and the
  // strobes of this cycle.
  void trace_sm(uint64_t now, uint64_t t);
  // SC_METHOD (tracing only): at the first cycle the SM may skip after a
  // strobe or while the bank array ends its passes, strobes go back to 0
  // and shared.busy follows the bank array.
  void trace_idle();
  uint64_t now_cycle() const { return clock_.now_cycle(); }
  void wake_at_next_cycle();

  const sim::ClockDomain& clock_;
  sim::RunControl& run_;
  sim::Waveform* wave_;
  BlockListener* listener_ = nullptr;
  LaunchLimits limits_;
  SmEngine engine_;

  // Global memory path.
  sim::PayloadPool pool_;

  sim::ClockedMethod clocked_;  // the idle-skipping cycle loop

  // Waveform signals per partition.
  struct Signals {
    int warp = -1, pc = -1, unit = -1, stall = -1, lanes = -1;
  };
  std::vector<Signals> signals_;
  // The SM's own signals (docs/waveforms.md).
  struct L1Signals {
    int req = -1, hit = -1, miss = -1, mshr = -1;
  };
  struct WarpSignals {
    int state = -1, active_mask = -1;
  };
  struct SmSignals {
    int ldst_queue = -1, global_outstanding = -1, resident_blocks = -1, resident_warps = -1, barrier_warps = -1;
    int shared_busy = -1, shared_passes = -1;
    std::vector<L1Signals> l1;
    // The requests towards L2 (mem.*): a strobe per request sent, its line,
    // operation and warp slot.
    int mem_req = -1, mem_addr = -1, mem_op = -1, mem_warp = -1;
    std::vector<WarpSignals> warps;  // per warp slot; empty when --trace-scope leaves every slot out
  } sm_signals_;
  void trace_warps(uint64_t t);
  bool mem_strobe_ = false;  // mem.req is 1 since mem_cycle_
  uint64_t mem_cycle_ = 0;
  bool strobes_on_ = false;  // some L1 strobe is 1 since strobe_cycle_
  uint64_t strobe_cycle_ = 0;
  sc_core::sc_event trace_wake_;  // wakes trace_idle()

  // Timeline (null when off): a track per block slot and the block each
  // holds (-1: none), the track of this SM's memory requests.
  void timeline_block_started(uint64_t block_index);
  void timeline_block_finished();
  sim::Timeline* timeline_ = nullptr;
  std::vector<int> slot_tracks_;
  std::vector<int64_t> slot_blocks_;
  int mem_track_ = -1;
};

}  // namespace tessera::sm
