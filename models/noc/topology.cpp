#include "noc/topology.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

namespace tessera::noc {

Topology::Topology(TopologyKind kind, int k, int m) : kind_(kind), k_(k), m_(kind == TopologyKind::kRing ? 1 : m) {
  if (k_ < 2 || m_ < 1) throw std::invalid_argument("topology needs at least 2 routers along x");
}

int Topology::neighbor(int node, int port) const {
  if (port == kLocal) return node;
  const int dim = dim_of(port);
  const int n = extent(dim);
  int c = coord(node, dim) + (positive(port) ? 1 : -1);
  if (c < 0 || c >= n) {
    if (!wraps()) return -1;
    c = (c + n) % n;
  }
  return dim == 0 ? node_at(c, y(node)) : node_at(x(node), c);
}

int Topology::offset(int from, int to, int dim, bool* tie) const {
  const int a = coord(from, dim), b = coord(to, dim);
  if (tie) *tie = false;
  if (!wraps()) return b - a;
  const int n = extent(dim);
  const int forward = ((b - a) % n + n) % n;
  if (tie) *tie = forward != 0 && 2 * forward == n;
  return 2 * forward <= n ? forward : forward - n;
}

int Topology::distance(int src, int dst) const {
  int hops = 0;
  for (int d = 0; d < dims(); ++d) hops += std::abs(offset(src, dst, d));
  return hops;
}

bool Topology::crosses_dateline(int from, int to, int port) const {
  if (!wraps() || port == kLocal) return false;
  const int dim = dim_of(port);
  const int a = coord(from, dim), b = coord(to, dim);
  return positive(port) ? b < a : b > a;
}

std::string Topology::port_name(int port) const {
  static const char* const names[] = {"local", "east(+x)", "west(-x)", "north(+y)", "south(-y)"};
  return port >= 0 && port < 5 ? names[port] : fmt::format("port{}", port);
}

std::string Topology::node_name(int node) const {
  return dims() == 1 ? fmt::format("{}", node) : fmt::format("{}({},{})", node, x(node), y(node));
}

}  // namespace tessera::noc
