// A platform netlist's composition: the `instances:` of registered component
// types with their attributes and parameters, and the `bindings:` that
// connect an initiator socket of one instance to a target socket of another.
// Parsing knows no component type; component_registry.h validates a netlist
// against the registered types.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera::platform {

struct NetlistInstance {
  std::string name;
  std::string type;
  std::string where;  // "file:line" of the instance
  // Attributes of the instance itself (count, nodes, base, size_mb): key -> text.
  std::map<std::string, std::string> attributes;
  // Attributes whose value is a list of scalars (an rtl_device's sources)
  // or a mapping of names to scalars (its parameters), in file order.
  std::map<std::string, std::vector<std::string>> list_attributes;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> map_attributes;
  std::map<std::string, std::string> attribute_where;  // every kind
  // Model parameters for this instance only, flattened ("l1.size_kb") ->
  // (text, source), the form sim::Config::Scope takes.
  std::map<std::string, std::pair<std::string, std::string>> params;
};

struct SocketRef {
  std::string instance;
  std::string socket;
  std::string text() const { return instance + "." + socket; }
};

// `from.socket -> to.socket`: an initiator socket bound to a target socket.
struct NetlistBinding {
  SocketRef from, to;
  std::string where;
};

struct Netlist {
  std::string origin;                      // the file
  std::vector<NetlistInstance> instances;  // in file order
  std::vector<NetlistBinding> bindings;    // in file order
  // `plugins:` (platforms/plugin.h): libraries to load before the instances
  // are validated, as paths (relative ones resolved against the file's
  // directory) with their file:line.
  std::vector<std::pair<std::string, std::string>> plugins;

  bool empty() const { return instances.empty(); }
  const NetlistInstance* find(const std::string& name) const;
  // Bindings leaving (initiator side) or reaching (target side) a socket, in file order.
  std::vector<const NetlistBinding*> bindings_from(const std::string& instance, const std::string& socket) const;
  std::vector<const NetlistBinding*> bindings_to(const std::string& instance, const std::string& socket) const;
};

// Reads the `instances:` and `bindings:` sections of a netlist's YAML text
// (other sections are parameters, read by sim::Config). Throws
// sim::ConfigError naming file:line and the instance for a malformed entry or
// a duplicate instance name. A text without `instances:` gives an empty
// Netlist.
Netlist parse_netlist(const std::string& text, const std::string& origin);

// "0-3,8" -> {0, 1, 2, 3, 8}; throws sim::ConfigError mentioning `what`.
std::vector<int> parse_node_list(const std::string& text, const std::string& what);

}  // namespace tessera::platform
