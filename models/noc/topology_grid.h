// Ring, k x m mesh and k x m torus: the grids. Routers are numbered
// x + k*y, one node per router; port 0 is the local port (network
// interface), then +x, -x, +y, -y. A flit leaving a router on port p enters
// the neighbour on the opposite port (leaving east, it arrives on the
// neighbour's west input). Registered as "ring", "mesh" and "torus" with
// dimension-order and minimal adaptive routing (routing.h).
#pragma once

#include <string>

#include "noc/topology.h"

namespace tessera::noc {

enum Port : int { kLocal = 0, kPlusX = 1, kMinusX = 2, kPlusY = 3, kMinusY = 4 };
enum class GridKind { kRing, kMesh, kTorus };

class GridTopology : public Topology {
 public:
  GridTopology(GridKind kind, int k, int m);
  explicit GridTopology(const NocParams& p);

  GridKind kind() const { return kind_; }
  int k() const { return k_; }
  int m() const { return m_; }
  int dims() const { return m_ > 1 ? 2 : 1; }
  bool wraps() const { return kind_ != GridKind::kMesh; }
  int x(int node) const { return node % k_; }
  int y(int node) const { return node / k_; }
  int node_at(int x, int y) const { return x + k_ * y; }
  int extent(int dim) const { return dim == 0 ? k_ : m_; }
  int coord(int node, int dim) const { return dim == 0 ? x(node) : y(node); }

  // The router reached through `port`, or -1 at a mesh edge.
  int neighbor(int node, int port) const;
  static int opposite(int port) { return port == kLocal ? kLocal : (port % 2 == 1 ? port + 1 : port - 1); }
  static int port_of(int dim, bool positive) { return 1 + 2 * dim + (positive ? 0 : 1); }
  static int dim_of(int port) { return (port - 1) / 2; }
  static bool positive(int port) { return port % 2 == 1; }

  // Signed minimal offset from a to b along a dimension (ties on a ring go
  // the positive way); `tie` reports an offset of exactly half the ring.
  int offset(int from, int to, int dim, bool* tie = nullptr) const;
  // Whether a minimal path from `from` travelling in `port`'s direction to
  // coordinate `to` has to take the wrap-around link (the dateline).
  bool crosses_dateline(int from, int to, int port) const;

  PortRef attachment(int node) const override { return PortRef{node, kLocal}; }
  int terminal(int router, int port) const override { return port == kLocal ? router : -1; }
  PortRef link(int router, int port) const override;
  // Router-to-router hops of a minimal (dimension-order) path.
  int distance(int src, int dst) const override;
  std::string port_name(int router, int port) const override;
  std::string node_name(int node) const override;
  std::string router_name(int router) const override { return node_name(router); }
  std::string shape() const override;
  const GridTopology* grid() const override { return this; }
  std::unique_ptr<RoutingFunction> make_routing(const NocParams& p) const override;

  // Whether the named topology is a ring or torus (dateline VCs apply).
  static bool wraps(const std::string& topology) { return topology == "ring" || topology == "torus"; }

 private:
  GridKind kind_;
  int k_, m_;
};

// Registers "ring", "mesh" and "torus".
void register_grid_topologies(std::vector<TopologyInfo>& registry);

}  // namespace tessera::noc
