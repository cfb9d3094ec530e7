// Component types a netlist may instantiate: for each, its sockets, its
// instance attributes and a factory. Validation of a netlist against the
// registered types is plain C++ (no SystemC), so it is tested directly and
// runs before anything is elaborated. Each of Tessera's models registers its
// type in its own file, platforms/components/<type>.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platforms/netlist.h"

namespace tessera::sim {
class Config;
}

namespace tessera::platform {

class Component;      // component.h: a built instance (SystemC)
struct BuildContext;  // component.h

struct SocketSpec {
  enum class Kind { kInitiator, kTarget };
  std::string name;
  Kind kind = Kind::kInitiator;
  unsigned max_bindings = 1;       // 0: any number
  bool required = true;            // an unbound socket is an error
  bool network_endpoints = false;  // the instances bound here are nodes of this network
  std::string description;
  // An initiator socket whose targets the instance takes while it is built
  // (the dispatcher binds its SMs' launch ports then): they are built
  // before it, and the platform does not bind it again.
  bool bound_while_built = false;
  // A target socket whose instance is built before the instances bound to
  // it, which take it while they are built (the L2 before its interconnect).
  bool built_first = false;
};

struct AttributeSpec {
  enum class Kind { kScalar, kList, kMap };
  std::string name;
  std::string description;
  Kind kind = Kind::kScalar;  // list: NetlistInstance::list_attributes; map: map_attributes
};

// What an instance will take of the host's memory, estimated before
// anything is built, and the parameters that set it.
struct MemoryEstimate {
  uint64_t bytes = 0;
  std::string keys;
};

struct ComponentType {
  std::string name;
  std::string description;
  std::vector<SocketSpec> sockets;
  std::vector<AttributeSpec> attributes;  // besides type and params
  // Deadlock and watchdog reports list instances in ascending report_order.
  int report_order = 100;
  // Optional: how many network endpoints (SMs of a cluster, L2 slices) the
  // instance presents; default 1. cfg holds the platform's parameters.
  std::function<unsigned(const NetlistInstance&, const sim::Config&)> endpoints;
  // Optional, for networks: the number of nodes, and the parameters that set it.
  std::function<int(const NetlistInstance&, const sim::Config&)> network_nodes;
  std::string size_parameters;
  // Optional, for memories: [base, base + size) the instance serves.
  std::function<std::optional<std::pair<uint64_t, uint64_t>>(const NetlistInstance&)> address_range;
  // Optional, for instances whose host memory grows with their parameters
  // (check_host_memory); others count as a few MiB at most.
  std::function<MemoryEstimate(const NetlistInstance&, const sim::Config&)> memory;
  std::function<std::unique_ptr<Component>(const NetlistInstance&, BuildContext&)> factory;

  const SocketSpec* socket(const std::string& name) const;
};

class ComponentRegistry {
 public:
  void add(ComponentType type);
  const ComponentType* find(const std::string& name) const;
  const std::map<std::string, ComponentType>& types() const { return types_; }

 private:
  std::map<std::string, ComponentType> types_;
};

// The registry of Tessera's models (platforms/components/) and of the
// plugins loaded so far (platforms/plugin.h).
const ComponentRegistry& builtin_components();

// Throws sim::ConfigError for the first mistake, naming the instance and
// file:line: unknown type or attribute, a binding to an unknown instance or
// socket or in the wrong direction, a socket bound more often than it
// allows, a required socket left unbound, overlapping address ranges, a
// network with too few nodes for its endpoints or two endpoints on one node.
void validate_netlist(const Netlist& net, const ComponentRegistry& registry, const sim::Config& cfg);

// The node of each endpoint port of `network` (an instance whose type has
// network_endpoints sockets): the instance's `nodes` attribute, or else the
// lowest free nodes in binding order. Key: instance name.
std::map<std::string, std::vector<int>> network_nodes(const Netlist& net, const ComponentRegistry& registry,
                                                      const sim::Config& cfg, const NetlistInstance& network);

// Refuses (sim::ConfigError) a netlist whose estimated host memory exceeds
// limit_bytes, before anything is built: the message gives the estimate,
// the largest instances' shares and the parameters that set them. A model
// built beyond the machine's memory would end in std::bad_alloc at best
// (exit status 9) and in the kernel's OOM killer at worst.
void check_host_memory(const Netlist& net, const ComponentRegistry& registry, const sim::Config& cfg,
                       uint64_t limit_bytes, const std::string& limit_source);

// The memory this process may still take: the smaller of the system's
// available memory (/proc/meminfo MemAvailable) and what its cgroup's
// limit leaves (a Slurm job's --mem); 0 when neither can be read.
uint64_t host_memory_available();

// The instances in elaboration order, derived from the bindings: an
// instance comes after those it takes while it is built (a binding from a
// bound_while_built socket, or to a built_first one), otherwise in netlist
// order (the earliest instance whose predecessors are built comes next).
// The order fixes SystemC's process order, so the shipped platforms list
// their instances in the order they have always been built in. A cycle of
// such bindings is a sim::ConfigError naming its instances.
std::vector<const NetlistInstance*> build_order(const Netlist& net, const ComponentRegistry& registry);

// Graphviz dot text of the instances and bindings.
std::string netlist_dot(const Netlist& net, const std::string& title);

}  // namespace tessera::platform
