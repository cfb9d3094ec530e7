// Routing functions: given the router a head flit is in, the output ports it
// may take and, for each, the range of output VCs it may claim.
//
// VCs of a port are split into one contiguous set per message class, so a
// request can never wait for a VC a response holds (no protocol deadlock).
// Within a class:
//  - dimension order on a ring/torus: the lower half of the VCs carries
//    packets that still have to cross the dateline (the wrap-around link) in
//    the current dimension, the upper half those that do not; this orders the
//    channels of each ring and breaks the wrap-around cycle (Dally & Towles,
//    "Principles and Practices of Interconnection Networks", ch. 14);
//  - minimal adaptive: escape VCs (one, or a dateline pair on a ring/torus)
//    route in dimension order, the other VCs may take any productive port
//    (or only those a turn model allows: west-first, odd-even).
//    A packet can always fall back on an escape VC, whose channel dependency
//    graph is acyclic, so the network is deadlock free (Duato's protocol).
#pragma once

#include <array>
#include <memory>

#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/topology.h"

namespace tessera::noc {

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

class RoutingFunction {
 public:
  RoutingFunction(const NocParams& p, const Topology& topo);
  virtual ~RoutingFunction() = default;
  virtual void route(int node, const Flit& head, Route& out) const = 0;

 protected:
  int class_base(int cls) const { return cls * per_class_; }
  // The dimension-order port from `node` towards `dst` (kLocal when there).
  int dor_port(int node, int dst) const;
  // Adds the dimension-order hop using VCs [first, first + count) of the
  // class, split at the dateline when the topology wraps.
  void add_dor(int node, const Flit& head, int first, int count, bool escape, Route& out) const;

  const Topology& topo_;
  int per_class_;
  bool dateline_;
};

class DimensionOrderRouting : public RoutingFunction {
 public:
  using RoutingFunction::RoutingFunction;
  void route(int node, const Flit& head, Route& out) const override;
};

class MinimalAdaptiveRouting : public RoutingFunction {
 public:
  MinimalAdaptiveRouting(const NocParams& p, const Topology& topo);
  void route(int node, const Flit& head, Route& out) const override;
  int escape_vcs() const { return escape_vcs_; }

 private:
  // Productive ports the turn model allows (all when minimal).
  void add_adaptive_ports(int node, const Flit& head, int lo, int hi, Route& out) const;
  void add_odd_even_ports(int node, const Flit& head, int lo, int hi, Route& out) const;

  int escape_vcs_;  // per class, at the bottom of the class's range
  AdaptivePolicy policy_;
};

std::unique_ptr<RoutingFunction> make_routing(const NocParams& p, const Topology& topo);

}  // namespace tessera::noc
