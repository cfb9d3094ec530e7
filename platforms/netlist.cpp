#include "platforms/netlist.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>
#include <set>

#include "sim/config.h"

namespace tessera::platform {

namespace {

using sim::ConfigError;

std::string at(const std::string& origin, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return m.is_null() ? origin : fmt::format("{}:{}", origin, m.line + 1);
}

// A name of an instance or socket: what a reader would call an identifier.
bool is_name(const std::string& s) {
  static const std::regex name("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, name);
}

void flatten_params(const YAML::Node& node, const std::string& prefix, const std::string& origin,
                    const std::string& instance, NetlistInstance& out, size_t depth) {
  if (depth > 16)
    throw ConfigError(fmt::format("{}: instance '{}': parameters nest too deep", at(origin, node), instance));
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar() || !seen.insert(kv.first.Scalar()).second)
        throw ConfigError(fmt::format("{}: instance '{}': a parameter name must be a plain, unique name",
                                      at(origin, kv.first), instance));
      flatten_params(kv.second, prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar(), origin, instance,
                     out, depth + 1);
    }
  } else if (node.IsScalar() && !prefix.empty()) {
    if (out.params.count(prefix))
      throw ConfigError(
          fmt::format("{}: instance '{}': parameter '{}' is set twice", at(origin, node), instance, prefix));
    out.params[prefix] = {node.Scalar(), fmt::format("{}: instance '{}'", at(origin, node), instance)};
  } else {
    throw ConfigError(fmt::format("{}: instance '{}': parameter '{}' must be a scalar value or a mapping",
                                  at(origin, node), instance, prefix));
  }
}

SocketRef parse_ref(const std::string& text, const std::string& where) {
  const auto dot = text.find('.');
  SocketRef ref;
  if (dot != std::string::npos) ref = {text.substr(0, dot), text.substr(dot + 1)};
  if (dot == std::string::npos || !is_name(ref.instance) || !is_name(ref.socket))
    throw ConfigError(fmt::format("{}: binding end '{}' is not INSTANCE.SOCKET", where, text));
  return ref;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

const NetlistInstance* Netlist::find(const std::string& name) const {
  for (const auto& i : instances)
    if (i.name == name) return &i;
  return nullptr;
}

std::vector<const NetlistBinding*> Netlist::bindings_from(const std::string& instance,
                                                          const std::string& socket) const {
  std::vector<const NetlistBinding*> out;
  for (const auto& b : bindings)
    if (b.from.instance == instance && b.from.socket == socket) out.push_back(&b);
  return out;
}

std::vector<const NetlistBinding*> Netlist::bindings_to(const std::string& instance, const std::string& socket) const {
  std::vector<const NetlistBinding*> out;
  for (const auto& b : bindings)
    if (b.to.instance == instance && b.to.socket == socket) out.push_back(&b);
  return out;
}

Netlist parse_netlist(const std::string& text, const std::string& origin) {
  Netlist net;
  net.origin = origin;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(
        fmt::format("{}:{}:{}: YAML syntax error: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) return net;
  if (const YAML::Node plugins = root["plugins"]) {
    if (!plugins.IsSequence())
      throw ConfigError(fmt::format("{}: 'plugins' must be a list of shared libraries", at(origin, plugins)));
    const std::filesystem::path dir = std::filesystem::path(origin).parent_path();
    for (const auto& item : plugins) {
      if (!item.IsScalar() || item.Scalar().empty())
        throw ConfigError(fmt::format("{}: a plugin is the path of a shared library", at(origin, item)));
      const std::filesystem::path p(item.Scalar());
      net.plugins.emplace_back((p.is_absolute() ? p : dir / p).lexically_normal().string(),
                               at(origin, item) + ": plugins");
    }
  }
  const YAML::Node instances = root["instances"], bindings = root["bindings"];
  if (bindings && !instances)
    throw ConfigError(fmt::format("{}: 'bindings' without 'instances'", at(origin, bindings)));
  if (!instances) return net;
  if (!instances.IsMap())
    throw ConfigError(
        fmt::format("{}: 'instances' must map instance names to {{type: ..., ...}}", at(origin, instances)));
  // An empty netlist is not the default chip: leaving 'instances' out is.
  if (instances.size() == 0)
    throw ConfigError(
        fmt::format("{}: 'instances' is empty (leave it out for the default chip)", at(origin, instances)));
  std::map<std::string, std::string> first_seen;
  for (const auto& kv : instances) {
    NetlistInstance inst;
    inst.where = at(origin, kv.first);
    if (!kv.first.IsScalar() || !is_name(kv.first.Scalar()))
      throw ConfigError(fmt::format("{}: an instance name must be a plain name (letters, digits, _)", inst.where));
    inst.name = kv.first.Scalar();
    if (const auto it = first_seen.find(inst.name); it != first_seen.end())
      throw ConfigError(
          fmt::format("{}: duplicate instance name '{}' (first at {})", inst.where, inst.name, it->second));
    first_seen[inst.name] = inst.where;
    const YAML::Node& body = kv.second;
    if (!body.IsMap())
      throw ConfigError(fmt::format("{}: instance '{}' must be a mapping with at least 'type'", inst.where, inst.name));
    std::set<std::string> seen;
    for (const auto& field : body) {
      const std::string where = at(origin, field.first);
      if (!field.first.IsScalar() || !seen.insert(field.first.Scalar()).second)
        throw ConfigError(
            fmt::format("{}: instance '{}': a field name must be a plain, unique name", where, inst.name));
      const std::string key = field.first.Scalar();
      if (key == "params") {
        if (!field.second.IsMap())
          throw ConfigError(fmt::format("{}: instance '{}': 'params' must be a mapping", where, inst.name));
        flatten_params(field.second, "", origin, inst.name, inst, 1);
      } else if (key != "type" && field.second.IsSequence()) {
        auto& list = inst.list_attributes[key];
        for (const auto& item : field.second) {
          if (!item.IsScalar())
            throw ConfigError(fmt::format("{}: instance '{}': the items of '{}' must be scalar values",
                                          at(origin, item), inst.name, key));
          list.push_back(item.Scalar());
        }
        inst.attribute_where[key] = where;
      } else if (key != "type" && field.second.IsMap()) {
        auto& map = inst.map_attributes[key];
        for (const auto& kv2 : field.second) {
          if (!kv2.first.IsScalar() || !kv2.second.IsScalar())
            throw ConfigError(fmt::format("{}: instance '{}': '{}' must map names to scalar values",
                                          at(origin, kv2.first), inst.name, key));
          map.emplace_back(kv2.first.Scalar(), kv2.second.Scalar());
        }
        inst.attribute_where[key] = where;
      } else if (!field.second.IsScalar()) {
        throw ConfigError(fmt::format("{}: instance '{}': '{}' must be a scalar value", where, inst.name, key));
      } else if (key == "type") {
        inst.type = field.second.Scalar();
      } else {
        inst.attributes[key] = field.second.Scalar();
        inst.attribute_where[key] = where;
      }
    }
    if (inst.type.empty()) throw ConfigError(fmt::format("{}: instance '{}' has no 'type'", inst.where, inst.name));
    net.instances.push_back(std::move(inst));
  }
  if (!bindings) return net;
  if (!bindings.IsSequence())
    throw ConfigError(
        fmt::format("{}: 'bindings' must be a list of 'INSTANCE.SOCKET -> INSTANCE.SOCKET'", at(origin, bindings)));
  for (const auto& item : bindings) {
    NetlistBinding b;
    b.where = at(origin, item);
    const std::string line = item.IsScalar() ? item.Scalar() : "";
    const auto arrow = line.find("->");
    if (arrow == std::string::npos)
      throw ConfigError(
          fmt::format("{}: a binding is 'INSTANCE.SOCKET -> INSTANCE.SOCKET' (initiator -> target)", b.where));
    b.from = parse_ref(trim(line.substr(0, arrow)), b.where);
    b.to = parse_ref(trim(line.substr(arrow + 2)), b.where);
    net.bindings.push_back(std::move(b));
  }
  return net;
}

std::vector<int> parse_node_list(const std::string& text, const std::string& what) {
  std::vector<int> nodes;
  size_t pos = 0;
  const auto bad = [&] { return ConfigError(fmt::format("{}: '{}' is not a node list such as 0-3,8", what, text)); };
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item = trim(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    const auto dash = item.find('-', 1);
    const auto lo = sim::parse_integer(item.substr(0, dash));
    const auto hi = dash == std::string::npos ? lo : sim::parse_integer(item.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > 65535) throw bad();
    for (int64_t n = *lo; n <= *hi; ++n) nodes.push_back(static_cast<int>(n));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return nodes;
}

}  // namespace tessera::platform
