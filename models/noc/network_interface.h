// A node's network interface: an unbounded source queue of packets (as in
// BookSim, so offered load is never throttled by the network), sending one
// flit per cycle into its router's local input port under credit flow
// control, and reassembling the flits its router ejects.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "noc/channel.h"
#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/router.h"

namespace tessera::noc {

class FlitChecker;

struct Delivery {
  Packet packet;
  uint64_t arrival_cycle = 0;  // cycle the tail reached the interface
  int hops = 0;                // router-to-router links traversed
  uint64_t latency() const { return arrival_cycle - packet.create_cycle; }
};

class NetworkInterface {
 public:
  // `router`: the local input port of the node's router.
  NetworkInterface(int node, const NocParams& p, FlitTarget router, FlitChecker* checker);

  // A packet written into the source queue in cycle `now`; its head may
  // leave it from now + noc.delay.source_queue.
  void enqueue(const Packet& packet, uint64_t now) {
    source_.push_back(Queued{packet, now + static_cast<uint64_t>(p_.delay.source_queue)});
  }
  // Sends at most one flit into the router; returns the flits sent.
  int inject(uint64_t now);
  // Takes the flits that have arrived; completed packets go to `out`.
  int eject(uint64_t now, std::vector<Delivery>& out);
  // Where the router's ejection port puts flits.
  FlitTarget ejection() { return FlitTarget{nullptr, 0, &arriving_}; }

  bool idle() const { return source_.empty() && arriving_.empty(); }
  size_t source_queue_packets() const { return source_.size(); }
  OutputChannel& injection() { return injection_; }

 private:
  int node_;
  const NocParams& p_;
  FlitTarget router_;
  FlitChecker* checker_;
  OutputChannel injection_;
  struct Queued {
    Packet packet;
    uint64_t ready;  // first cycle its head may leave the queue
  };
  std::deque<Queued> source_;
  int sent_flits_ = 0;  // of the packet at the front of source_
  int vc_ = -1;         // the local-port VC it was given
  int vc_pointer_ = 0;  // round robin over the class's VCs
  std::deque<Flit> arriving_;
};

}  // namespace tessera::noc
