#include "noc/noc_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "noc/routing.h"
#include "noc/rtl_router_core.h"
#include "noc/topology.h"
#include "noc/topology_grid.h"
#include "rtl/common/impl_registry.h"
#include "rtl/common/lockstep.h"

namespace tessera::noc {

namespace {
template <typename E>
E pick(const std::vector<std::string>& names, const std::string& value) {
  return static_cast<E>(std::find(names.begin(), names.end(), value) - names.begin());
}
}  // namespace

const std::vector<std::string>& topology_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const TopologyInfo& t : topology_registry()) n.push_back(t.name);
    return n;
  }();
  return names;
}
const std::vector<std::string>& routing_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const TopologyInfo& t : topology_registry())
      for (const std::string& r : t.routings)
        if (std::find(n.begin(), n.end(), r) == n.end()) n.push_back(r);
    return n;
  }();
  return names;
}
const std::vector<std::string>& adaptive_policy_names() {
  static const std::vector<std::string> names{"minimal", "west_first", "odd_even"};
  return names;
}
const std::vector<std::string>& flow_control_names() {
  static const std::vector<std::string> names{"wormhole", "vct", "saf"};
  return names;
}
const std::vector<std::string>& allocator_names() {
  static const std::vector<std::string> names{"separable_input_first", "islip"};
  return names;
}

const std::vector<std::string>& wrap_rule_names() {
  static const std::vector<std::string> names{"random_tie", "plus_tie"};
  return names;
}

NocParams NocParams::from_config(sim::Config& cfg) {
  NocParams p;
  p.topology = cfg.get_enum("noc.topology", "mesh", topology_names(), "Network topology (a registered topology)");
  p.k = static_cast<int>(
      cfg.get_int("noc.k", 4, 2, 64,
                  "Routers along x (ring: all routers; fat tree: k of a k-ary n-tree; flattened butterfly: routers per "
                  "dimension; dragonfly: nodes and global links per router)"));
  p.m = static_cast<int>(cfg.get_int("noc.m", 0, 0, 64, "Routers along y (0: same as noc.k; ignored by ring)"));
  if (p.topology == "ring") {
    p.m = 1;
  } else if (p.m == 0) {
    p.m = p.k;
  } else if (p.m < 2) {
    throw sim::ConfigError("noc.m: a mesh or torus needs at least 2 routers along y");
  }
  p.n = static_cast<int>(
      cfg.get_int("noc.n", 2, 1, 8, "Fat tree: levels (a noc.k-ary noc.n-tree); flattened butterfly: dimensions"));
  p.c = static_cast<int>(cfg.get_int("noc.c", 1, 1, 64, "Flattened butterfly: nodes per router (concentration)"));
  const TopologyInfo& info = topology_info(p.topology);
  p.node_count = info.make(p)->nodes();
  p.vcs = static_cast<int>(cfg.get_int("noc.vcs", 2, 1, 64, "Virtual channels per port (all message classes)"));
  p.vc_buf = static_cast<int>(cfg.get_int("noc.vc_buf", 8, 1, 1024, "Buffer depth per virtual channel, flits"));
  p.classes = static_cast<int>(
      cfg.get_int("noc.classes", 1, 1, 8, "Message classes (request, response, ...), each with its own VCs"));
  p.routing = cfg.get_enum(
      "noc.routing", info.routings.front(), routing_names(),
      "Routing function, one the topology accepts (default: its first): dor: dimension order "
      "(XY); adaptive: minimal adaptive with escape VCs; nca: fat tree nearest common ancestor; "
      "min: minimal; ugal: universal globally-adaptive load-balanced (min or Valiant); ugal_node: BookSim2's "
      "dragonfly UGAL (can deadlock: needs noc.allow_unsafe_routing)");
  p.adaptive = pick<AdaptivePolicy>(
      adaptive_policy_names(),
      cfg.get_enum("noc.adaptive", "minimal", adaptive_policy_names(),
                   "Adaptive routing: any productive port (minimal), west-first or odd-even turn model"));
  // BookSim2's constants: ugal_flatfly_onchip compares hop-weighted queue
  // lengths with a bias of 2 flits, ugal_dragonflynew with 30.
  p.ugal_threshold = static_cast<int>(cfg.get_int(
      "noc.ugal_threshold", p.topology == "dragonfly" ? 30 : 2, -1000, 1000,
      "UGAL: flits by which the minimal path's weighted queue may exceed the non-minimal one's and still be taken "
      "(default: 2 on a flattened butterfly, 30 on a dragonfly, as BookSim2)"));
  p.escape_vc =
      cfg.get_bool("noc.escape_vc", true, "Adaptive routing keeps dimension-order escape VCs (Duato's protocol)");
  p.dateline = cfg.get_bool("noc.dateline", true, "Ring/torus: dateline VC classes break wrap-around cycles");
  p.allow_unsafe_routing =
      cfg.get_bool("noc.allow_unsafe_routing", false,
                   "Accept routing that can deadlock (no datelines / no escape VC); for deadlock experiments");
  p.flow_control = pick<FlowControl>(flow_control_names(),
                                     cfg.get_enum("noc.flow_control", "wormhole", flow_control_names(),
                                                  "wormhole, virtual cut-through (vct) or store-and-forward (saf)"));
  static const std::vector<std::string> atomic_names{"auto", "true", "false"};
  const std::string atomic = cfg.get_enum(
      "noc.atomic_vc", "auto", atomic_names,
      "A VC takes a new packet only when its buffer is empty (false: once the tail is sent; auto: true only for "
      "adaptive routing, whose escape VCs need it)");
  p.atomic_vc = atomic == "auto" ? atomic_vc_auto(p.routing) : atomic == "true";
  p.allocator = pick<AllocatorKind>(allocator_names(), cfg.get_enum("noc.allocator", "separable_input_first",
                                                                    allocator_names(), "VC and switch allocator"));
  p.islip_iterations =
      static_cast<int>(cfg.get_int("noc.islip_iterations", 1, 1, 8, "iSLIP request-grant-accept iterations"));
  p.speedup =
      static_cast<int>(cfg.get_int("noc.speedup", 1, 1, 4, "Input speedup: flits an input port may send per cycle"));
  p.delay.rc = static_cast<int>(cfg.get_int("noc.delay.rc", 1, 0, 16, "Route computation delay, cycles"));
  p.delay.va = static_cast<int>(cfg.get_int("noc.delay.va", 1, 0, 16, "VC allocation delay, cycles"));
  p.delay.sa = static_cast<int>(cfg.get_int("noc.delay.sa", 1, 1, 16, "Switch allocation delay, cycles"));
  p.delay.st = static_cast<int>(cfg.get_int("noc.delay.st", 1, 0, 16, "Switch traversal delay, cycles"));
  p.delay.link = static_cast<int>(cfg.get_int("noc.delay.link", 1, 1, 64, "Link latency, cycles"));
  p.delay.credit = static_cast<int>(cfg.get_int("noc.delay.credit", 1, 1, 64, "Credit return delay, cycles"));
  // A packet written into the source queue in cycle t is read out of it
  // from t + 1, as a router's switch moves a flit the cycle after its grant:
  // its head enters the injection channel no earlier (BookSim2's traffic
  // manager writes a packet created in cycle t into the injection channel
  // after the channels have latched their inputs of that cycle, so it
  // enters the channel in cycle t + 1 too).
  p.delay.source_queue = static_cast<int>(
      cfg.get_int("noc.delay.source_queue", 1, 0, 16,
                  "Cycles from a packet's creation until its head flit may leave the source queue into the "
                  "injection channel"));
  // The interface's channels default to the router-to-router link delay, as
  // BookSim's injection and ejection channels take the channel latency.
  p.delay.injection = static_cast<int>(
      cfg.get_int("noc.delay.injection", p.delay.link, 0, 64,
                  "Channel from a network interface into its router, cycles (default: noc.delay.link)"));
  p.delay.ejection = static_cast<int>(
      cfg.get_int("noc.delay.ejection", p.delay.link, 1, 64,
                  "Channel from a router's local port to its network interface, cycles (default: noc.delay.link)"));
  p.delay.global_link = static_cast<int>(
      cfg.get_int("noc.delay.global_link", p.delay.link, 1, 1024,
                  "Dragonfly: channel between groups, flits and credits alike, cycles (default: noc.delay.link)"));
  p.flit_bytes = static_cast<int>(cfg.get_int("noc.flit_bytes", 16, 1, 256, "Flit (channel) width, bytes"));
  p.watchdog_cycles =
      static_cast<uint64_t>(cfg.get_int("noc.watchdog_cycles", 10000, 10, 100000000,
                                        "Cycles with flits buffered but none moving that count as deadlock"));
  p.skip_idle = cfg.get_bool("noc.skip_idle", true, "Jump over cycles in which the network is empty");
  p.check = cfg.get_bool("noc.check", true, "Check every flit is delivered once, in order (flit checker)");
  const rtl::ImplChoice router_impl = rtl::read_impl_choice(
      cfg, "noc.router_impl",
      "Routers as the C++ model, the Verilated RTL router (models/rtl/noc_router), or both in lockstep (outputs "
      "compared every cycle; docs/cosim.md)");
  p.router_impl = router_impl.mode;
  p.router_impl_name = router_impl.name;
  const std::string which = cfg.get_string(
      "noc.router_impl_routers", "all",
      "Routers noc.router_impl applies to: all, or a comma-separated list of router numbers (x + k*y); the "
      "others run as the C++ model");
  if (which != "all") {
    std::stringstream list(which);
    std::string item;
    while (std::getline(list, item, ',')) {
      size_t used = 0;
      int n = -1;
      try {
        n = std::stoi(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != item.size() || n < 0 || n >= p.nodes())
        throw sim::ConfigError(
            fmt::format("noc.router_impl_routers: '{}' is not a router number 0..{} (use all or a comma-separated "
                        "list)",
                        item, p.nodes() - 1));
      p.router_impl_routers.push_back(n);
    }
    if (p.router_impl_routers.empty())
      throw sim::ConfigError("noc.router_impl_routers: empty list (use all or a comma-separated list of routers)");
  }
  p.rtl = rtl::RtlOptions::from_config(cfg);
  static const std::vector<std::string> wrap_names{"auto", "random_tie", "plus_tie"};
  const std::string wrap = cfg.get_enum(
      "noc.wrap_rule", "auto", wrap_names,
      "Ring/torus dimension order: random_tie (BookSim2: a random direction half-way round, the VC half fixed per "
      "dimension by whether the path crosses the dateline), plus_tie (the RTL router's: + half-way, VC half "
      "switched on crossing); auto: plus_tie when routers run as RTL, else random_tie");
  // The RTL router implements plus_tie only, and every router of a network
  // must route alike.
  p.wrap_rule = wrap == "auto" ? (p.router_impl == rtl::Impl::kModel ? WrapRule::kRandomTie : WrapRule::kPlusTie)
                               : pick<WrapRule>(wrap_rule_names(), wrap);

  // A flit on a link or a credit on its way back is progress not yet
  // visible; only a pause longer than the whole loop can be a deadlock.
  const uint64_t loop = static_cast<uint64_t>(p.delay.per_hop() + p.delay.sa + p.delay.credit +
                                              std::max(p.delay.injection, p.delay.ejection));
  if (p.watchdog_cycles <= 2 * loop)
    throw sim::ConfigError(
        fmt::format("noc.watchdog_cycles: {} cycles is too short to tell a deadlock from a flit "
                    "in flight; use more than {} (twice the router and credit delays)",
                    p.watchdog_cycles, 2 * loop));
  if (p.vcs % p.classes != 0)
    throw sim::ConfigError(
        fmt::format("noc.vcs: {} virtual channels cannot be split evenly over {} message classes "
                    "(noc.classes)",
                    p.vcs, p.classes));
  const bool wraps = GridTopology::wraps(p.topology);
  const int per_class = p.vcs_per_class();
  if (wraps && p.dateline && per_class < 2)
    throw sim::ConfigError(
        fmt::format("noc.vcs: a {} with dateline VCs needs at least 2 VCs per message class "
                    "(has {}); raise noc.vcs or set noc.dateline=false",
                    p.topology, per_class));
  if (wraps && !p.dateline && !p.allow_unsafe_routing)
    throw sim::ConfigError(
        fmt::format("noc.dateline: a {} without dateline VCs can deadlock; set "
                    "noc.allow_unsafe_routing=true to study that",
                    p.topology));
  if (p.adaptive_routing()) {
    // West-first and odd-even alone are deadlock free on a mesh (turn
    // models); around a ring's wrap-around link they are not, and minimal
    // fully adaptive routing is not on any topology.
    const bool needs_escape = wraps || p.adaptive == AdaptivePolicy::kMinimal;
    if (!p.escape_vc && needs_escape && !p.allow_unsafe_routing)
      throw sim::ConfigError(fmt::format(
          "noc.escape_vc: {} adaptive routing on a {} needs a dimension-order escape VC to be deadlock free; set "
          "noc.allow_unsafe_routing=true to study it without one",
          adaptive_policy_names()[static_cast<int>(p.adaptive)], p.topology));
    if (!p.atomic_vc && p.escape_vc && !p.allow_unsafe_routing)
      throw sim::ConfigError(
          "noc.atomic_vc: adaptive routing with escape VCs needs atomic VC allocation (a packet never waits behind "
          "another in one VC buffer) to be deadlock free; use auto or true, or set noc.allow_unsafe_routing=true to "
          "study it");
    const int escape = p.escape_vc ? (wraps && p.dateline ? 2 : 1) : 0;
    if (per_class < escape + 1)
      throw sim::ConfigError(
          fmt::format("noc.vcs: adaptive routing needs {} escape VC(s) plus at least one adaptive "
                      "VC per message class (has {} per class)",
                      escape, per_class));
  }
  if (std::find(info.routings.begin(), info.routings.end(), p.routing) == info.routings.end()) {
    std::string accepted;
    for (const std::string& r : info.routings) accepted += (accepted.empty() ? "" : "|") + r;
    throw sim::ConfigError(
        fmt::format("noc.routing: a {} does not route with '{}' (it accepts {})", p.topology, p.routing, accepted));
  }
  // The routing function checks what it needs (VCs per class, a UGAL
  // threshold) when it is built; building it here reports that now.
  info.make(p)->make_routing(p);
  if (p.router_impl != rtl::Impl::kModel) check_rtl_router_support(p);
  return p;
}

rtl::Impl NocParams::impl_of(int router) const {
  if (router_impl == rtl::Impl::kModel || router_impl_routers.empty()) return router_impl;
  return std::find(router_impl_routers.begin(), router_impl_routers.end(), router) != router_impl_routers.end()
             ? router_impl
             : rtl::Impl::kModel;
}

void NocParams::validate(int max_packet_flits) const {
  if (flow_control != FlowControl::kWormhole && vc_buf < max_packet_flits)
    throw sim::ConfigError(
        fmt::format("noc.vc_buf: {} flow control needs a VC buffer that holds a whole packet "
                    "({} flits), but noc.vc_buf is {}",
                    flow_control_names()[static_cast<int>(flow_control)], max_packet_flits, vc_buf));
}

}  // namespace tessera::noc
