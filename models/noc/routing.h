// Routing functions: given the router a head flit is in, the output ports it
// may take and, for each, the range of output VCs it may claim.
//
// VCs of a port are split into one contiguous set per message class, so a
// request can never wait for a VC a response holds (no protocol deadlock).
// Within a class:
//  - dimension order on a ring/torus (noc.wrap_rule, WrapRule): by default
//    as BookSim2's dim_order_torus, a packet whose path in a dimension
//    crosses the dateline (the wrap-around link) uses the upper half of the
//    class's VCs in that whole dimension, the others the lower half. Lower-
//    half channels never carry a packet over the wrap link, and a minimal
//    path crossing it is at most k/2 hops, so the upper-half channels that
//    depend on each other span fewer than k links: neither half closes the
//    ring's cycle (Dally & Towles, "Principles and Practices of
//    Interconnection Networks", ch. 14). With plus_tie the lower half
//    carries packets that still have to cross, the upper half the others;
//  - minimal adaptive: escape VCs (one, or a dateline pair on a ring/torus)
//    route in dimension order, the other VCs may take any productive port
//    (or only those a turn model allows: west-first, odd-even).
//    A packet can always fall back on an escape VC, whose channel dependency
//    graph is acyclic, so the network is deadlock free (Duato's protocol).
#pragma once

#include <array>
#include <memory>

#include "noc/channel.h"
#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/topology_grid.h"

namespace tessera::noc {

// SplitMix64's output function (Steele, Lea & Flood, "Fast Splittable
// Pseudorandom Number Generators", OOPSLA 2014): the routing functions'
// stand-in for BookSim2's RandomInt, a pure function of the packet id so
// every router agrees and a run is reproducible.
inline uint64_t mix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct RouteOption {
  int port = 0;
  int vc_lo = 0, vc_hi = 0;  // inclusive range of output VCs
  bool escape = false;
};

struct Route {
  std::array<RouteOption, 6> options{};
  int count = 0;
  void add(int port, int lo, int hi, bool escape = false) { options[count++] = RouteOption{port, lo, hi, escape}; }
};

// What a routing function may read of the router it runs in: how many
// flits sit in (or are on their way to) the downstream buffers of each
// output port, BookSim2's Router::GetUsedCredit. No outputs: all empty.
struct OutputLoad {
  const std::vector<OutputChannel>* outputs = nullptr;
  int used_credits(int port) const {
    if (!outputs) return 0;
    const OutputChannel& o = (*outputs)[static_cast<size_t>(port)];
    if (o.sink()) return 0;
    int used = 0;
    for (int vc = 0; vc < o.vcs(); ++vc) used += o.depth() - o.vc(vc).credits;
    return used;
  }
};

// Given the router a head flit is in, the output ports it may take and, for
// each, the range of output VCs it may claim. A routing function may record
// a decision in the head (Flit::phase, Flit::intermediate); the head carries
// it to the next router.
class RoutingFunction {
 public:
  virtual ~RoutingFunction() = default;
  void route(int router, Flit& head, Route& out, const OutputLoad& load) const { compute(router, head, out, load); }
  // As if every output queue were empty.
  void route(int router, Flit& head, Route& out) const { compute(router, head, out, OutputLoad{}); }
  // Whether every packet takes a minimal path (UGAL's Valiant paths do not).
  virtual bool minimal() const { return true; }

 private:
  virtual void compute(int router, Flit& head, Route& out, const OutputLoad& load) const = 0;
};

// The grids' routing functions: dimension order and its VC sets.
class GridRouting : public RoutingFunction {
 public:
  GridRouting(const NocParams& p, const GridTopology& topo);

 protected:
  int class_base(int cls) const { return cls * per_class_; }
  // The dimension-order port from `node` towards the head's destination
  // (kLocal when there).
  int dor_port(int node, const Flit& head) const;
  // Half-way round a ring both directions are minimal. BookSim2 picks one at
  // random per packet and dimension (dor_next_torus: RandomInt(1)); a hash
  // of the packet id picks it here, so a run is reproducible and every
  // router on the path agrees without state in the flit.
  static bool tie_goes_plus(uint64_t packet_id, int dim);
  // Adds the dimension-order hop using VCs [first, first + count) of the
  // class, split at the dateline when the topology wraps.
  void add_dor(int node, const Flit& head, int first, int count, bool escape, Route& out) const;

  const GridTopology& topo_;
  int per_class_;
  bool dateline_;
  bool random_tie_;  // WrapRule::kRandomTie on a topology that wraps
};

class DimensionOrderRouting : public GridRouting {
 public:
  using GridRouting::GridRouting;

 private:
  void compute(int node, Flit& head, Route& out, const OutputLoad& load) const override;
};

class MinimalAdaptiveRouting : public GridRouting {
 public:
  MinimalAdaptiveRouting(const NocParams& p, const GridTopology& topo);
  int escape_vcs() const { return escape_vcs_; }

 private:
  void compute(int node, Flit& head, Route& out, const OutputLoad& load) const override;
  // Productive ports the turn model allows (all when minimal).
  void add_adaptive_ports(int node, const Flit& head, int lo, int hi, Route& out) const;
  void add_odd_even_ports(int node, const Flit& head, int lo, int hi, Route& out) const;

  int escape_vcs_;  // per class, at the bottom of the class's range
  AdaptivePolicy policy_;
};

// The routing function noc.routing names on `topo` (topo.make_routing).
inline std::unique_ptr<RoutingFunction> make_routing(const NocParams& p, const Topology& topo) {
  return topo.make_routing(p);
}

}  // namespace tessera::noc
