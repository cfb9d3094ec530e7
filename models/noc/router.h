// An input-queued virtual-channel router (Dally & Towles ch. 16). Each input
// VC walks a head flit through route computation (RC), VC allocation (VA)
// and switch allocation (SA); body and tail flits follow through SA on the
// VC the head won. Each stage takes its own delay; a flit granted the switch
// at cycle t leaves its buffer through the switch at t + sa, is present in
// the next buffer from t + sa + st + link (ejection delay on the local port),
// and the credit for the slot it left is usable upstream from
// t + sa + credit.
//
// A router only reads its own state, flits and credits stamped for earlier
// cycles, and flits its own network interface injected earlier in the same
// cycle, so the order in which the network steps routers does not matter.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "noc/allocator.h"
#include "noc/channel.h"
#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/routing.h"
#include "noc/topology.h"
#include "sim/stats.h"

namespace tessera::noc {

class Router;
class NocWaves;

// Where a flit sent on an output port goes: a model router's input port
// (placed straight into its VC buffer), or a queue its owner drains (a
// network interface's ejection queue, a co-simulated router's input).
struct FlitTarget {
  Router* router = nullptr;
  int port = 0;
  std::deque<Flit>* queue = nullptr;
  inline void deliver(const Flit& f) const;
};

class Router {
 public:
  Router(int id, const NocParams& p, const Topology& topo, const RoutingFunction& routing);

  // Wiring, done once by the network: where flits sent on an output port
  // go, and where credits for an input port's buffers go.
  void connect_output(int port, FlitTarget target) { targets_[port] = target; }
  void connect_upstream(int in_port, OutputChannel* upstream) { upstream_[in_port] = upstream; }
  OutputChannel& output(int port) { return outputs_[port]; }

  // A flit arriving on an input port; it is present from flit.ready_cycle.
  void receive(int in_port, const Flit& f) {
    const int index = in_port * vcs_ + f.vc;
    inputs_[index].buf.push(f);
    occupied_[index / 64] |= uint64_t{1} << (index % 64);
    ++buffered_;
    if (waves_) trace_arrival(index, f);
  }
  // Traces its flits and buffers into `waves` (nullptr: no tracing).
  void set_waves(NocWaves* waves) { waves_ = waves; }

  // One cycle. Returns the number of flits sent through the switch.
  int step(uint64_t now);

  int id() const { return id_; }
  int buffered() const { return buffered_; }
  // One line per input VC holding flits: what it waits for (deadlock report).
  void describe_waiting(uint64_t now, std::vector<std::string>& lines) const;

  void register_stats(sim::StatGroup& group) const;
  uint64_t flits_switched() const { return flits_switched_; }
  uint64_t link_flits() const { return link_flits_; }  // switched onto router-to-router links
  uint64_t va_conflicts() const { return va_conflicts_; }
  uint64_t sa_conflicts() const { return sa_conflicts_; }

 private:
  enum class State : uint8_t { kIdle, kRouting, kVcAlloc, kActive };
  struct InputVc {
    FlitBuffer buf;
    State state = State::kIdle;
    uint64_t stage_ready = 0;  // cycle the current stage's result is usable
    Route route;
    int out_port = -1, out_vc = -1;
  };

  void route_and_request_vcs(uint64_t now);
  void grant_vcs(uint64_t now);
  void request_switch(uint64_t now);
  int traverse_switch(uint64_t now);
  void send(int ivc_index, uint64_t now);
  void trace_arrival(int index, const Flit& f);
  // Calls fn(index) for every input VC holding flits, in index order.
  template <typename Fn>
  void for_each_occupied(Fn fn) {
    for (size_t w = 0; w < occupied_.size(); ++w) {
      for (uint64_t bits = occupied_[w]; bits != 0; bits &= bits - 1)
        fn(static_cast<int>(w * 64) + __builtin_ctzll(bits));
    }
  }

  int id_;
  const NocParams& p_;
  const Topology& topo_;
  const RoutingFunction& routing_;
  int ports_, vcs_;
  std::vector<InputVc> inputs_;     // port * vcs + vc
  std::vector<uint64_t> occupied_;  // bit per input VC: buffer not empty
  // Per input VC (port * vcs + vc), precomputed to keep divisions off the
  // per-cycle path: its port, its VC number and its switch input.
  std::vector<int> port_of_, vc_of_, switch_input_of_;
  std::vector<char> local_;               // per port: leads to a network interface (not a link)
  std::vector<uint64_t> link_delay_;      // per output port: cycles on its channel
  std::vector<uint64_t> credit_delay_;    // per input port: switch grant to credit usable upstream
  std::vector<OutputChannel> outputs_;    // per output port
  std::vector<FlitTarget> targets_;       // per output port
  std::vector<OutputChannel*> upstream_;  // per input port: where its credits go
  std::unique_ptr<Allocator> va_, sa_;
  std::vector<std::vector<int>> sa_requesters_;  // per switch input: input VCs requesting
  std::vector<int> sa_vc_pointer_;               // per switch input: round-robin over its VCs
  int buffered_ = 0;
  NocWaves* waves_ = nullptr;

  uint64_t flits_switched_ = 0, link_flits_ = 0, va_conflicts_ = 0, sa_conflicts_ = 0;
};

void FlitTarget::deliver(const Flit& f) const {
  if (router) {
    router->receive(port, f);
  } else {
    queue->push_back(f);
  }
}

}  // namespace tessera::noc
