// Global memory with a fixed latency and a bandwidth, behind a TLM-2.0 AT
// target (the HBM model replaces it). An arbiter admits requests 1 ps after
// the instant they arrive: older waiting requests first, then that instant's
// arrivals by initiator socket, so admission never depends on the order in
// which SystemC ran the initiators. Each admitted request occupies the data
// path for bytes / bytes_per_cycle cycles and its response leaves `latency`
// cycles after its transfer. At most `queue_depth` requests are in service;
// the others wait without END_REQ (back-pressure).
#pragma once

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>

#include <deque>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/stats.h"

namespace tessera::gpu {

class GlobalMemory : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<GlobalMemory> socket;

  GlobalMemory(const sc_core::sc_module_name& name, sim::Config& cfg, sim::BackingMemory& backing,
               sim::StatGroup& stats_parent);

  const sim::ClockDomain& clock() const { return clock_; }
  uint64_t in_service() const { return in_service_; }
  uint64_t requests() const { return reads_ + writes_; }
  double avg_latency_cycles() const {
    return requests() ? static_cast<double>(latency_sum_cycles_) / static_cast<double>(requests()) : 0.0;
  }

 private:
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  struct Request {
    int id;  // initiator socket
    tlm::tlm_generic_payload* gp;
    sc_core::sc_time arrival;
  };
  void arbitrate();
  void accept(const Request& r);
  void respond();
  void finish(tlm::tlm_generic_payload& gp);
  void perform(tlm::tlm_generic_payload& gp);

  sim::BackingMemory& backing_;
  sim::ClockDomain clock_;
  unsigned latency_;
  double bytes_per_cycle_;
  unsigned queue_depth_;
  sc_core::sc_time channel_free_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> ready_;
  sc_core::sc_event ready_event_;
  std::unordered_map<tlm::tlm_generic_payload*, int> origin_;
  std::vector<Request> arrivals_;  // since the last arbitration
  std::deque<Request> waiting_;    // END_REQ withheld
  sc_core::sc_event arbitrate_;
  uint64_t in_service_ = 0;

  sim::StatGroup stats_;
  uint64_t reads_ = 0, writes_ = 0, bytes_ = 0, backpressure_ = 0, latency_sum_cycles_ = 0;
};

}  // namespace tessera::gpu
