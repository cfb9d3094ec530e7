#include "platforms/component_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/config.h"

namespace tessera::platform {

using sim::ConfigError;

const SocketSpec* ComponentType::socket(const std::string& socket_name) const {
  for (const auto& s : sockets)
    if (s.name == socket_name) return &s;
  return nullptr;
}

void ComponentRegistry::add(ComponentType type) {
  const std::string name = type.name;
  if (!types_.emplace(name, std::move(type)).second)
    throw std::logic_error(fmt::format("component type '{}' registered twice", name));
}

const ComponentType* ComponentRegistry::find(const std::string& name) const {
  const auto it = types_.find(name);
  return it == types_.end() ? nullptr : &it->second;
}

namespace {

std::string socket_names(const ComponentType& type) {
  std::string out;
  for (const auto& s : type.sockets)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", s.name,
                       s.kind == SocketSpec::Kind::kInitiator ? "initiator" : "target");
  return out.empty() ? "none" : out;
}

unsigned endpoints_of(const ComponentType& type, const NetlistInstance& inst, const sim::Config& cfg) {
  return type.endpoints ? type.endpoints(inst, cfg) : 1;
}

}  // namespace

std::map<std::string, std::vector<int>> network_nodes(const Netlist& net, const ComponentRegistry& registry,
                                                      const sim::Config& cfg, const NetlistInstance& network) {
  const ComponentType& type = *registry.find(network.type);
  // Endpoints in binding order: requesters (bound to the network's target
  // sockets) first, then targets, as the network numbers them.
  std::vector<const NetlistInstance*> endpoints;
  for (const SocketSpec::Kind kind : {SocketSpec::Kind::kTarget, SocketSpec::Kind::kInitiator})
    for (const auto& s : type.sockets) {
      if (!s.network_endpoints || s.kind != kind) continue;
      const auto bound = kind == SocketSpec::Kind::kTarget ? net.bindings_to(network.name, s.name)
                                                           : net.bindings_from(network.name, s.name);
      for (const auto* b : bound) {
        const NetlistInstance* other = net.find(kind == SocketSpec::Kind::kTarget ? b->from.instance : b->to.instance);
        if (other && std::find(endpoints.begin(), endpoints.end(), other) == endpoints.end())
          endpoints.push_back(other);
      }
    }
  std::map<std::string, std::vector<int>> nodes;
  std::map<int, std::string> taken;
  for (const auto* e : endpoints) {
    const auto it = e->attributes.find("nodes");
    if (it == e->attributes.end()) continue;
    const std::string where = fmt::format("{}: instance '{}'", e->attribute_where.at("nodes"), e->name);
    nodes[e->name] = parse_node_list(it->second, where + ": nodes");
    const unsigned want = endpoints_of(*registry.find(e->type), *e, cfg);
    if (nodes[e->name].size() != want)
      throw ConfigError(fmt::format("{}: nodes '{}' names {} nodes of network '{}' for {} endpoints", where, it->second,
                                    nodes[e->name].size(), network.name, want));
    for (int n : nodes[e->name])
      if (!taken.emplace(n, e->name).second)
        throw ConfigError(fmt::format("{}: node {} of network '{}' is already taken by instance '{}'", where, n,
                                      network.name, taken[n]));
  }
  int next = 0;
  for (const auto* e : endpoints) {
    if (nodes.count(e->name)) continue;
    const unsigned want = endpoints_of(*registry.find(e->type), *e, cfg);
    for (unsigned i = 0; i < want; ++i) {
      while (taken.count(next)) ++next;
      taken.emplace(next, e->name);
      nodes[e->name].push_back(next);
    }
  }
  return nodes;
}

void validate_netlist(const Netlist& net, const ComponentRegistry& registry, const sim::Config& cfg) {
  for (const auto& inst : net.instances) {
    const ComponentType* type = registry.find(inst.type);
    if (!type) {
      std::string known;
      for (const auto& [name, t] : registry.types()) known += " " + name;
      throw ConfigError(fmt::format("{}: instance '{}': unknown component type '{}' (known types:{})", inst.where,
                                    inst.name, inst.type, known));
    }
    for (const auto& attribute : inst.attribute_where) {
      const std::string& key = attribute.first;
      const auto spec = std::find_if(type->attributes.begin(), type->attributes.end(),
                                     [&](const AttributeSpec& a) { return a.name == key; });
      if (spec != type->attributes.end()) {
        const AttributeSpec::Kind given = inst.list_attributes.count(key)  ? AttributeSpec::Kind::kList
                                          : inst.map_attributes.count(key) ? AttributeSpec::Kind::kMap
                                                                           : AttributeSpec::Kind::kScalar;
        if (given != spec->kind) {
          static const char* const kinds[] = {"a scalar value", "a list ([a, b])", "a mapping ({name: value})"};
          throw ConfigError(fmt::format("{}: instance '{}': '{}' of a {} must be {}", attribute.second, inst.name, key,
                                        inst.type, kinds[static_cast<int>(spec->kind)]));
        }
      }
      if (spec == type->attributes.end()) {
        std::string names;
        for (const auto& a : type->attributes) names += " " + a.name;
        throw ConfigError(
            fmt::format("{}: instance '{}': a {} has no attribute '{}' (it has: type, params{}); "
                        "model parameters go under params:",
                        inst.attribute_where.at(key), inst.name, inst.type, key, names));
      }
    }
  }
  // Each end of each binding: a known instance, a known socket, the right direction.
  std::map<std::string, std::vector<const NetlistBinding*>> uses;  // "instance.socket"
  for (const auto& b : net.bindings) {
    for (const bool initiator : {true, false}) {
      const SocketRef& ref = initiator ? b.from : b.to;
      const NetlistInstance* inst = net.find(ref.instance);
      if (!inst)
        throw ConfigError(
            fmt::format("{}: binding '{} -> {}': no instance '{}'", b.where, b.from.text(), b.to.text(), ref.instance));
      const ComponentType& type = *registry.find(inst->type);
      const SocketSpec* s = type.socket(ref.socket);
      if (!s)
        throw ConfigError(fmt::format("{}: instance '{}' ({}) has no socket '{}' (its sockets: {})", b.where,
                                      inst->name, inst->type, ref.socket, socket_names(type)));
      const auto want = initiator ? SocketSpec::Kind::kInitiator : SocketSpec::Kind::kTarget;
      if (s->kind != want)
        throw ConfigError(fmt::format("{}: binding '{} -> {}': {} is {} socket; a binding goes initiator -> target",
                                      b.where, b.from.text(), b.to.text(), ref.text(),
                                      s->kind == SocketSpec::Kind::kInitiator ? "an initiator" : "a target"));
      auto& list = uses[ref.text()];
      list.push_back(&b);
      if (s->max_bindings && list.size() > s->max_bindings)
        throw ConfigError(
            fmt::format("{}: instance '{}': socket '{}' is bound {} times but allows {} (first "
                        "binding at {})",
                        b.where, inst->name, ref.socket, list.size(), s->max_bindings, list.front()->where));
    }
  }
  for (const auto& inst : net.instances) {
    const ComponentType& type = *registry.find(inst.type);
    for (const auto& s : type.sockets)
      if (s.required && !uses.count(inst.name + "." + s.name))
        throw ConfigError(fmt::format("{}: instance '{}' ({}): {} socket '{}'{} is not bound", inst.where, inst.name,
                                      inst.type, s.kind == SocketSpec::Kind::kInitiator ? "initiator" : "target",
                                      s.name, s.description.empty() ? "" : " (" + s.description + ")"));
  }
  // Memory address ranges must not overlap.
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, const NetlistInstance*>> ranges;
  for (const auto& inst : net.instances) {
    const ComponentType& type = *registry.find(inst.type);
    if (!type.address_range) continue;
    if (const auto r = type.address_range(inst)) ranges.push_back({*r, &inst});
  }
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    const auto& [prev, prev_inst] = ranges[i - 1];
    const auto& [cur, cur_inst] = ranges[i];
    if (cur.first < prev.first + prev.second)
      throw ConfigError(
          fmt::format("{}: instance '{}': address range [0x{:x}, 0x{:x}) overlaps instance '{}' [0x{:x}, 0x{:x}) ({})",
                      cur_inst->where, cur_inst->name, cur.first, cur.first + cur.second, prev_inst->name, prev.first,
                      prev.first + prev.second, prev_inst->where));
  }
  // Networks: every endpoint on a node the network has.
  std::set<std::string> endpoints;
  for (const auto& inst : net.instances) {
    const ComponentType& type = *registry.find(inst.type);
    if (!type.network_nodes) continue;
    const int size = type.network_nodes(inst, cfg);
    const auto nodes = network_nodes(net, registry, cfg, inst);
    for (const auto& [name, list] : nodes) endpoints.insert(name);
    size_t total = 0;
    for (const auto& [name, list] : nodes) {
      total += list.size();
      for (int n : list)
        if (n >= size)
          throw ConfigError(
              fmt::format("{}: instance '{}' (network) has {} nodes ({}), too few for its endpoints: "
                          "instance '{}' is at node {}",
                          inst.where, inst.name, size, type.size_parameters, name, n));
    }
    if (total > static_cast<size_t>(size))
      throw ConfigError(fmt::format("{}: instance '{}' (network) has {} nodes ({}), too few for its {} endpoints",
                                    inst.where, inst.name, size, type.size_parameters, total));
  }
  for (const auto& inst : net.instances)
    if (inst.attributes.count("nodes") && !endpoints.count(inst.name))
      throw ConfigError(fmt::format("{}: instance '{}' has nodes but is bound to no network",
                                    inst.attribute_where.at("nodes"), inst.name));
}

std::vector<const NetlistInstance*> build_order(const Netlist& net, const ComponentRegistry& registry) {
  const size_t n = net.instances.size();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < n; ++i) index.emplace(net.instances[i].name, i);
  // before[i]: the instances i takes while it is built.
  std::vector<std::set<size_t>> before(n);
  for (const auto& b : net.bindings) {
    const auto from = index.find(b.from.instance), to = index.find(b.to.instance);
    if (from == index.end() || to == index.end() || from->second == to->second) continue;
    const ComponentType* from_type = registry.find(net.instances[from->second].type);
    const ComponentType* to_type = registry.find(net.instances[to->second].type);
    const SocketSpec* out = from_type ? from_type->socket(b.from.socket) : nullptr;
    const SocketSpec* in = to_type ? to_type->socket(b.to.socket) : nullptr;
    if ((out && out->bound_while_built) || (in && in->built_first)) before[from->second].insert(to->second);
  }
  std::vector<const NetlistInstance*> order;
  std::vector<bool> built(n, false);
  while (order.size() < n) {
    size_t next = n;
    for (size_t i = 0; i < n && next == n; ++i)
      if (!built[i] && std::all_of(before[i].begin(), before[i].end(), [&](size_t j) { return built[j]; })) next = i;
    if (next == n) {
      std::string cycle;
      for (size_t i = 0; i < n; ++i)
        if (!built[i]) cycle += fmt::format("{}'{}'", cycle.empty() ? "" : ", ", net.instances[i].name);
      throw ConfigError(
          fmt::format("{}: instances {} each take another of them while they are built; no order "
                      "builds them",
                      net.origin, cycle));
    }
    built[next] = true;
    order.push_back(&net.instances[next]);
  }
  return order;
}

std::string netlist_dot(const Netlist& net, const std::string& title) {
  std::string out = fmt::format(
      "digraph \"{}\" {{\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n"
      "  edge [fontname=\"Helvetica\", fontsize=10];\n",
      title);
  for (const auto& inst : net.instances) {
    std::string label = inst.name == inst.type ? inst.name : inst.name + "\\n" + inst.type;
    for (const auto& [key, value] : inst.attributes) label += fmt::format("\\n{}={}", key, value);
    for (const auto& [key, value] : inst.params) label += fmt::format("\\n{}={}", key, value.first);
    out += fmt::format("  \"{}\" [label=\"{}\"];\n", inst.name, label);
  }
  for (const auto& b : net.bindings)
    out += fmt::format("  \"{}\" -> \"{}\" [label=\"{} -> {}\"];\n", b.from.instance, b.to.instance, b.from.socket,
                       b.to.socket);
  return out + "}\n";
}

// The process itself: the SystemC kernel, the program image, the libraries
// (17.2 MiB measured for the default 4-SM chip).
constexpr uint64_t kProcessBytes = 32ull << 20;

void check_host_memory(const Netlist& net, const ComponentRegistry& registry, const sim::Config& cfg,
                       uint64_t limit_bytes, const std::string& limit_source) {
  if (limit_bytes == 0) return;
  struct Share {
    std::string instance;
    MemoryEstimate estimate;
  };
  std::vector<Share> shares;
  uint64_t total = kProcessBytes;
  for (const NetlistInstance& inst : net.instances) {
    const ComponentType* type = registry.find(inst.type);
    if (!type || !type->memory) continue;
    shares.push_back({inst.name, type->memory(inst, cfg)});
    total += shares.back().estimate.bytes;
  }
  if (total <= limit_bytes) return;
  std::stable_sort(shares.begin(), shares.end(),
                   [](const Share& a, const Share& b) { return a.estimate.bytes > b.estimate.bytes; });
  std::string largest;
  for (size_t i = 0; i < shares.size() && i < 4 && shares[i].estimate.bytes >= (1u << 20); ++i)
    largest +=
        fmt::format("; {} {} MiB ({})", shares[i].instance, shares[i].estimate.bytes >> 20, shares[i].estimate.keys);
  throw sim::ConfigError(fmt::format(
      "{}: the model would take about {} MiB of host memory, more than the {} MiB {}{}; make it smaller or raise "
      "the limit (--memory-limit)",
      net.origin, total >> 20, limit_bytes >> 20, limit_source, largest));
}

namespace {

// The first number after `key` in a /proc or /sys file, times `unit`; 0
// when absent.
uint64_t read_number(const std::string& path, const std::string& key, uint64_t unit) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream rest(line.substr(key.size()));
    uint64_t value = 0;
    if (rest >> value) return value * unit;
  }
  return 0;
}

// The least memory a cgroup at `path` under `root`, or one above it, leaves:
// its limit less its use; UINT64_MAX when none has a limit ("max").
uint64_t cgroup_left(const std::string& root, std::string path, const char* limit_file, const char* usage_file) {
  uint64_t left = UINT64_MAX;
  for (bool top = false; !top; path = path.substr(0, path.find_last_of('/'))) {
    top = path.empty() || path == "/";
    const std::string dir = root + (top ? std::string() : path);
    if (const uint64_t limit = read_number(dir + "/" + limit_file, "", 1)) {
      const uint64_t used = read_number(dir + "/" + usage_file, "", 1);
      left = std::min(left, limit > used ? limit - used : 0);
    }
  }
  return left;
}

}  // namespace

uint64_t host_memory_available() {
  uint64_t available = read_number("/proc/meminfo", "MemAvailable:", 1024);
  if (available == 0) available = UINT64_MAX;
  // /proc/self/cgroup: "0::/path" (cgroup v2), "N:...memory...:/path" (v1).
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':'), second = line.find(':', colon + 1);
    if (colon == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(colon + 1, second - colon - 1), path = line.substr(second + 1);
    if (line.compare(0, 3, "0::") == 0)
      available = std::min(available, cgroup_left("/sys/fs/cgroup", path, "memory.max", "memory.current"));
    else if (("," + controllers + ",").find(",memory,") != std::string::npos)
      available = std::min(
          available, cgroup_left("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes"));
  }
  return available == UINT64_MAX ? 0 : available;
}

}  // namespace tessera::platform
