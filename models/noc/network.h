// The whole network as one object stepped a cycle at a time: routers and
// network interfaces are plain objects (no SystemC process per router or
// VC). Each cycle the interfaces first take arrived flits and inject, then
// every router steps; all traffic between objects is stamped for a later
// cycle, so the result does not depend on the order objects are stepped.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "noc/cosim_router.h"
#include "noc/flit_checker.h"
#include "noc/network_interface.h"
#include "noc/noc_params.h"
#include "noc/router.h"
#include "noc/routing.h"
#include "noc/topology.h"
#include "sim/stats.h"

namespace tessera::noc {

// No flit moved for noc.watchdog_cycles while flits were buffered.
class DeadlockError : public std::runtime_error {
 public:
  DeadlockError(const std::string& report, std::vector<std::string> waiting)
      : std::runtime_error(report), waiting_(std::move(waiting)) {}
  const std::vector<std::string>& waiting() const { return waiting_; }

 private:
  std::vector<std::string> waiting_;
};

class Network {
 public:
  explicit Network(const NocParams& params, sim::StatGroup* stats_parent = nullptr);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;
  ~Network();

  const NocParams& params() const { return p_; }
  const Topology& topology() const { return *topo_; }
  const RoutingFunction& routing() const { return *routing_; }
  uint64_t now() const { return now_; }

  // Queues a packet at its source interface; assigns and returns its id.
  uint64_t enqueue(Packet packet);
  // Simulates cycle now() and advances to the next. Throws DeadlockError,
  // and rtl::LockstepMismatch when a lockstep router's RTL disagrees.
  void step();
  // Appends every packet enqueued from now on (with its id) to `log`
  // (nullptr: stop); the measurement loop learns the packets it measures.
  void set_enqueue_log(std::vector<Packet>* log) { enqueue_log_ = log; }
  // Packets whose tails arrived during the last step.
  const std::vector<Delivery>& delivered() const { return delivered_; }
  // Nothing buffered, queued or on a link (credits may still be returning:
  // they change nothing a later cycle would not see the same way).
  bool idle() const;
  // Jumps to a later cycle; only legal when idle().
  void advance_to(uint64_t cycle);

  // The RTL routers' signals in the chip's waveform, router n under
  // <scope>.r<n>.rtl (cycle c at c * period_ps).
  void trace_rtl(sim::Waveform& wave, const std::string& scope, uint64_t period_ps);
  // Traces the C++ model routers' links and buffers into `waves` (nullptr:
  // no tracing); co-simulated routers are not traced.
  void set_waves(NocWaves* waves) {
    for (Router* r : model_routers_) r->set_waves(waves);
  }
  bool model_router(int node) const { return routers_[static_cast<size_t>(node)] != nullptr; }

  const FlitChecker* checker() const { return checker_.get(); }
  FlitChecker* checker() { return checker_.get(); }
  uint64_t flits_injected() const { return flits_injected_; }
  uint64_t flits_ejected() const { return flits_ejected_; }
  uint64_t flit_hops() const { return flit_hops_; }
  uint64_t packets_delivered() const { return packets_delivered_; }
  uint64_t packets_enqueued() const { return packets_enqueued_; }
  uint64_t cycles_stepped() const { return cycles_stepped_; }
  uint64_t cycles_skipped() const { return cycles_skipped_; }
  size_t source_queue_packets() const;
  // Packets waiting in (or partly sent from) one node's source queue.
  size_t source_queue_packets(int node) const { return interfaces_[node]->source_queue_packets(); }

 private:
  [[noreturn]] void report_deadlock() const;

  NocParams p_;
  std::unique_ptr<Topology> topo_;
  std::unique_ptr<RoutingFunction> routing_;
  std::unique_ptr<FlitChecker> checker_;
  // Per router, the C++ model or a co-simulated router (noc.router_impl).
  std::vector<std::unique_ptr<Router>> routers_;
  std::vector<std::unique_ptr<CosimRouter>> cosim_;
  std::vector<Router*> model_routers_;  // stepped without a virtual call
  std::vector<CosimRouter*> cosim_routers_;
  std::vector<std::unique_ptr<NetworkInterface>> interfaces_;
  std::vector<Delivery> delivered_;
  std::vector<Packet>* enqueue_log_ = nullptr;
  uint64_t now_ = 0;
  uint64_t next_packet_id_ = 0;
  uint64_t last_progress_ = 0;
  uint64_t buffered_ = 0;  // flits in router buffers or on links into them
  uint64_t flits_injected_ = 0, flits_ejected_ = 0, flit_hops_ = 0, packets_delivered_ = 0;
  uint64_t packets_enqueued_ = 0, cycles_stepped_ = 0, cycles_skipped_ = 0;
  std::unique_ptr<sim::StatGroup> stats_;
  std::vector<std::unique_ptr<sim::StatGroup>> router_stats_;
};

}  // namespace tessera::noc
