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
// AT phases as in gpu::GlobalMemory: the requester's BEGIN_REQ is answered
// with END_REQ once its network interface has room (noc.ni_queue packets
// waiting), otherwise END_REQ is withheld (back-pressure); the response comes
// as BEGIN_RESP on the backward path and ends with END_RESP or
// TLM_COMPLETED. Towards a target the interconnect is an AT initiator and
// waits for END_REQ before sending that target the next request.
//
// One SC_METHOD on the interconnect clock steps the whole network; it sleeps
// while the network is empty and nothing waits (with noc.skip_idle=false it
// ticks every cycle instead, with identical results). Anything arriving at
// instant t takes effect at the first clock edge after t, so the result does
// not depend on the order in which SystemC runs processes.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "noc/network.h"
#include "noc/noc_params.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/run_control.h"
#include "sim/stats.h"

namespace tessera::noc {

class NocInterconnect : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<NocInterconnect> target_socket;
  tlm_utils::multi_passthrough_initiator_socket<NocInterconnect> initiator_socket;

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

  const Network& network() const { return *net_; }
  const sim::ClockDomain& clock() const { return clock_; }
  // Flits of a request or response packet for `bytes` of data.
  int request_flits(const tlm::tlm_generic_payload& gp) const;
  int response_flits(const tlm::tlm_generic_payload& gp) const;

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

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void start_of_simulation() override;
  void tick();
  void wake();
  void admit_requests(uint64_t cycle);
  void send_responses_into_network(uint64_t cycle);
  void issue_to_targets();
  void return_responses();
  void finish(tlm::tlm_generic_payload* gp);
  bool busy() const;

  sim::ClockDomain clock_;
  NocParams params_;
  int ni_queue_;
  std::vector<int> requester_nodes_, target_nodes_;
  AddressMap address_map_;
  sim::RunControl* run_control_;
  std::unique_ptr<sim::StatGroup> stats_;
  std::unique_ptr<Network> net_;
  sc_core::sc_event wake_event_;
  bool ticking_ = false;

  std::unordered_map<uint64_t, Transaction> transactions_;  // by packet tag
  std::unordered_map<tlm::tlm_generic_payload*, uint64_t> tag_of_;
  uint64_t next_tag_ = 0;
  std::vector<Arrival> request_arrivals_;   // BEGIN_REQ from requesters, END_REQ withheld
  std::vector<Arrival> response_arrivals_;  // BEGIN_RESP from targets
  std::vector<std::deque<tlm::tlm_generic_payload*>> to_target_;     // delivered requests per target
  std::vector<bool> target_busy_;                                    // BEGIN_REQ sent, END_REQ not yet
  std::vector<const tlm::tlm_generic_payload*> target_waiting_;      // the request awaiting END_REQ
  std::vector<sc_core::sc_time> target_free_since_;                  // when its END_REQ came
  std::vector<std::deque<tlm::tlm_generic_payload*>> to_requester_;  // delivered responses per requester
  std::vector<bool> requester_busy_;                                 // BEGIN_RESP sent, END_RESP not yet
  std::vector<sc_core::sc_time> requester_free_since_;               // when its END_RESP came

  uint64_t requests_ = 0, responses_ = 0, backpressure_cycles_ = 0, latency_sum_cycles_ = 0;
  std::unordered_map<tlm::tlm_generic_payload*, uint64_t> begin_cycle_;
};

}  // namespace tessera::noc
