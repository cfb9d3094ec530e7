#include "noc/topology_fattree.h"

#include <fmt/format.h>

#include "sim/config.h"

namespace tessera::noc {

FatTreeTopology::FatTreeTopology(int k, int n) : Topology("fattree", 0, 0, 2 * k), k_(k), n_(n), per_level_(1) {
  if (k_ < 2) throw sim::ConfigError("noc.k: a fat tree needs k >= 2");
  if (n_ < 2) throw sim::ConfigError("noc.n: a fat tree needs at least 2 levels");
  for (int i = 0, p = 1; i <= n_; ++i, p *= k_) pow_.push_back(p);
  per_level_ = pow_[n_ - 1];
  set_size(pow_[n_], n_ * per_level_);
}

bool FatTreeTopology::covers(int router, int node) const {
  const int l = level(router), w = position(router);
  for (int i = 0; i < l; ++i)
    if (position_digit(w, i) != node_digit(node, i)) return false;
  return true;
}

int FatTreeTopology::terminal(int router, int port) const {
  return level(router) == n_ - 1 && port < k_ ? position(router) * k_ + port : -1;
}

PortRef FatTreeTopology::link(int router, int port) const {
  const int l = level(router), w = position(router);
  if (port < k_) {  // down
    if (l == n_ - 1) return PortRef{};
    return PortRef{router_at(l + 1, with_digit(w, l, port)), k_ + position_digit(w, l)};
  }
  if (l == 0) return PortRef{};  // the top has no parents
  return PortRef{router_at(l - 1, with_digit(w, l - 1, port - k_)), position_digit(w, l - 1)};
}

int FatTreeTopology::distance(int src, int dst) const {
  int common = 0;  // leading node digits src and dst share
  while (common < n_ && node_digit(src, common) == node_digit(dst, common)) ++common;
  return common >= n_ - 1 ? 0 : 2 * (n_ - 1 - common);
}

std::string FatTreeTopology::port_name(int /*router*/, int port) const {
  return port < k_ ? fmt::format("down{}", port) : fmt::format("up{}", port - k_);
}

std::string FatTreeTopology::node_name(int node) const { return fmt::format("{}", node); }

std::string FatTreeTopology::router_name(int router) const {
  return fmt::format("{}(level {}, {})", router, level(router), position(router));
}

std::unique_ptr<RoutingFunction> FatTreeTopology::make_routing(const NocParams& p) const {
  return std::make_unique<NearestCommonAncestorRouting>(p, *this);
}

NearestCommonAncestorRouting::NearestCommonAncestorRouting(const NocParams& p, const FatTreeTopology& topo)
    : topo_(topo), per_class_(p.vcs_per_class()) {}

void NearestCommonAncestorRouting::compute(int router, Flit& head, Route& out, const OutputLoad& /*load*/) const {
  out.count = 0;
  const int lo = head.cls * per_class_, hi = lo + per_class_ - 1;
  const int l = topo_.level(router);
  if (topo_.covers(router, head.dst)) {
    out.add(topo_.node_digit(head.dst, l), lo, hi);  // down (at a leaf: to the node)
    return;
  }
  const uint64_t h = mix64(head.packet_id * 64 + static_cast<uint64_t>(l));
  out.add(topo_.k() + static_cast<int>(h % static_cast<uint64_t>(topo_.k())), lo, hi);
}

void register_fat_tree(std::vector<TopologyInfo>& registry) {
  registry.push_back(
      {"fattree",
       "noc.k-ary noc.n-tree (noc.k^noc.n nodes, noc.n levels of noc.k^(noc.n-1) routers)",
       {"nca"},
       [](const NocParams& p) -> std::unique_ptr<Topology> { return std::make_unique<FatTreeTopology>(p); }});
}

}  // namespace tessera::noc
