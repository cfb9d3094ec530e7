// What the component types (platforms/components/*.cpp, one file per type)
// share: their self-registration, the factory of a Component class, and the
// helpers that read a netlist instance. Only these files construct and bind
// Tessera's concrete model classes; the parser, validation, build loop and
// reports work on platform::Component.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "platforms/component.h"
#include "platforms/component_registry.h"
#include "platforms/platform.h"
#include "sim/config.h"

namespace tessera::platform {

// One per component type, at namespace scope in the type's own file:
// registers `describe()`'s type with builtin_components(). The files are
// linked whole (platforms/CMakeLists.txt), so a type needs nothing but its
// file.
class ComponentRegistration {
 public:
  explicit ComponentRegistration(ComponentType (*describe)());
};

template <class T>
std::function<std::unique_ptr<Component>(const NetlistInstance&, BuildContext&)> make() {
  return [](const NetlistInstance& inst, BuildContext& ctx) { return std::make_unique<T>(inst, ctx); };
}

[[noreturn]] void no_such_binding(const Component& c, const std::string& socket);

template <class T>
T& component_as(Component& c, const std::string& what) {
  auto* t = dynamic_cast<T*>(&c);
  if (!t)
    throw sim::ConfigError(fmt::format("{}: instance '{}' ({}) cannot serve as {}", c.instance().where, c.name(),
                                       c.instance().type, what));
  return *t;
}

// The built instance `name` as a T, for `what`. What a constructor takes
// from another instance is built before it (build_order()); an instance that
// is not, bound where a network or the dispatcher expects an earlier kind
// (a network bound to itself, say), cannot serve either.
template <class T>
T& built_as(const BuildContext& ctx, const std::string& name, const std::string& what) {
  if (Component* c = ctx.find(name)) return component_as<T>(*c, what);
  const NetlistInstance* inst = ctx.netlist->find(name);
  throw sim::ConfigError(fmt::format("{}: instance '{}' ({}) cannot serve as {}",
                                     inst ? inst->where : ctx.netlist->origin, name,
                                     inst ? inst->type : "not an instance", what));
}

// The instance's scalar attribute as an integer.
std::optional<int64_t> int_attribute(const NetlistInstance& inst, const std::string& key, int64_t lo, int64_t hi);

// The platform's parameters as seen by one instance, without declaring them
// in the platform's Config (validation and planning look, models declare).
template <class F>
auto peek(const sim::Config& cfg, const NetlistInstance& inst, F read) {
  sim::Config copy = cfg;
  sim::Config::Scope scope(copy, inst.name, inst.params);
  return read(copy);
}

// [base, base + size) a memory instance serves (attributes base, size_mb);
// without them, all of global memory.
std::optional<std::pair<uint64_t, uint64_t>> memory_range(const NetlistInstance& inst);

}  // namespace tessera::platform
