// The dragonfly of BookSim2's `dragonflynew` (networks/dragonfly.cpp): a
// balanced dragonfly (Kim, Dally, Scott & Abts, "Technology-Driven, Highly-
// Scalable Dragonfly Topology", ISCA 2008) with p = noc.k nodes per router,
// a = 2p routers per group, fully connected inside the group, h = p global
// links per router and g = a h + 1 groups, one global link between each
// pair of groups: a h p g nodes (72 for p = 2, 1056 for p = 4).
//
// Numbering (BookSim2's, so the two can be compared port by port): router
// r = G a + i is router i of group G; node r p + j sits on its port j.
// Ports of router (G, i), 4p - 1 in all:
//   0 .. p-1            terminals: node r p + j;
//   p .. p+a-2          local: port p + c leads to router t = (c < i ? c :
//                       c + 1) of the group, arriving on its local port
//                       p + (i < t ? i : i - 1);
//   p+a-1 .. p+a-1+h-1  global: port p + a - 1 + c is the group's link
//                       o = i p + c, to group D = (o < G ? o : o + 1), i.e.
//                       the links of group G, in the order of the other
//                       groups' numbers, go to routers 0, 0, 1, 1, ... (p
//                       each). It arrives on D's link o' = (G < D ? G : G - 1):
//                       router o' / p of D, global port p + a - 1 + o' % p.
// Local links take noc.delay.link, global links noc.delay.global_link (BookSim2's
// DRAGON_LATENCY: 10 and 100 cycles, credits alike).
//
// Routing "min" (BookSim2's min_dragonflynew): at most one local hop to the
// router holding the global link to the destination's group, that global
// hop, at most one local hop to the destination's router: 0 to 3 hops.
// The message class's VCs split in two sets, the lower on the hops before the
// global one, the upper on the global hop and after (to the terminal too, as
// BookSim2 ejects on VC ph). Deadlock free: a
// lower-set channel is a local channel of the source group, on which a packet
// waits only for a global channel (or its terminal); an upper-set global
// channel waits only for a local channel of the destination group, which
// waits only for the terminal. Ordering the channels lower local < upper
// global < upper local, every dependency goes up, so there is no cycle.
//
// Routing "ugal" (universal globally-adaptive load-balanced, Singh's UGAL as
// Kim et al. use it): at the source router a packet bound for another group
// picks a pseudo-random intermediate group I (SplitMix64 of its id, mod g;
// BookSim2 draws RandomInt) and compares the minimal output's queue q_min
// with the queue q_nonmin of the output towards I (used credits, BookSim2's
// GetUsedCredit): q_min <= 2 q_nonmin + noc.ugal_threshold (BookSim2's
// weights, threshold 30 by default) goes minimally, otherwise minimally to
// I (arriving at the router I's global link from the source group lands
// on) and from there minimally to the destination. When I is the source or
// the destination group the packet goes minimally.
//
// Unlike BookSim2's ugal_dragonflynew, which routes to a random intermediate
// node (up to two local hops in its group) and keeps VC 0 for the whole
// non-minimal phase, global hop included (one VC-0 local channel carries
// both a packet's hop inside its intermediate group, after a VC-0 global
// hop, and another packet's first hop towards a VC-0 global link, so VC-0
// channels can depend on one another in a cycle through three groups), and
// ejects every packet on VC 2, the VC set here is the number of
// global links the packet has crossed once the hop is taken: 0 for local
// hops in the source group, 1 for the first global hop and the local hop
// after it (in the intermediate group, or in the destination group of a
// minimal packet), 2 for the second global hop and the local hop in the
// destination group. Within a set a packet takes at most a global hop and
// then one local hop (each group is fully connected), after which it
// either ejects or takes a global hop of the next set. Ordering channels by
// (set, global before local), every dependency goes up: deadlock free with
// 3 VCs per message class. The phase travels in the head flit: Flit::phase
// is 0 until the source router decides, then 1 + the set of the hop last
// chosen; Flit::intermediate is I, or -1 for a minimal packet.
#pragma once

#include <fmt/format.h>

#include <vector>

#include "noc/routing.h"
#include "noc/topology.h"

namespace tessera::noc {

class DragonflyTopology : public Topology {
 public:
  explicit DragonflyTopology(int p);
  explicit DragonflyTopology(const NocParams& params) : DragonflyTopology(params.k) {}

  int p() const { return p_; }  // nodes and global links per router
  int a() const { return a_; }  // routers per group
  int groups() const { return g_; }
  int group(int router) const { return router / a_; }
  int index(int router) const { return router % a_; }
  int router_of(int node) const { return node / p_; }
  int group_of(int node) const { return node / (a_ * p_); }
  bool is_global(int port) const { return port >= p_ + a_ - 1; }
  // The local port of router (G, i) that leads to router (G, t), t != i.
  int local_port(int i, int t) const { return p_ + (t < i ? t : t - 1); }
  // The router of group `from` holding its global link to group `to`, and
  // that link's port.
  int global_router(int from, int to) const { return from * a_ + link_of(from, to) / p_; }
  int global_port(int from, int to) const { return p_ + a_ - 1 + link_of(from, to) % p_; }
  // The output towards group `to` (another group) from `router`: a local
  // port to its global router, or that global port.
  int port_to_group(int router, int to) const;
  // The minimal output from `router` to node `dst` (BookSim2's
  // dragonfly_port).
  int min_port(int router, int dst) const;

  PortRef attachment(int node) const override { return PortRef{node / p_, node % p_}; }
  int terminal(int router, int port) const override { return port < p_ ? router * p_ + port : -1; }
  PortRef link(int router, int port) const override;
  // Minimal router-to-router hops: 0, 1 in a group, else 1 to 3.
  int distance(int src, int dst) const override;
  int link_delay(int /*router*/, int port, const RouterDelays& delays) const override {
    return is_global(port) ? delays.global_link : delays.link;
  }
  std::string port_name(int router, int port) const override;
  std::string node_name(int node) const override { return fmt::format("{}", node); }
  std::string router_name(int router) const override {
    return fmt::format("{}(group {}, {})", router, group(router), index(router));
  }
  std::string shape() const override { return fmt::format("p={}: {} groups of {} routers", p_, g_, a_); }
  std::unique_ptr<RoutingFunction> make_routing(const NocParams& params) const override;

 private:
  // Group `from`'s global link (0 .. a h - 1) to group `to`: the other
  // groups in order.
  int link_of(int from, int to) const { return to < from ? to : to - 1; }

  int p_, a_, g_;
};

// Minimal routing (min) and UGAL (ugal) share the path arithmetic; they
// differ in the VC sets (2 or 3 per message class) and in whether the
// source router may send a packet through an intermediate group.
class DragonflyRouting : public RoutingFunction {
 public:
  DragonflyRouting(const NocParams& params, const DragonflyTopology& topo, bool ugal);
  bool minimal() const override { return !ugal_; }
  // VC range of set `set` of message class `cls`.
  int set_lo(int cls, int set) const { return cls * per_class_ + set * per_class_ / sets_; }
  int set_hi(int cls, int set) const { return cls * per_class_ + (set + 1) * per_class_ / sets_ - 1; }

 private:
  void compute(int router, Flit& head, Route& out, const OutputLoad& load) const override;

  const DragonflyTopology& topo_;
  bool ugal_;
  int per_class_, sets_, threshold_;
};

// Routing "ugal_node": BookSim2's ugal_dragonflynew as it is, to compare
// like with like. At the source router a packet for another group draws an
// intermediate *node* (SplitMix64 of its id, mod the nodes); one in the
// source's group means minimal; otherwise q_min <= 2 q_nonmin +
// noc.ugal_threshold goes minimally. BookSim2's phases are the VC sets: 0
// for the whole way to the intermediate node's router (its global hop
// included), 1 from there (or from the source, minimally) up to a global
// hop, 2 on and after it (and from the source when the destination is in
// its group). A VC-0 local channel carries both a hop inside an
// intermediate group after a VC-0 global hop and another packet's first
// hop towards a VC-0 global link, so VC-0 channels can wait on one another
// in a cycle through three groups: it can deadlock, and is accepted only
// with noc.allow_unsafe_routing=true. Needs 3 VCs per message class.
class DragonflyNodeUgalRouting : public RoutingFunction {
 public:
  DragonflyNodeUgalRouting(const NocParams& params, const DragonflyTopology& topo);
  bool minimal() const override { return false; }

 private:
  void compute(int router, Flit& head, Route& out, const OutputLoad& load) const override;

  const DragonflyTopology& topo_;
  int per_class_, threshold_;
};

// Registers "dragonfly".
void register_dragonfly(std::vector<TopologyInfo>& registry);

}  // namespace tessera::noc
