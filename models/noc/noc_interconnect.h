// The network as a TLM-2.0 interconnect of the chip. Requesters (SMs, the
// control-core bridge) bind to target_socket; targets (L2 slices) are bound
// from initiator_socket. A request becomes a packet from the requester's
// node to the target's node (message class 0); the target's response
// becomes a packet back (class 1), so requests and responses never share a
// VC. A read request is one header flit; a write request and a read response
// carry the data after the header, noc.flit_bytes per flit. Transactions
// longer than a cache line (sim::PayloadPool::kMaxBytes) get
// TLM_BURST_ERROR_RESPONSE and addresses no target serves
// TLM_ADDRESS_ERROR_RESPONSE, from the interconnect, without the network.
//
// AT phases through the shared ports: towards requesters a sim::AtTargetPort
// (the requester's BEGIN_REQ is answered with END_REQ once its network
// interface has room, noc.ni_queue packets waiting, otherwise END_REQ is
// withheld: back-pressure; the response goes as BEGIN_RESP, one at a time
// per requester, and ends with END_RESP or TLM_COMPLETED). Towards targets a
// sim::AtInitiatorPort: the next request to a target waits for the previous
// one's END_REQ.
//
// One SC_METHOD on the interconnect clock steps the whole network
// (sim::ClockedMethod); it sleeps while the network is empty and nothing
// waits (with noc.skip_idle=false it ticks every cycle instead, with
// identical results). Anything arriving at instant t takes effect at the
// first clock edge after t, so the result does not depend on the order in
// which SystemC runs processes; requests that arrived in the same instant
// enter the network in the target port's order (socket index).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "noc/network.h"
#include "noc/noc_params.h"
#include "noc/noc_waves.h"
#include "sim/at_initiator_port.h"
#include "sim/at_target_port.h"
#include "sim/clock.h"
#include "sim/clocked_method.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/waveform.h"

namespace tessera::noc {

class NocInterconnect : public sc_core::sc_module, public sim::InFlightReporter {
 public:
  using TargetPort = sim::AtTargetPort<NocInterconnect>;
  using InitiatorPort = sim::AtInitiatorPort<NocInterconnect>;

 private:
  std::vector<int> requester_nodes_, target_nodes_;
  TargetPort requesters_;
  InitiatorPort targets_;

 public:
  decltype(requesters_.socket)& target_socket = requesters_.socket;
  decltype(targets_.socket)& initiator_socket = targets_.socket;

  // Index of the target (initiator_socket binding) serving an address.
  using AddressMap = std::function<int(uint64_t address)>;

  // Reads the noc.* parameters, clock.icnt_mhz and noc.ni_queue.
  // requester_nodes[i]: the node of the i-th binding of target_socket;
  // target_nodes[j]: the node of the j-th binding of initiator_socket.
  // A network deadlock (the watchdog) is recorded in `run_control` and stops
  // the simulation; without one it is reported as a SystemC error.
  NocInterconnect(const sc_core::sc_module_name& name, sim::Config& cfg, std::vector<int> requester_nodes,
                  std::vector<int> target_nodes, AddressMap address_map, sim::StatGroup& stats_parent,
                  sim::RunControl* run_control = nullptr);

  // Registers its waveform signals (noc/noc_waves.h; per network interface
  // N: chip.noc.niN.inject_queue, packets in the source queue, and
  // eject_queue, packets delivered to the node and not yet handed to its
  // endpoint) and its clock. nullptr: no tracing. During elaboration.
  void set_waveform(sim::Waveform* wave);

  const Network& network() const { return *net_; }
  const sim::ClockDomain& clock() const { return clock_; }
  // Flits of a request or response packet for `bytes` of data.
  int request_flits(const tlm::tlm_generic_payload& gp) const;
  int response_flits(const tlm::tlm_generic_payload& gp) const;
  std::string describe_in_flight() const override;

 private:
  struct Transaction {
    tlm::tlm_generic_payload* gp = nullptr;
    int requester = 0;  // target_socket index
    int target = 0;     // initiator_socket index
  };
  struct Arrival {
    sc_core::sc_time time;
    int socket;
    tlm::tlm_generic_payload* gp;
  };

  void on_request(const TargetPort::Request& r);
  void on_response_done(tlm::tlm_generic_payload& gp, int requester);
  void on_answer(unsigned target, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  void on_end_req(unsigned target);
  TargetPort::Admit admit(const TargetPort::Request& r, uint64_t cycle);
  void start_of_simulation() override;
  void tick();
  void wake();
  void admit_requests(uint64_t cycle);
  void send_responses_into_network(uint64_t cycle);
  void issue_to_targets();
  void return_responses();
  void finish(tlm::tlm_generic_payload* gp);
  bool busy() const;
  void trace_waves(uint64_t cycle);

  sim::ClockDomain clock_;
  NocParams params_;
  int ni_queue_;
  AddressMap address_map_;
  sim::RunControl* run_control_;
  std::unique_ptr<sim::StatGroup> stats_;
  std::unique_ptr<Network> net_;
  sim::ClockedMethod clocked_;
  // While the method runs every cycle anyway, arrivals plan no wake-up of
  // their own. With noc.skip_idle the network is stepped only in cycles
  // with something in it (cycles_stepped) and skipped in the others
  // (cycles_skipped), whenever the method runs.
  bool ticking_ = false;
  bool mismatched_ = false;  // a lockstep router disagreed with its model

  std::unordered_map<uint64_t, Transaction> transactions_;  // by packet tag
  std::unordered_map<tlm::tlm_generic_payload*, uint64_t> tag_of_;
  uint64_t next_tag_ = 0;
  std::vector<Arrival> response_arrivals_;                           // BEGIN_RESP from targets
  std::vector<std::deque<tlm::tlm_generic_payload*>> to_target_;     // delivered requests per target
  std::vector<std::deque<tlm::tlm_generic_payload*>> to_requester_;  // delivered responses per requester
  std::vector<bool> requester_busy_;                                 // BEGIN_RESP sent, END_RESP not yet
  std::vector<sc_core::sc_time> requester_free_since_;               // when its END_RESP came

  uint64_t requests_ = 0, responses_ = 0, backpressure_cycles_ = 0, latency_sum_cycles_ = 0;
  std::unordered_map<tlm::tlm_generic_payload*, uint64_t> begin_cycle_;

  // Waveform (null: off).
  struct NiWave {
    int inject = -1, eject = -1;
    uint64_t inject_v = 0, eject_v = 0;
    std::vector<unsigned> targets, requesters;  // endpoints at the node
  };
  sim::Waveform* wave_ = nullptr;
  std::unique_ptr<NocWaves> waves_;
  std::vector<NiWave> ni_waves_;  // per node
};

}  // namespace tessera::noc
