#include "noc/topology_grid.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#include "noc/routing.h"

namespace tessera::noc {

namespace {
const char* const kGridNames[] = {"ring", "mesh", "torus"};

GridKind grid_kind(const std::string& name) {
  if (name == "ring") return GridKind::kRing;
  if (name == "torus") return GridKind::kTorus;
  return GridKind::kMesh;
}
}  // namespace

GridTopology::GridTopology(GridKind kind, int k, int m)
    : Topology(kGridNames[static_cast<int>(kind)], k * (kind == GridKind::kRing ? 1 : m),
               k * (kind == GridKind::kRing ? 1 : m), 1 + 2 * (kind != GridKind::kRing && m > 1 ? 2 : 1)),
      kind_(kind),
      k_(k),
      m_(kind == GridKind::kRing ? 1 : m) {
  if (k_ < 2 || m_ < 1) throw std::invalid_argument("topology needs at least 2 routers along x");
}

GridTopology::GridTopology(const NocParams& p) : GridTopology(grid_kind(p.topology), p.k, p.m) {}

int GridTopology::neighbor(int node, int port) const {
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

PortRef GridTopology::link(int router, int port) const {
  if (port == kLocal) return PortRef{};
  const int next = neighbor(router, port);
  return next < 0 ? PortRef{} : PortRef{next, opposite(port)};
}

int GridTopology::offset(int from, int to, int dim, bool* tie) const {
  const int a = coord(from, dim), b = coord(to, dim);
  if (tie) *tie = false;
  if (!wraps()) return b - a;
  const int n = extent(dim);
  const int forward = ((b - a) % n + n) % n;
  if (tie) *tie = forward != 0 && 2 * forward == n;
  return 2 * forward <= n ? forward : forward - n;
}

int GridTopology::distance(int src, int dst) const {
  int hops = 0;
  for (int d = 0; d < dims(); ++d) hops += std::abs(offset(src, dst, d));
  return hops;
}

bool GridTopology::crosses_dateline(int from, int to, int port) const {
  if (!wraps() || port == kLocal) return false;
  const int dim = dim_of(port);
  const int a = coord(from, dim), b = coord(to, dim);
  return positive(port) ? b < a : b > a;
}

std::string GridTopology::port_name(int /*router*/, int port) const {
  static const char* const names[] = {"local", "east(+x)", "west(-x)", "north(+y)", "south(-y)"};
  return port >= 0 && port < 5 ? names[port] : fmt::format("port{}", port);
}

std::string GridTopology::node_name(int node) const {
  return dims() == 1 ? fmt::format("{}", node) : fmt::format("{}({},{})", node, x(node), y(node));
}

std::string GridTopology::shape() const {
  return dims() == 1 ? fmt::format("{} routers", nodes()) : fmt::format("{}x{}", k_, m_);
}

std::unique_ptr<RoutingFunction> GridTopology::make_routing(const NocParams& p) const {
  if (p.adaptive_routing()) return std::make_unique<MinimalAdaptiveRouting>(p, *this);
  return std::make_unique<DimensionOrderRouting>(p, *this);
}

void register_grid_topologies(std::vector<TopologyInfo>& registry) {
  const auto make = [](const NocParams& p) -> std::unique_ptr<Topology> { return std::make_unique<GridTopology>(p); };
  registry.push_back({"ring", "noc.k routers in a ring (one node each)", {"dor", "adaptive"}, make});
  registry.push_back({"mesh", "noc.k x noc.m mesh (one node per router)", {"dor", "adaptive"}, make});
  registry.push_back({"torus", "noc.k x noc.m torus, wrap-around links in both dimensions", {"dor", "adaptive"}, make});
}

}  // namespace tessera::noc
