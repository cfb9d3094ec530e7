// Typed, named model parameters. Every parameter has a key ("sm.scheduler"),
// a default, a range or set of choices and a one-line description; values
// come from the platform netlist (YAML) and `--set key=value` overrides.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace tessera::sim {

// A configuration mistake made by the user: unknown key, bad value, bad file.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParamSpec {
  std::string key;
  std::string type;           // "int", "float", "bool", "string", "enum"
  std::string default_value;  // as text
  std::string value;          // effective value, as text
  std::string range;          // "[1, 64]" or "lrr|gto|two_level"
  std::string description;
  std::string source;  // "default", the netlist path, or "--set"
};

class Config {
 public:
  // Loads a netlist; every key other than `platform`, `description`,
  // `instances` and `bindings` (the chip's composition, read by the platform
  // builder from netlist_text()) is a parameter, nested maps flatten with
  // dots (sm: {scheduler: gto} is "sm.scheduler").
  void load_yaml_file(const std::string& path);
  void load_yaml_string(const std::string& text, const std::string& origin);
  // "key=value" from the command line.
  void set_override(const std::string& assignment);
  void set(const std::string& key, const std::string& value, const std::string& source);

  const std::string& platform_name() const { return platform_name_; }
  const std::string& platform_description() const { return platform_description_; }
  // The netlist file's text and path ("" before load_yaml_file).
  const std::string& netlist_text() const { return netlist_text_; }
  const std::string& netlist_origin() const { return netlist_origin_; }

  // The parameters of one netlist instance. While a Scope is alive the get_*
  // calls see its values before the platform's, so a model reads the same
  // keys whichever instance it belongs to; a --set on the command line still
  // wins, and `--set instance:key=value` sets the key for that instance only. A parameter read from the scope is
  // declared as "instance:key" (scoped_specs()); a scope value no model read is an error of check_all_used() naming the
  // instance.
  class Scope {
   public:
    // values: key -> (text, source); source names the file:line and instance.
    Scope(Config& cfg, const std::string& instance,
          const std::map<std::string, std::pair<std::string, std::string>>& values);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Config& cfg_;
  };
  const std::map<std::string, ParamSpec>& scoped_specs() const { return scoped_specs_; }

  // Declares a parameter and returns its value. The same key may be declared
  // by many instances (every SM); the declarations must agree.
  int64_t get_int(const std::string& key, int64_t def, int64_t lo, int64_t hi, const std::string& desc);
  double get_float(const std::string& key, double def, double lo, double hi, const std::string& desc);
  bool get_bool(const std::string& key, bool def, const std::string& desc);
  std::string get_string(const std::string& key, const std::string& def, const std::string& desc);
  std::string get_enum(const std::string& key, const std::string& def, const std::vector<std::string>& choices,
                       const std::string& desc);

  // After elaboration: any value that no model declared is an error naming
  // the key and the nearest declared one.
  void check_all_used() const;

  const std::map<std::string, ParamSpec>& specs() const { return specs_; }

  // Closest declared key by edit distance, or "" when nothing is close.
  std::string nearest_key(const std::string& key) const;

 private:
  struct Value {
    std::string text;
    std::string source;
  };
  struct ScopeValues {
    std::map<std::string, Value> values;
    std::set<std::string> used;
  };
  // The value of `key`; *scoped is set when it came from the active scope.
  const Value* lookup(const std::string& key, bool* scoped = nullptr);
  void declare(ParamSpec spec, bool scoped = false);
  struct FlattenBudget {
    const std::string& origin;
    size_t nodes_left;
  };
  void load_yaml(const std::string& text, const std::string& origin, bool netlist);
  static std::string scalar_key(const YAML::Node& key, const std::string& origin, std::set<std::string>& seen);
  void flatten(const YAML::Node& node, const std::string& prefix, FlattenBudget& budget, size_t depth);

  std::string platform_name_;
  std::string platform_description_;
  std::map<std::string, Value> values_;
  std::map<std::string, ParamSpec> specs_;
  std::map<std::string, ParamSpec> scoped_specs_;  // "instance:key"
  std::map<std::string, ScopeValues> scopes_;      // by instance name
  std::string active_scope_;                       // "" outside a Scope
  std::string netlist_text_, netlist_origin_;
};

// A parameter's integer text: decimal ("-12"), or hexadecimal with 0x; no
// octal, no trailing text, no overflow.
std::optional<int64_t> parse_integer(const std::string& text);

size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace tessera::sim
