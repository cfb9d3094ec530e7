// Ring, k x m mesh and k x m torus. Routers are numbered x + k*y; port 0 is
// the local port (network interface), then +x, -x, +y, -y. A flit leaving a
// router on port p enters the neighbour on the opposite port (leaving east, it
// arrives on the neighbour's west input).
#pragma once

#include <string>

#include "noc/noc_params.h"

namespace tessera::noc {

enum Port : int { kLocal = 0, kPlusX = 1, kMinusX = 2, kPlusY = 3, kMinusY = 4 };

class Topology {
 public:
  Topology(TopologyKind kind, int k, int m);
  explicit Topology(const NocParams& p) : Topology(p.topology, p.k, p.m) {}

  TopologyKind kind() const { return kind_; }
  int k() const { return k_; }
  int m() const { return m_; }
  int nodes() const { return k_ * m_; }
  int dims() const { return m_ > 1 ? 2 : 1; }
  int ports() const { return 1 + 2 * dims(); }
  bool wraps() const { return kind_ != TopologyKind::kMesh; }
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
  // Router-to-router hops of a minimal (dimension-order) path.
  int distance(int src, int dst) const;
  // Whether a minimal path from `from` travelling in `port`'s direction to
  // coordinate `to` still has to take the wrap-around link (the dateline).
  bool crosses_dateline(int from, int to, int port) const;

  std::string port_name(int port) const;
  std::string node_name(int node) const;

 private:
  TopologyKind kind_;
  int k_, m_;
};

}  // namespace tessera::noc
