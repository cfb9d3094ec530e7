// The SM <-> L2 crossbar as its own module, with the socket shape of
// noc::NocInterconnect: requesters (SMs) bind to target_socket (socket index
// = SM), and initiator_socket is bound once per target (L2 slice), in slice
// order; a netlist puts either interconnect between the SMs and the slices.
// Timing: gpu/crossbar.h (parameters xbar.*, read here only).
//
// Cycle rules (they make the crossbar give the cycles it gave when it was
// stepped inside the L2's own method):
// - an SM request that arrived during cycle c is admitted from c + 1 into
//   its SM port's input queue (xbar.input_queue requests; beyond, END_REQ is
//   withheld), in the target port's order (oldest first, then by SM);
// - each cycle, round-robin over the SM ports from port (cycle mod ports),
//   the head request crosses if both crossbar ports are free and its slice
//   had room in its input queue at the start of this cycle (the slice says,
//   through CrossbarTargets, counting requests it took this cycle); it is
//   sent at once with the cycle it reaches the slice as annotated delay, and
//   the slice takes it on the return path (TLM_UPDATED, END_REQ);
// - an answer a slice sends (BEGIN_RESP) in cycle d enters the answer
//   crossbar as of cycle d, processed from d + 1, and reaches the SM as
//   BEGIN_RESP in the cycle it arrives.
// Every cycle number is the cycle of the clock the crossbar shares with the
// slices (clock.l2_mhz).
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "gpu/crossbar.h"
#include "gpu/crossbar_params.h"
#include "sim/at_initiator_port.h"
#include "sim/at_target_port.h"
#include "sim/clock.h"
#include "sim/clocked_method.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/stats.h"
#include "sim/waveform.h"

namespace tessera::gpu {

// What the crossbar (and a network in front of the L2) asks of the targets
// it connects: how many there are and their clock, which target serves an
// address, and whether a target's input queue had room at the start of a
// cycle (counting the requests it took in that cycle). A direct call, because
// the answer must hold for the start of the cycle whatever order SystemC
// runs the two modules' methods in. An sc_interface: a target offers it at
// its socket (platform::Component::interfaces), as it would to an sc_port.
class CrossbarTargets : public virtual sc_core::sc_interface {
 public:
  virtual unsigned targets() const = 0;
  virtual const sim::ClockDomain& targets_clock() const = 0;
  virtual unsigned target_of(uint64_t address) const = 0;
  virtual bool has_room(unsigned target, uint64_t cycle) const = 0;
};

class CrossbarInterconnect : public sc_core::sc_module, public sim::InFlightReporter {
 public:
  using TargetPort = sim::AtTargetPort<CrossbarInterconnect>;
  using InitiatorPort = sim::AtInitiatorPort<CrossbarInterconnect>;

 private:
  TargetPort requesters_;
  InitiatorPort targets_;

 public:
  decltype(requesters_.socket)& target_socket = requesters_.socket;
  decltype(targets_.socket)& initiator_socket = targets_.socket;

  // Statistics: a group named like the module under `stats_parent`.
  CrossbarInterconnect(const sc_core::sc_module_name& name, sim::Config& cfg, const sim::ClockDomain& clock,
                       unsigned requesters, unsigned targets, const CrossbarTargets& map, sim::StatGroup& stats_parent);

  // Registers its waveform signals (nullptr: no tracing), during
  // elaboration. Under chip.<name>, request direction: per SM port I
  // inI.valid (1 in the cycle a request starts crossing from the port),
  // inI.dest (its slice port), inI.queue (requests admitted to the port's
  // input queue, at the end of the cycle); per slice port O outO.valid (1
  // in the cycle a request starts crossing into it; the same cycle as the
  // in port's valid) and outO.src (its SM port).
  void set_waveform(sim::Waveform* wave);

  bool idle() const;
  std::string describe_in_flight() const override;

 private:
  struct Origin {
    int requester;
    sc_core::sc_time since;
  };
  struct Answer {
    unsigned target;
    tlm::tlm_generic_payload* gp;
    sc_core::sc_time at;
  };
  struct Delivery {
    uint64_t cycle;
    uint64_t seq;  // keeps same-cycle deliveries in the order they were sent
    tlm::tlm_generic_payload* gp;
    bool operator>(const Delivery& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };

  void on_request(const TargetPort::Request& r);
  void on_answer(unsigned target, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  void cycle();
  void admit();
  void forward(uint64_t now);
  void collect(uint64_t now);
  void deliver(uint64_t now);
  uint64_t next_cycle(uint64_t now) const;
  void trace_crossing(unsigned in, unsigned out, uint64_t now);
  void trace_cycle(uint64_t now);
  static unsigned request_bytes(const tlm::tlm_generic_payload& gp);
  static unsigned answer_bytes(const tlm::tlm_generic_payload& gp);

  const sim::ClockDomain& clock_;
  CrossbarParams params_;
  const CrossbarTargets& map_;
  Crossbar requests_, answers_;
  std::vector<std::deque<tlm::tlm_generic_payload*>> input_;      // per SM port, admitted
  std::unordered_map<tlm::tlm_generic_payload*, Origin> origin_;  // each request in flight
  std::vector<Answer> answers_in_;                                // from the targets, not yet sent on
  std::vector<Answer> answers_later_;
  std::priority_queue<Delivery, std::vector<Delivery>, std::greater<Delivery>> deliveries_;
  uint64_t seq_ = 0;
  sim::ClockedMethod clocked_;
  sim::StatGroup stats_;
  uint64_t request_bytes_ = 0, answer_bytes_ = 0, port_stall_cycles_ = 0;

  // Waveform (null: off). A strobe set in cycle c returns to 0 in the
  // activation of cycle c + 1, which the crossbar then plans.
  struct PortWave {
    int valid = -1, value = -1, queue = -1;  // value: dest (in) or src (out)
    uint64_t value_v = 0, queue_v = 0;
    bool high = false;
  };
  sim::Waveform* wave_ = nullptr;
  std::vector<PortWave> in_waves_, out_waves_;
  std::vector<PortWave*> high_;  // strobes set in the last traced cycle
  uint64_t wave_ps_ = 0;         // the current activation's time, ps
};

}  // namespace tessera::gpu
