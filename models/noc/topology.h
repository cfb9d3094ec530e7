// Topologies. A topology has nodes (network interfaces), routers with the
// same number of ports each, and links: a flit leaving router r on port p
// arrives at link(r, p); a node's interface sends into and receives from
// its attachment (a router and one of its ports). Each topology names the
// routing functions it accepts and builds them (make_routing).
//
// Topologies register by name (topology_registry(), topology.cpp); the names
// are what noc.topology accepts. The ring, mesh and torus are grids
// (GridTopology, topology_grid.h); traffic patterns that need coordinates
// (transpose, tornado, neighbor) ask for grid() and refuse a topology
// without one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "noc/noc_params.h"

namespace tessera::noc {

class GridTopology;
class RoutingFunction;

struct PortRef {
  int router = -1;
  int port = -1;
  bool valid() const { return router >= 0; }
};

class Topology {
 public:
  virtual ~Topology() = default;
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  const std::string& name() const { return name_; }
  int nodes() const { return nodes_; }
  int routers() const { return routers_; }
  int ports() const { return ports_; }  // per router

  // The router and port node's interface is attached to.
  virtual PortRef attachment(int node) const = 0;
  // The node whose interface is attached at (router, port), or -1.
  virtual int terminal(int router, int port) const = 0;
  // Where a flit leaving `router` on `port` arrives (router and input
  // port); invalid for an interface's port and for an unconnected one.
  virtual PortRef link(int router, int port) const = 0;
  // Router-to-router links of a minimal path from node src to node dst.
  virtual int distance(int src, int dst) const = 0;
  // Cycles a flit spends on the link leaving `router` on `port`, and the
  // credits for it on their way back (as many more as it exceeds
  // delays.link). Links are symmetric: link(r, p) leads to a port with the
  // same delay. By default every link takes noc.delay.link.
  virtual int link_delay(int /*router*/, int /*port*/, const RouterDelays& delays) const { return delays.link; }
  // The shape in a few words ("4x4", "4-ary 3-tree"), for summaries.
  virtual std::string shape() const = 0;
  virtual std::string port_name(int router, int port) const = 0;
  virtual std::string node_name(int node) const = 0;
  virtual std::string router_name(int router) const = 0;
  // Coordinates, for traffic patterns that need them; nullptr when the
  // topology has none.
  virtual const GridTopology* grid() const { return nullptr; }
  // The routing function noc.routing names (the registry entry lists the
  // names this topology accepts).
  virtual std::unique_ptr<RoutingFunction> make_routing(const NocParams& p) const = 0;

 protected:
  Topology(std::string name, int nodes, int routers, int ports)
      : name_(std::move(name)), nodes_(nodes), routers_(routers), ports_(ports) {}
  void set_size(int nodes, int routers) {
    nodes_ = nodes;
    routers_ = routers;
  }

 private:
  std::string name_;
  int nodes_, routers_, ports_;
};

// One registered topology: its noc.topology name, what it is, the
// noc.routing values it accepts, and its factory.
struct TopologyInfo {
  std::string name;
  std::string help;
  std::vector<std::string> routings;
  std::unique_ptr<Topology> (*make)(const NocParams& p);
};

// Every registered topology, in registration order.
const std::vector<TopologyInfo>& topology_registry();
// The entry noc.topology names; throws sim::ConfigError naming noc.topology.
const TopologyInfo& topology_info(const std::string& name);
std::unique_ptr<Topology> make_topology(const NocParams& p);

}  // namespace tessera::noc
