#include "noc/topology_flatfly.h"

#include <limits>

#include "sim/config.h"

namespace tessera::noc {

FlatFlyTopology::FlatFlyTopology(int k, int n, int c)
    : Topology("flatfly", 0, 0, c + (k - 1) * n), k_(k), n_(n), c_(c) {
  if (k_ < 2) throw sim::ConfigError("noc.k: a flattened butterfly needs at least 2 routers per dimension");
  for (int i = 0, p = 1; i <= n_; ++i, p *= k_) {
    if (p > (1 << 16)) throw sim::ConfigError(fmt::format("noc.n: {}^{} routers is too many", k_, n_));
    pow_.push_back(p);
  }
  set_size(pow_[n_] * c_, pow_[n_]);
}

int FlatFlyTopology::next_port(int router, int to) const {
  for (int d = 0; d < n_; ++d)
    if (coord(router, d) != coord(to, d)) return port_towards(router, d, coord(to, d));
  return -1;
}

int FlatFlyTopology::router_distance(int a, int b) const {
  int hops = 0;
  for (int d = 0; d < n_; ++d) hops += coord(a, d) != coord(b, d) ? 1 : 0;
  return hops;
}

PortRef FlatFlyTopology::link(int router, int port) const {
  if (port < c_) return PortRef{};
  const int dim = (port - c_) / (k_ - 1), j = (port - c_) % (k_ - 1);
  const int own = coord(router, dim);
  const int value = j < own ? j : j + 1;
  const int other = with_coord(router, dim, value);
  return PortRef{other, port_towards(other, dim, own)};
}

std::string FlatFlyTopology::port_name(int router, int port) const {
  if (port < c_) return fmt::format("node{}", port);
  const int dim = (port - c_) / (k_ - 1), j = (port - c_) % (k_ - 1);
  return fmt::format("d{}:{}", dim, j < coord(router, dim) ? j : j + 1);
}

std::string FlatFlyTopology::router_name(int router) const {
  std::string coords;
  for (int d = 0; d < n_; ++d) coords += fmt::format("{}{}", d == 0 ? "" : ",", coord(router, d));
  return fmt::format("{}({})", router, coords);
}

std::string FlatFlyTopology::shape() const { return fmt::format("{}-ary {}-flat, {} nodes per router", k_, n_, c_); }

std::unique_ptr<RoutingFunction> FlatFlyTopology::make_routing(const NocParams& p) const {
  if (p.routing == "ugal") return std::make_unique<FlatFlyUgalRouting>(p, *this);
  return std::make_unique<FlatFlyMinimalRouting>(p, *this);
}

FlatFlyMinimalRouting::FlatFlyMinimalRouting(const NocParams& p, const FlatFlyTopology& topo)
    : topo_(topo), per_class_(p.vcs_per_class()) {}

void FlatFlyMinimalRouting::compute(int router, Flit& head, Route& out, const OutputLoad& /*load*/) const {
  out.count = 0;
  const int lo = head.cls * per_class_, hi = lo + per_class_ - 1;
  const int to = topo_.router_of(head.dst);
  out.add(to == router ? head.dst % topo_.concentration() : topo_.next_port(router, to), lo, hi);
}

FlatFlyUgalRouting::FlatFlyUgalRouting(const NocParams& p, const FlatFlyTopology& topo)
    : topo_(topo), per_class_(p.vcs_per_class()), threshold_(p.ugal_threshold) {
  if (per_class_ < 2)
    throw sim::ConfigError(
        fmt::format("noc.vcs: UGAL on a flattened butterfly needs 2 VCs per message class (one set to the intermediate "
                    "router, one to the destination); has {}",
                    per_class_));
}

int FlatFlyUgalRouting::intermediate_router(uint64_t packet_id, int src, int dst) const {
  // BookSim2's find_ran_intm: the source's coordinate where source and
  // destination agree, a random one (any of k) where they differ.
  int via = src;
  for (int d = 0; d < topo_.dims(); ++d) {
    if (topo_.coord(src, d) == topo_.coord(dst, d)) continue;
    const uint64_t h = mix64(packet_id * 64 + static_cast<uint64_t>(d));
    via = topo_.with_coord(via, d, static_cast<int>(h % static_cast<uint64_t>(topo_.k())));
  }
  return via;
}

void FlatFlyUgalRouting::compute(int router, Flit& head, Route& out, const OutputLoad& load) const {
  out.count = 0;
  const int lo = head.cls * per_class_, hi = lo + per_class_ - 1, half = per_class_ / 2;
  const int dst = topo_.router_of(head.dst);
  if (head.phase == kUndecided) {
    head.phase = kToDestination;
    const int via = intermediate_router(head.packet_id, router, dst);
    // An intermediate router that is this one or the destination leaves
    // only the minimal path (BookSim2 counts its queue as infinite).
    if (dst != router && via != router && via != dst) {
      const int64_t min_hops = topo_.router_distance(router, dst);
      const int64_t via_hops = topo_.router_distance(router, via) + topo_.router_distance(via, dst);
      const int64_t q_min = load.used_credits(topo_.next_port(router, dst));
      const int64_t q_via = load.used_credits(topo_.next_port(router, via));
      if (min_hops * q_min > via_hops * q_via + threshold_) {
        head.phase = kToIntermediate;
        head.intermediate = via;
      }
    }
  }
  if (head.phase == kToIntermediate && router == head.intermediate) head.phase = kToDestination;
  if (head.phase == kToIntermediate) {
    out.add(topo_.next_port(router, head.intermediate), lo, lo + half - 1);
  } else if (dst == router) {
    out.add(head.dst % topo_.concentration(), lo, hi);
  } else {
    out.add(topo_.next_port(router, dst), lo + half, hi);
  }
}

void register_flat_fly(std::vector<TopologyInfo>& registry) {
  registry.push_back(
      {"flatfly",
       "flattened butterfly: noc.k^noc.n routers (noc.k per dimension, each joined to every router "
       "that differs in one coordinate), noc.c nodes each",
       {"min", "ugal"},
       [](const NocParams& p) -> std::unique_ptr<Topology> { return std::make_unique<FlatFlyTopology>(p); }});
}

}  // namespace tessera::noc
