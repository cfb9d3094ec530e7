// Memory with a fixed latency and a bandwidth, behind a TLM-2.0 AT target
// (sim::AtTargetPort); HBM (dram::HbmMemory) is the detailed alternative
// behind the same protocol. Parameters under `memory.`.
//
// The port holds arriving requests; an arbiter admits them 1 ps after the
// instant they arrive, in the port's order (oldest first, then by initiator
// socket), so admission never depends on the order in which SystemC ran the
// initiators. Each admitted request occupies the data path for
// bytes / bytes_per_cycle cycles and its response leaves `latency` cycles
// after its transfer. At most `queue_depth` requests are in service; the
// others wait without END_REQ (back-pressure).
#pragma once

#include <tlm_utils/peq_with_get.h>

#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>

#include "sim/at_target_port.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/stats.h"
#include "sim/waveform.h"

namespace tessera::gpu {

class FixedLatencyMemory : public sc_core::sc_module, public sim::InFlightReporter {
 public:
  using Port = sim::AtTargetPort<FixedLatencyMemory>;

 private:
  Port port_;

 public:
  decltype(port_.socket)& socket = port_.socket;

  FixedLatencyMemory(const sc_core::sc_module_name& name, sim::Config& cfg, sim::BackingMemory& backing,
                     sim::StatGroup& stats_parent);

  const sim::ClockDomain& clock() const { return clock_; }
  uint64_t in_service() const { return in_service_; }
  uint64_t requests() const { return reads_ + writes_; }
  double avg_latency_cycles() const {
    return requests() ? static_cast<double>(latency_sum_cycles_) / static_cast<double>(requests()) : 0.0;
  }
  std::string describe_in_flight() const override;
  // Traces `outstanding` (requests in service; scope <name>). Call during
  // elaboration; null traces nothing.
  void set_waveform(sim::Waveform* wave);

 private:
  void trace_outstanding();
  struct InService {
    int socket;
    sc_core::sc_time arrival;
  };
  void on_arrival(const Port::Request& r);
  void on_response_done(tlm::tlm_generic_payload& gp, int socket);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void arbitrate();
  void accept(const Port::Request& r);
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
  std::unordered_map<tlm::tlm_generic_payload*, InService> origin_;
  sc_core::sc_event arbitrate_;
  uint64_t in_service_ = 0;
  sim::Waveform* wave_ = nullptr;
  int outstanding_id_ = -1;

  sim::StatGroup stats_;
  uint64_t reads_ = 0, writes_ = 0, bytes_ = 0, backpressure_ = 0, latency_sum_cycles_ = 0;
};

}  // namespace tessera::gpu
