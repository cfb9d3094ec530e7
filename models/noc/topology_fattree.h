// The fat tree of BookSim2's `fattree` (networks/fattree.cpp): a k-ary
// n-tree (Petrini & Vanneschi, IPPS 1997), k^n nodes, n levels of k^(n-1)
// routers with 2k ports: 0..k-1 down (towards the nodes), k..2k-1 up.
// Routers are numbered level * k^(n-1) + position, level 0 at the top, as
// BookSim2 numbers them. Writing a position as n-1 base-k digits (most
// significant first), router (l, w) links down port j to router
// (l+1, w with digit l set to j), which it reaches on up port k + w_l; a
// leaf's down port j is node w * k + j. The top level's up ports are unused.
//
// Routing "nca" (nearest common ancestor, BookSim2's nca_fattree): up
// through a pseudo-random up port (a hash of the packet id and the level;
// BookSim2 draws RandomInt) until the router's subtree holds the
// destination, then down by the destination's digits. Up*/down* paths never
// turn from down to up, so the channel dependencies are acyclic with any
// VC: every VC of the message class is usable on every hop.
#pragma once

#include <fmt/format.h>

#include <vector>

#include "noc/routing.h"
#include "noc/topology.h"

namespace tessera::noc {

class FatTreeTopology : public Topology {
 public:
  FatTreeTopology(int k, int n);
  explicit FatTreeTopology(const NocParams& p) : FatTreeTopology(p.k, p.n) {}

  int k() const { return k_; }
  int levels() const { return n_; }
  int level(int router) const { return router / per_level_; }
  int position(int router) const { return router % per_level_; }
  int router_at(int level, int position) const { return level * per_level_ + position; }
  // Digit i (0: most significant) of a node number (n digits) or of a
  // router position (n - 1 digits).
  int node_digit(int node, int i) const { return node / pow_[n_ - 1 - i] % k_; }
  int position_digit(int position, int i) const { return position / pow_[n_ - 2 - i] % k_; }
  // Whether `node` is below router (level, position): the first `level`
  // digits agree.
  bool covers(int router, int node) const;

  PortRef attachment(int node) const override { return PortRef{router_at(n_ - 1, node / k_), node % k_}; }
  int terminal(int router, int port) const override;
  PortRef link(int router, int port) const override;
  // 2 x (levels below the nearest common ancestor); 0 on the same leaf.
  int distance(int src, int dst) const override;
  std::string port_name(int router, int port) const override;
  std::string node_name(int node) const override;
  std::string router_name(int router) const override;
  std::string shape() const override { return fmt::format("{}-ary {}-tree", k_, n_); }
  std::unique_ptr<RoutingFunction> make_routing(const NocParams& p) const override;

 private:
  int with_digit(int position, int i, int value) const {
    return position + (value - position_digit(position, i)) * pow_[n_ - 2 - i];
  }

  int k_, n_, per_level_;
  std::vector<int> pow_;  // k^0 .. k^n
};

class NearestCommonAncestorRouting : public RoutingFunction {
 public:
  NearestCommonAncestorRouting(const NocParams& p, const FatTreeTopology& topo);

 private:
  void compute(int router, Flit& head, Route& out, const OutputLoad& load) const override;
  const FatTreeTopology& topo_;
  int per_class_;
};

// Registers "fattree".
void register_fat_tree(std::vector<TopologyInfo>& registry);

}  // namespace tessera::noc
