#include "noc/topology_dragonfly.h"

#include <fmt/format.h>

#include "sim/config.h"

namespace tessera::noc {

namespace {

// p = 8 is 16,512 nodes; larger networks only exhaust the host.
constexpr int kMaxP = 8;

}  // namespace

DragonflyTopology::DragonflyTopology(int p) : Topology("dragonfly", 0, 0, 4 * p - 1), p_(p), a_(2 * p), g_(0) {
  if (p_ < 1 || p_ > kMaxP)
    throw sim::ConfigError(fmt::format("noc.k: a dragonfly takes 1 to {} nodes per router, not {}", kMaxP, p_));
  g_ = a_ * p_ + 1;
  set_size(a_ * p_ * g_, a_ * g_);
}

PortRef DragonflyTopology::link(int router, int port) const {
  const int G = group(router), i = index(router);
  if (port < p_) return PortRef{};
  if (!is_global(port)) {
    const int c = port - p_;
    const int t = c < i ? c : c + 1;
    return PortRef{G * a_ + t, local_port(t, i)};
  }
  const int o = i * p_ + (port - p_ - a_ + 1);
  const int D = o < G ? o : o + 1;
  return PortRef{global_router(D, G), global_port(D, G)};
}

int DragonflyTopology::port_to_group(int router, int to) const {
  const int G = group(router);
  const int via = global_router(G, to);
  return via == router ? global_port(G, to) : local_port(index(router), index(via));
}

int DragonflyTopology::min_port(int router, int dst) const {
  const int target = router_of(dst);
  if (target == router) return dst % p_;
  if (group(target) == group(router)) return local_port(index(router), index(target));
  return port_to_group(router, group(target));
}

int DragonflyTopology::distance(int src, int dst) const {
  const int rs = router_of(src), rd = router_of(dst);
  if (rs == rd) return 0;
  const int gs = group(rs), gd = group(rd);
  if (gs == gd) return 1;
  return (rs != global_router(gs, gd) ? 1 : 0) + 1 + (rd != global_router(gd, gs) ? 1 : 0);
}

std::string DragonflyTopology::port_name(int router, int port) const {
  if (port < p_) return fmt::format("node{}", terminal(router, port));
  const PortRef to = link(router, port);
  if (is_global(port)) return fmt::format("global->g{}", group(to.router));
  return fmt::format("local->r{}", to.router);
}

std::unique_ptr<RoutingFunction> DragonflyTopology::make_routing(const NocParams& params) const {
  if (params.routing == "ugal_node") return std::make_unique<DragonflyNodeUgalRouting>(params, *this);
  return std::make_unique<DragonflyRouting>(params, *this, params.routing == "ugal");
}

DragonflyRouting::DragonflyRouting(const NocParams& params, const DragonflyTopology& topo, bool ugal)
    : topo_(topo),
      ugal_(ugal),
      per_class_(params.vcs_per_class()),
      sets_(ugal ? 3 : 2),
      threshold_(params.ugal_threshold) {
  if (per_class_ < sets_)
    throw sim::ConfigError(fmt::format(
        "noc.vcs: {} routing on a dragonfly needs {} VCs per message class (one set per global hop a packet "
        "may take, plus one), there are {} ({} VCs, {} classes)",
        ugal ? "ugal" : "min", sets_, per_class_, params.vcs, params.classes));
}

void DragonflyRouting::compute(int router, Flit& head, Route& out, const OutputLoad& load) const {
  out.count = 0;
  const int G = topo_.group(router);
  const int dst_group = topo_.group_of(head.dst);
  if (head.phase == 0) {  // at the source router: decide
    head.intermediate = -1;
    if (ugal_ && dst_group != G) {
      const int I = static_cast<int>(mix64(head.packet_id) % static_cast<uint64_t>(topo_.groups()));
      // BookSim2's rule (ugal_dragonflynew): the queues weighted 1 and 2,
      // roughly the global hops of the two paths, biased towards the
      // minimal one by the threshold.
      if (I != G && I != dst_group &&
          load.used_credits(topo_.min_port(router, head.dst)) >
              2 * load.used_credits(topo_.port_to_group(router, I)) + threshold_)
        head.intermediate = I;
    }
  }
  const int crossed = head.phase == 0 ? 0 : head.phase - 1;  // global links crossed so far
  int port;
  if (head.intermediate >= 0 && crossed == 0)
    port = topo_.port_to_group(router, head.intermediate);
  else
    port = topo_.min_port(router, head.dst);
  const int set = crossed + (topo_.is_global(port) ? 1 : 0);
  head.phase = static_cast<uint8_t>(1 + set);
  // The hop to the terminal keeps the set, as BookSim2 ejects on VC ph. The
  // interface always takes a flit, so any VC would be safe, but a VC takes a
  // new packet at most every third cycle: with one VC per set that caps the
  // ejection of one set's packets at 1/3 flit per cycle, and BookSim2's
  // saturation throughput with it (docs/validation.md, "NoC: dragonfly").
  out.add(port, set_lo(head.cls, set), set_hi(head.cls, set));
}

DragonflyNodeUgalRouting::DragonflyNodeUgalRouting(const NocParams& params, const DragonflyTopology& topo)
    : topo_(topo), per_class_(params.vcs_per_class()), threshold_(params.ugal_threshold) {
  if (!params.allow_unsafe_routing)
    throw sim::ConfigError(
        "noc.routing: ugal_node (BookSim2's dragonfly UGAL) can deadlock (its VC-0 channels may wait on one "
        "another through three groups); use ugal, or set noc.allow_unsafe_routing=true to compare with BookSim2");
  if (per_class_ < 3)
    throw sim::ConfigError(fmt::format(
        "noc.vcs: ugal_node routing on a dragonfly needs 3 VCs per message class, there are {} ({} VCs, {} classes)",
        per_class_, params.vcs, params.classes));
}

void DragonflyNodeUgalRouting::compute(int router, Flit& head, Route& out, const OutputLoad& load) const {
  out.count = 0;
  // head.phase is BookSim2's ph + 1 (0: not decided yet).
  enum : uint8_t { kToIntermediate = 1, kMinimal = 2, kPastGlobal = 3 };
  const int G = topo_.group(router);
  if (head.phase == 0) {
    if (topo_.group_of(head.dst) == G) {
      head.phase = kPastGlobal;
    } else {
      const uint64_t nodes = static_cast<uint64_t>(topo_.nodes());
      head.intermediate = static_cast<int>(mix64(head.packet_id) % nodes);
      head.phase = kMinimal;
      if (topo_.group_of(head.intermediate) != G &&
          load.used_credits(topo_.min_port(router, head.dst)) >
              2 * load.used_credits(topo_.min_port(router, head.intermediate)) + threshold_)
        head.phase = kToIntermediate;
    }
  }
  if (head.phase == kToIntermediate && router == topo_.router_of(head.intermediate)) head.phase = kMinimal;
  const int port = topo_.min_port(router, head.phase == kToIntermediate ? head.intermediate : head.dst);
  if (head.phase == kMinimal && topo_.is_global(port)) head.phase = kPastGlobal;
  // VC set = BookSim2's ph (the set of the last hop, to the terminal too).
  const int base = head.cls * per_class_, set = head.phase - 1;
  out.add(port, base + set * per_class_ / 3, base + (set + 1) * per_class_ / 3 - 1);
}

void register_dragonfly(std::vector<TopologyInfo>& registry) {
  registry.push_back(
      {"dragonfly",
       "balanced dragonfly (Kim et al. 2008): noc.k nodes and global links per router, 2 noc.k routers per group, "
       "2 noc.k^2 + 1 groups",
       {"min", "ugal", "ugal_node"},
       [](const NocParams& p) -> std::unique_ptr<Topology> { return std::make_unique<DragonflyTopology>(p); }});
}

}  // namespace tessera::noc
