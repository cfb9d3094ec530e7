// HBM behind a TLM-2.0 AT target: a drop-in replacement for
// gpu::FixedLatencyMemory. A thin SystemC shell over the pure C++ engine
// (MemorySystem); parameters under `dram.` (dram_params.h).
//
// Protocol (sim::AtTargetPort): BEGIN_REQ in; END_REQ when the request enters
// a controller queue (withheld while its pseudo channel's queue is full:
// back-pressure; younger requests to other pseudo channels pass it);
// BEGIN_RESP at the cycle its last burst's data has moved; the initiator
// answers END_RESP or TLM_COMPLETED. b_transport performs the access with
// the idle row-miss latency. Transactions with MemExt::timing_only model
// timing only; others read/write the BackingMemory (if any). Addresses
// beyond capacity get TLM_ADDRESS_ERROR_RESPONSE.
//
// Order independence: the engine decides DRAM cycle c at c's clock edge +
// 1 ps, after every request that arrived up to that edge; those are
// admitted in the port's order: oldest first, then by initiator socket.
// Idle skipping (sim::ClockedMethod): the method sleeps until a request
// arrives or the engine's next event; dram.skip_idle=false ticks every cycle
// while work is queued.
#pragma once

#include <tlm_utils/peq_with_get.h>

#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "dram/memory_system.h"
#include "sim/at_target_port.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/clocked_method.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/stats.h"
#include "sim/timeline.h"
#include "sim/waveform.h"

namespace tessera::dram {

// The values of a pseudo channel's command signals (`cmd`, `cmd2`). The
// model issues ACT, RD, WR, PRE, REF (all banks) and REFSB (one bank);
// RDA, WRA and PREA keep their numbers for controllers that issue them.
inline const sim::WaveEnum kDramCmd{"dram_cmd",
                                    {{0, "NOP"},
                                     {1, "ACT"},
                                     {2, "RD"},
                                     {3, "WR"},
                                     {4, "RDA"},
                                     {5, "WRA"},
                                     {6, "PRE"},
                                     {7, "PREA"},
                                     {8, "REF"},
                                     {9, "REFSB"}}};

class HbmMemory : public sc_core::sc_module, public sim::InFlightReporter {
 public:
  using Port = sim::AtTargetPort<HbmMemory>;

 private:
  Port port_;

 public:
  decltype(port_.socket)& socket = port_.socket;

  HbmMemory(const sc_core::sc_module_name& name, sim::Config& cfg, sim::BackingMemory* backing, uint64_t base_address,
            sim::StatGroup& stats_parent);
  ~HbmMemory() override;

  const sim::ClockDomain& clock() const { return clock_; }
  const MemorySystem& engine() const { return *engine_; }
  uint64_t capacity() const { return engine_->capacity(); }
  std::string describe_in_flight() const override;
  // Traces every pseudo channel (scope <name>.pc<P>): the command it
  // issued in each cycle (`cmd`, `cmd_bank`, `cmd_row`; NOP the next cycle;
  // a row-bus command issued in the same cycle as a column command shows
  // in `cmd2`, `cmd2_bank`, `cmd2_row`), its read and write queue depths,
  // `refresh` (from a REF until tRFC, or tRFCSB, later) and each bank's
  // open row (`bank<B>.open`, `bank<B>.row`). Signals change at the
  // instant the engine decides their cycle (the edge + 1 ps). Call during
  // elaboration; null traces nothing.
  void set_waveform(sim::Waveform* wave);
  // --timeline: each pseudo-channel's commands, the DRAM stage of sampled
  // L2 memory requests.
  void set_timeline(sim::Timeline* t);

 private:
  class Tracer;
  struct InFlight {
    tlm::tlm_generic_payload* gp = nullptr;
    int socket_id = 0;
    uint64_t timeline_id = 0;  // its DRAM stage is in the timeline (0: not)
  };
  struct Origin {
    int socket;
    sc_core::sc_time arrival;
  };

  void on_arrival(const Port::Request& r);
  void on_response_done(tlm::tlm_generic_payload& gp, int socket);
  Port::Admit admit(const Port::Request& r, uint64_t cycle);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void step();
  void respond();
  void finish(tlm::tlm_generic_payload& gp);
  bool in_range(const tlm::tlm_generic_payload& gp) const;
  void perform(tlm::tlm_generic_payload& gp);
  uint64_t arrival_cycle(const sc_core::sc_time& t) const;
  void start_of_simulation() override;
  void end_of_simulation() override;
  uint64_t traced_wake(uint64_t cycle, uint64_t next) const;

  sim::BackingMemory* backing_;
  uint64_t base_;
  DramConfig config_;
  sim::ClockDomain clock_;
  std::unique_ptr<MemorySystem> engine_;
  std::vector<InFlight> in_flight_;
  std::vector<uint32_t> free_ids_;
  std::unordered_map<tlm::tlm_generic_payload*, Origin> origin_;  // each payload in service
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> responses_;
  sim::ClockedMethod clocked_;  // activations at each decided cycle's edge + 1 ps
  uint64_t last_cycle_ = 0;     // the first cycle not decided yet
  std::unique_ptr<Tracer> tracer_;

  sim::StatGroup stats_;
  uint64_t backpressure_ = 0, address_errors_ = 0;
  uint64_t acts_ = 0, refreshes_ = 0, violations_ = 0;

  sim::Timeline* timeline_ = nullptr;
  int timeline_track_ = -1;
  std::unique_ptr<CommandObserver> timeline_commands_;
};

}  // namespace tessera::dram
