// The flattened butterfly of BookSim2's `flatfly` (networks/flatfly_onchip.cpp;
// Kim, Dally & Abts, "Flattened Butterfly: A Cost-Efficient Topology for
// High-Radix Networks", ISCA 2007; Kim, Balfour & Dally, "Flattened Butterfly
// Topology for On-Chip Networks", MICRO 2007): k^n routers with coordinates
// in n dimensions of k, each joined directly to the k - 1 others that differ
// from it in one coordinate only, and c nodes (the concentration) per router.
//
// Router r has coordinate d digit d of r in base k (dimension 0 the least
// significant, as BookSim2's flatfly_outport reads them). Node r * c + i is
// attached to port i of router r (BookSim2's numbering after its
// flatfly_transformation; its own node numbers lay a 2-D chip out in rows,
// which only permutes the nodes). Ports c + (k - 1) * d + j lead along
// dimension d to the router whose coordinate there is j, or j + 1 from the
// router's own coordinate on (the port to itself is left out).
//
// Routing:
//  - "min" (BookSim2's ran_min_flatfly): the lowest differing dimension
//    first, one hop per dimension, every VC of the message class. Dimension
//    order makes the channel dependencies acyclic.
//  - "ugal" (BookSim2's ugal_flatfly_onchip): at the source router compare
//    the minimal port's queue (OutputLoad::used_credits) against the port
//    towards a pseudo-random intermediate router -- random coordinates in the
//    dimensions where source and destination differ -- weighted by hop
//    counts: minimal when H_min * q_min <= H_nonmin * q_nonmin +
//    noc.ugal_threshold. A packet sent through the intermediate router uses
//    the lower half of the class's VCs up to it, then the upper half to the
//    destination; a minimal one the upper half throughout. Each half is
//    routed in dimension order and a packet only moves from the lower half
//    to the upper, so neither half, nor their union, has a dependency cycle.
#pragma once

#include <fmt/format.h>

#include <vector>

#include "noc/routing.h"
#include "noc/topology.h"

namespace tessera::noc {

class FlatFlyTopology : public Topology {
 public:
  // k routers per dimension, n dimensions, c nodes per router.
  FlatFlyTopology(int k, int n, int c);
  explicit FlatFlyTopology(const NocParams& p) : FlatFlyTopology(p.k, p.n, p.c) {}

  int k() const { return k_; }
  int dims() const { return n_; }
  int concentration() const { return c_; }
  int router_of(int node) const { return node / c_; }
  int coord(int router, int dim) const { return router / pow_[dim] % k_; }
  int with_coord(int router, int dim, int value) const { return router + (value - coord(router, dim)) * pow_[dim]; }
  // The port of `router` towards the router with coordinate `value` in
  // `dim` (value != coord(router, dim)).
  int port_towards(int router, int dim, int value) const {
    return c_ + (k_ - 1) * dim + (value < coord(router, dim) ? value : value - 1);
  }
  // Dimension-order port from `router` towards router `to` (to != router).
  int next_port(int router, int to) const;
  // Coordinates in which two routers differ: router-to-router hops between them.
  int router_distance(int a, int b) const;

  PortRef attachment(int node) const override { return PortRef{router_of(node), node % c_}; }
  int terminal(int router, int port) const override { return port < c_ ? router * c_ + port : -1; }
  PortRef link(int router, int port) const override;
  int distance(int src, int dst) const override { return router_distance(router_of(src), router_of(dst)); }
  std::string port_name(int router, int port) const override;
  std::string node_name(int node) const override { return fmt::format("{}", node); }
  std::string router_name(int router) const override;
  std::string shape() const override;
  std::unique_ptr<RoutingFunction> make_routing(const NocParams& p) const override;

 private:
  int k_, n_, c_;
  std::vector<int> pow_;  // k^0 .. k^n
};

class FlatFlyMinimalRouting : public RoutingFunction {
 public:
  FlatFlyMinimalRouting(const NocParams& p, const FlatFlyTopology& topo);

 private:
  void compute(int router, Flit& head, Route& out, const OutputLoad& load) const override;

  const FlatFlyTopology& topo_;
  int per_class_;
};

class FlatFlyUgalRouting : public RoutingFunction {
 public:
  // Flit::phase of a packet: not yet decided (at its source router), on
  // its way to the intermediate router, on its way to the destination.
  enum Phase : uint8_t { kUndecided = 0, kToIntermediate = 1, kToDestination = 2 };

  FlatFlyUgalRouting(const NocParams& p, const FlatFlyTopology& topo);
  // The intermediate router UGAL would send a packet from router `src` to
  // router `dst` through.
  int intermediate_router(uint64_t packet_id, int src, int dst) const;
  bool minimal() const override { return false; }

 private:
  void compute(int router, Flit& head, Route& out, const OutputLoad& load) const override;

  const FlatFlyTopology& topo_;
  int per_class_, threshold_;
};

// Registers "flatfly".
void register_flat_fly(std::vector<TopologyInfo>& registry);

}  // namespace tessera::noc
