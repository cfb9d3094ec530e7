// RTL implementations named in data (docs/cosim.md, "Implementations and
// how they are selected"): every Verilated configuration of a block kind
// (shared_bank_unit, noc_router) registers itself under (kind, name, the
// parameters it was Verilated with) from a small .cpp that
// tessera_add_rtl_block(... IMPLEMENTS kind [NAME name]) generates
// (cmake/TesseraRtl.cmake). Tessera's shipped blocks, the test mutants'
// plugin and a user's plugin register alike; the adapter of a kind asks the
// registry for the implementation a run selects ("rtl:NAME"). No Verilator
// header here.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "rtl/common/lockstep.h"
#include "sim/config.h"

namespace tessera::rtl {

// The name plain `rtl` and `lockstep` select: the block Tessera ships.
inline constexpr const char* kShippedImpl = "shipped";

// One Verilated configuration of an implementation.
struct ImplEntry {
  std::string kind;                                         // "shared_bank_unit"
  std::string name;                                         // "shipped", "user_bank"
  std::string prefix;                                       // the Verilated class ("Vshared_bank_unit_96k")
  std::vector<std::pair<std::string, std::string>> params;  // PARAMS of tessera_add_rtl_block, in order
  // The kind's factory (a function pointer whose type the kind's adapter
  // header defines; registered and called only through that header).
  void (*factory)() = nullptr;

  const std::string* param(const std::string& p) const;
};

// Registers `e` (from a static initialiser; never throws). A second entry
// of the same kind, name and parameters is remembered, and selecting that
// name is then a configuration error naming both classes.
void register_impl(ImplEntry e);

// Every registered configuration of `kind`, in registration order.
std::vector<const ImplEntry*> impls_of(const std::string& kind);
// The names registered for `kind`, each once, in registration order.
std::vector<std::string> impl_names_of(const std::string& kind);

// A co-simulation key's value: "model", "rtl[:NAME]" or "lockstep[:NAME]".
struct ImplChoice {
  Impl mode = Impl::kModel;
  std::string name = kShippedImpl;  // for rtl and lockstep

  std::string text() const;  // "rtl", "lockstep:user_bank"
};

// Reads `key` (default "model"); throws sim::ConfigError unless it is a mode
// of impl_names(), rtl or lockstep optionally followed by :NAME.
ImplChoice read_impl_choice(sim::Config& cfg, const std::string& key, const std::string& help);

// What a configuration asks of a parameter of the kind: PARAM must be
// `value`; `key` is the configuration key that sets it, and `show` turns a
// parameter value into that key's value for messages (identity if empty:
// PAYLOAD_W=128 is noc.flit_bytes=16).
struct ParamWant {
  std::string param, key, value;
  std::function<std::string(const std::string&)> show;
};

// The configuration of implementation choice.name of `kind` whose
// parameters are `want`. Throws sim::ConfigError listing what exists: when
// no implementation of the kind has that name (on `impl_key`), or when the
// name has no configuration with these parameters (on the key of the first
// parameter no configuration matches, given the ones before it).
const ImplEntry& select_impl(const std::string& kind, const std::string& impl_key, const ImplChoice& choice,
                             const std::vector<ParamWant>& want);

}  // namespace tessera::rtl
