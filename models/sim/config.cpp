#include "sim/config.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessera::sim {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

// A netlist is a few hundred keys. Aliases let a short file name the same
// subtree many times (and an anchor may even contain its own alias), so the
// walk that flattens it is bounded in nodes and in depth.
constexpr size_t kMaxYamlNodes = 100000;
constexpr size_t kMaxYamlDepth = 64;

// A netlist file is a few KiB; reading one is capped so that a wrong path
// (a disk image, /dev/zero) fails at once.
constexpr std::streamsize kMaxYamlFileBytes = 1 << 20;

std::string at(const std::string& origin, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return m.is_null() ? origin : fmt::format("{}:{}", origin, m.line + 1);
}

// Counts document starts. yaml-cpp's LoadAll loops forever on some
// malformed input (a lone ","), each pass an empty document, so documents
// are counted with the parser's events and at most two are asked for.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (count_++ == 1) second_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  int count() const { return count_; }
  const YAML::Mark& second() const { return second_; }

 private:
  int count_ = 0;
  YAML::Mark second_;
};

}  // namespace

void Config::load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw ConfigError(fmt::format("cannot read platform file '{}'", path));
  std::string text(static_cast<size_t>(kMaxYamlFileBytes) + 1, '\0');
  in.read(text.data(), kMaxYamlFileBytes + 1);
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.gcount() > kMaxYamlFileBytes)
    throw ConfigError(fmt::format("{}: larger than {} bytes; not a platform netlist", path, kMaxYamlFileBytes));
  load_yaml(text, path, true);
  netlist_text_ = std::move(text);
  netlist_origin_ = path;
}

void Config::load_yaml_string(const std::string& text, const std::string& origin) { load_yaml(text, origin, false); }

void Config::load_yaml(const std::string& text, const std::string& origin, bool netlist) {
  YAML::Node root;
  DocumentCounter documents;
  try {
    root = YAML::Load(text);
    std::istringstream in(text);
    YAML::Parser parser(in);
    for (int i = 0; i < 2 && parser.HandleNextDocument(documents); ++i) {
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError(
        fmt::format("{}:{}:{}: YAML syntax error: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (documents.count() > 1)
    throw ConfigError(
        fmt::format("{}:{}: a second YAML document; a netlist is exactly one", origin, documents.second().line + 1));
  if (!root.IsMap())
    throw ConfigError(
        fmt::format("{}: {}", origin, netlist ? "a platform file must be a YAML mapping" : "expected a YAML mapping"));
  FlattenBudget budget{origin, kMaxYamlNodes};
  std::set<std::string> seen;
  for (const auto& kv : root) {
    const std::string key = scalar_key(kv.first, origin, seen);
    if (netlist && (key == "instances" || key == "bindings" || key == "plugins")) continue;  // the platform builder's
    if (netlist && (key == "platform" || key == "description")) {
      if (!kv.second.IsScalar())
        throw ConfigError(fmt::format("{}: '{}' must be a text value", at(origin, kv.second), key));
      (key == "platform" ? platform_name_ : platform_description_) = kv.second.Scalar();
    } else {
      flatten(kv.second, key, budget, 1);
    }
  }
}

std::string Config::scalar_key(const YAML::Node& key, const std::string& origin, std::set<std::string>& seen) {
  if (!key.IsScalar()) throw ConfigError(fmt::format("{}: a key must be a plain name", at(origin, key)));
  if (!seen.insert(key.Scalar()).second)
    throw ConfigError(fmt::format("{}: duplicate key '{}'", at(origin, key), key.Scalar()));
  return key.Scalar();
}

void Config::flatten(const YAML::Node& node, const std::string& prefix, FlattenBudget& budget, size_t depth) {
  if (budget.nodes_left == 0 || depth > kMaxYamlDepth)
    throw ConfigError(
        fmt::format("{}: '{}': the netlist expands to more than {} nodes or {} levels (through "
                    "aliases?); a platform needs far fewer",
                    at(budget.origin, node), prefix, kMaxYamlNodes, kMaxYamlDepth));
  --budget.nodes_left;
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : node)
      flatten(kv.second, prefix + "." + scalar_key(kv.first, budget.origin, seen), budget, depth + 1);
  } else if (node.IsScalar()) {
    const auto it = values_.find(prefix);
    if (it != values_.end() && it->second.source == budget.origin)
      throw ConfigError(fmt::format("{}: '{}' is set twice", at(budget.origin, node), prefix));
    set(prefix, node.Scalar(), budget.origin);
  } else {
    throw ConfigError(fmt::format("{}: '{}' must be a scalar value or a mapping", at(budget.origin, node), prefix));
  }
}

void Config::set_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(fmt::format("--set '{}': expected key=value", assignment));
  set(assignment.substr(0, eq), assignment.substr(eq + 1), "--set");
}

void Config::set(const std::string& key, const std::string& value, const std::string& source) {
  values_[key] = Value{value, source};
}

Config::Scope::Scope(Config& cfg, const std::string& instance,
                     const std::map<std::string, std::pair<std::string, std::string>>& values)
    : cfg_(cfg) {
  if (!cfg.active_scope_.empty()) throw std::logic_error("sim::Config::Scope: scopes do not nest");
  ScopeValues& scope = cfg.scopes_[instance];
  for (const auto& [key, value] : values) scope.values[key] = Value{value.first, value.second};
  cfg.active_scope_ = instance;
}

Config::Scope::~Scope() { cfg_.active_scope_.clear(); }

const Config::Value* Config::lookup(const std::string& key, bool* scoped) {
  if (scoped) *scoped = false;
  auto it = values_.find(key);
  const bool command_line = it != values_.end() && it->second.source == "--set";
  if (!active_scope_.empty()) {
    // The instance's value counts as read even where the command line overrides it.
    ScopeValues& scope = scopes_[active_scope_];
    if (scope.values.count(key)) scope.used.insert(key);
    // `--set instance:key=value` sets one instance's parameter.
    if (auto own = values_.find(active_scope_ + ":" + key); own != values_.end()) {
      if (scoped) *scoped = true;
      return &own->second;
    }
  }
  if (!active_scope_.empty() && !command_line) {
    ScopeValues& scope = scopes_[active_scope_];
    if (auto s = scope.values.find(key); s != scope.values.end()) {
      scope.used.insert(key);
      if (scoped) *scoped = true;
      return &s->second;
    }
  }
  return it == values_.end() ? nullptr : &it->second;
}

void Config::declare(ParamSpec spec, bool scoped) {
  if (scoped) {
    // Declared once per instance; the platform-wide key keeps its own spec.
    const std::string key = active_scope_ + ":" + spec.key;
    spec.key = key;
    scoped_specs_.emplace(key, std::move(spec));
    return;
  }
  auto it = specs_.find(spec.key);
  if (it != specs_.end()) {
    if (it->second.default_value != spec.default_value || it->second.type != spec.type)
      throw std::logic_error(fmt::format("parameter '{}' declared twice with different defaults", spec.key));
    return;
  }
  specs_.emplace(spec.key, std::move(spec));
}

std::optional<int64_t> parse_integer(const std::string& text) {
  // Decimal with an optional '-', or hexadecimal with 0x. A leading zero is
  // refused rather than read as octal: "010" in a netlist means ten to a
  // reader, but eight to strtoll.
  const bool negative = !text.empty() && text[0] == '-';
  const std::string digits = text.substr(negative ? 1 : 0);
  const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  const std::string body = hex ? digits.substr(2) : digits;
  if (body.empty() || (!hex && body.size() > 1 && body[0] == '0')) return std::nullopt;
  for (const char c : body)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
      return std::nullopt;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE) return std::nullopt;
  return value;
}

namespace {
std::string where(const std::string& key, const std::string& source) {
  return source == "--set" ? fmt::format("--set {}", key) : fmt::format("{}: {}", source, key);
}
}  // namespace

int64_t Config::get_int(const std::string& key, int64_t def, int64_t lo, int64_t hi, const std::string& desc) {
  int64_t v = def;
  std::string source = "default";
  bool scoped = false;
  if (const Value* given = lookup(key, &scoped)) {
    source = given->source;
    const std::optional<int64_t> parsed = parse_integer(given->text);
    if (!parsed)
      throw ConfigError(
          fmt::format("{}: '{}' is not an integer (decimal, or hexadecimal with 0x)", where(key, source), given->text));
    v = *parsed;
    if (v < lo || v > hi)
      throw ConfigError(fmt::format("{}: value {} is out of range [{}, {}] ({})", where(key, source), v, lo, hi, desc));
  }
  declare(ParamSpec{key, "int", std::to_string(def), std::to_string(v), fmt::format("[{}, {}]", lo, hi), desc, source},
          scoped);
  return v;
}

double Config::get_float(const std::string& key, double def, double lo, double hi, const std::string& desc) {
  double v = def;
  std::string source = "default";
  bool scoped = false;
  if (const Value* given = lookup(key, &scoped)) {
    source = given->source;
    char* end = nullptr;
    v = std::strtod(given->text.c_str(), &end);
    if (given->text.empty() || *end != '\0' || !std::isfinite(v))
      throw ConfigError(fmt::format("{}: '{}' is not a number", where(key, source), given->text));
    if (v < lo || v > hi)
      throw ConfigError(fmt::format("{}: value {} is out of range [{}, {}] ({})", where(key, source), v, lo, hi, desc));
  }
  declare(ParamSpec{key, "float", fmt::format("{}", def), fmt::format("{}", v), fmt::format("[{}, {}]", lo, hi), desc,
                    source},
          scoped);
  return v;
}

bool Config::get_bool(const std::string& key, bool def, const std::string& desc) {
  bool v = def;
  std::string source = "default";
  bool scoped = false;
  if (const Value* given = lookup(key, &scoped)) {
    source = given->source;
    const std::string& t = given->text;
    if (t == "true" || t == "1" || t == "on" || t == "yes") {
      v = true;
    } else if (t == "false" || t == "0" || t == "off" || t == "no") {
      v = false;
    } else {
      throw ConfigError(fmt::format("{}: '{}' is not a boolean (true/false)", where(key, source), t));
    }
  }
  declare(ParamSpec{key, "bool", def ? "true" : "false", v ? "true" : "false", "true|false", desc, source}, scoped);
  return v;
}

std::string Config::get_string(const std::string& key, const std::string& def, const std::string& desc) {
  std::string v = def;
  std::string source = "default";
  bool scoped = false;
  if (const Value* given = lookup(key, &scoped)) {
    source = given->source;
    v = given->text;
  }
  declare(ParamSpec{key, "string", def, v, "text", desc, source}, scoped);
  return v;
}

std::string Config::get_enum(const std::string& key, const std::string& def, const std::vector<std::string>& choices,
                             const std::string& desc) {
  std::string v = def;
  std::string source = "default";
  std::string joined;
  for (const auto& c : choices) joined += (joined.empty() ? "" : "|") + c;
  bool scoped = false;
  if (const Value* given = lookup(key, &scoped)) {
    source = given->source;
    v = given->text;
    if (std::find(choices.begin(), choices.end(), v) == choices.end())
      throw ConfigError(fmt::format("{}: '{}' is not one of {}", where(key, source), v, joined));
  }
  declare(ParamSpec{key, "enum", def, v, joined, desc, source}, scoped);
  return v;
}

std::string Config::nearest_key(const std::string& key) const {
  std::string best;
  size_t best_distance = std::max<size_t>(3, key.size() / 3) + 1;
  for (const auto& [name, spec] : specs_) {
    const size_t d = edit_distance(key, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  // A key whose last component matches a declared one ("fma_latency" for
  // "sm.fma_latency") is probably that parameter under another prefix.
  if (best.empty()) {
    const auto leaf = key.substr(key.rfind('.') + 1);
    for (const auto& [name, spec] : specs_)
      if (name.size() >= leaf.size() && name.compare(name.size() - leaf.size(), leaf.size(), leaf) == 0) return name;
  }
  return best;
}

void Config::check_all_used() const {
  for (const auto& [instance, scope] : scopes_)
    for (const auto& [key, value] : scope.values)
      if (!scope.used.count(key)) {
        const std::string near = nearest_key(key);
        throw ConfigError(fmt::format("{}: parameter '{}' is not one that instance '{}' reads{}", value.source, key,
                                      instance, near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
      }
  // A key that instances read only with values of their own (`--set
  // memory:memory.latency=5`, the one instance that reads memory.latency)
  // is still a parameter: the platform file's value of it is not unknown.
  std::set<std::string> read_by_instances;
  for (const auto& [scoped_key, spec] : scoped_specs_)
    read_by_instances.insert(scoped_key.substr(scoped_key.find(':') + 1));
  for (const auto& [key, value] : values_) {
    if (specs_.count(key) || scoped_specs_.count(key) || read_by_instances.count(key)) continue;
    const std::string near = nearest_key(key);
    throw ConfigError(fmt::format("{}: unknown parameter '{}'{}", value.source == "--set" ? "--set" : value.source, key,
                                  near.empty() ? " (`tessera config --list` shows this platform's parameters; a "
                                                 "subsystem's exist only when the platform selects it, e.g. dram.* "
                                                 "with memory.model=hbm)"
                                               : fmt::format(" (did you mean '{}'?)", near)));
  }
}

}  // namespace tessera::sim
