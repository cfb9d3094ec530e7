// Parameters of the network-on-chip engine, read from sim::Config under
// `noc.` so netlists, `tessera noc` flags and `--set` share the same keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rtl/common/lockstep.h"
#include "sim/config.h"

namespace tessera::noc {

// Which productive ports adaptive routing may choose from: all of them
// (minimal fully adaptive); west-first (Glass & Ni's turn model: a packet
// that must go -x goes there first, then adapts among +x, +y, -y); or
// odd-even (Chiu's turn model: east-to-north/south turns are forbidden in
// even columns, north/south-to-west turns in odd columns).
enum class AdaptivePolicy { kMinimal, kWestFirst, kOddEven };
// Wormhole: buffers per flit. Virtual cut-through: a packet advances only
// into a buffer that holds it whole. Store-and-forward: additionally a router
// starts routing a packet only once its tail has arrived.
enum class FlowControl { kWormhole, kVirtualCutThrough, kStoreAndForward };
enum class AllocatorKind { kSeparableInputFirst, kIslip };
// How dimension-order routing goes round a ring (ring, torus, and the escape
// VCs of adaptive routing on them):
//  - kRandomTie, BookSim2's dim_order_torus (routefunc.cpp dor_next_torus):
//    a packet exactly half-way round picks a direction per dimension at
//    random (a hash of its id), and the VC half of a dimension is fixed when
//    the packet enters it: the upper half if its path in that dimension
//    crosses the dateline, the lower half if not;
//  - kPlusTie, the RTL router's rule (models/rtl/noc_router: its head flit
//    carries neither the source nor a tie bit): half-way goes +, and a
//    packet uses the lower half while its remaining path still crosses the
//    dateline, the upper half after. It loads the + links of a k = 4 ring
//    1.5x and leaves the links after the dateline one VC half.
enum class WrapRule { kRandomTie, kPlusTie };

// noc.topology values: the registered topologies (topology.h).
const std::vector<std::string>& topology_names();
// noc.routing values: every routing function some registered topology
// accepts (each topology lists its own, TopologyInfo::routings).
const std::vector<std::string>& routing_names();
const std::vector<std::string>& adaptive_policy_names();
const std::vector<std::string>& flow_control_names();
const std::vector<std::string>& allocator_names();
const std::vector<std::string>& wrap_rule_names();

struct RouterDelays {
  int rc = 1;            // route computation
  int va = 1;            // virtual-channel allocation
  int sa = 1;            // switch allocation
  int st = 1;            // switch traversal
  int link = 1;          // channel between routers
  int credit = 1;        // credit return to the upstream router (or interface)
  int source_queue = 1;  // a packet's creation to its head leaving the source queue
  int injection = 1;     // channel from the network interface into its router
  int ejection = 1;      // channel from a router's local port to its interface
  int global_link = 1;   // dragonfly: channel between groups (flits and credits)
  // Cycles a head flit spends per router at zero load, link included.
  int per_hop() const { return rc + va + sa + st + link; }
  // Zero-load cycles of a head flit crossing `hops` router-to-router links
  // (hops + 1 routers), from the packet's creation to its arrival.
  int head_latency(int hops) const {
    return source_queue + injection + (hops + 1) * (rc + va + sa + st) + hops * link + ejection;
  }
};

struct NocParams {
  std::string topology = "mesh";  // a registered topology (topology.h)
  int k = 4;                      // nodes along x (ring: all nodes)
  int m = 4;                      // nodes along y (1 for a ring)
  int n = 2;                      // fat tree: levels; flattened butterfly: dimensions
  int c = 1;                      // flattened butterfly: nodes per router (concentration)
  int node_count = 16;            // nodes of the topology (make_topology(*this).nodes())
  int vcs = 2;                    // virtual channels per port, all classes together
  int vc_buf = 8;                 // flits per virtual channel buffer
  int classes = 1;                // message classes, each with vcs / classes VCs
  std::string routing = "dor";    // one of the topology's routing functions (TopologyInfo::routings)
  AdaptivePolicy adaptive = AdaptivePolicy::kMinimal;
  int ugal_threshold = 2;  // UGAL: bias towards the minimal path, flits
  bool escape_vc = true;   // adaptive routing keeps dimension-order escape VCs (Duato)
  bool dateline = true;    // ring/torus: dateline VC classes break wrap-around cycles
  // noc.wrap_rule=auto (the default) is kRandomTie unless routers run as RTL.
  WrapRule wrap_rule = WrapRule::kRandomTie;
  bool allow_unsafe_routing = false;  // accept configurations that can deadlock (experiments)
  FlowControl flow_control = FlowControl::kWormhole;
  // A VC buffer holds one packet at a time (BookSim's wait_for_tail_credit).
  // noc.atomic_vc=auto (the default) resolves to true only for adaptive
  // routing, whose escape-VC argument needs it (atomic_vc_auto() below).
  bool atomic_vc = false;
  AllocatorKind allocator = AllocatorKind::kSeparableInputFirst;
  int islip_iterations = 1;
  int speedup = 1;  // input speedup: flits an input port may send per cycle
  RouterDelays delay;
  int flit_bytes = 16;
  uint64_t watchdog_cycles = 10000;  // cycles without any flit moving = deadlock
  bool skip_idle = true;             // jump over cycles with an empty network
  bool check = true;                 // run the flit checker
  // Co-simulation (docs/cosim.md, "The NoC router in RTL"): the routers in `router_impl_routers`
  // (empty: all) run as the C++ model, the Verilated RTL router, or both in
  // lockstep; the others as the model.
  rtl::Impl router_impl = rtl::Impl::kModel;
  std::string router_impl_name = "shipped";  // the RTL implementation (noc.router_impl=rtl:NAME)
  std::vector<int> router_impl_routers;
  rtl::RtlOptions rtl;           // rtl.*
  std::string instance = "noc";  // path in lockstep reports ("chip.noc" in the chip)

  int nodes() const { return node_count; }
  // What noc.atomic_vc=auto means for a routing algorithm: atomic VC
  // allocation only where deadlock freedom needs it. Duato's escape-VC
  // argument (adaptive routing) needs a packet never to wait behind another
  // in one VC buffer; dimension-order routing (with datelines on a ring or
  // torus) is deadlock free either way.
  static bool atomic_vc_auto(const std::string& routing) { return routing == "adaptive"; }
  bool adaptive_routing() const { return routing == "adaptive"; }  // the grids' minimal adaptive routing
  int vcs_per_class() const { return vcs / classes; }
  // How router `router` runs.
  rtl::Impl impl_of(int router) const;
  // Longest packet the configuration must carry whole (VCT, SAF).
  void validate(int max_packet_flits) const;

  // Reads every noc.* parameter and checks the combination; throws
  // sim::ConfigError naming the offending key.
  static NocParams from_config(sim::Config& cfg);
};

}  // namespace tessera::noc
