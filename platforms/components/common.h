// What the component types (platforms/components/*.cpp, one file per type)
// share: their self-registration, the factory of a Component class, and the
// helpers that read a netlist instance. Only these files construct and bind
// Tessera's concrete model classes; the parser, validation, build loop and
// reports work on platform::Component.
#pragma once

#include <fmt/format.h>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// The interface IF that the target of binding `b` offers at its socket
// (Component::interfaces), for `what`: what an sc_port of IF would bind to,
// taken while the instance is built. The target is built first (its socket
// is built_first or the binding's socket bound_while_built).
template <class IF>
IF& offered_at(const BuildContext& ctx, const NetlistBinding& b, const std::string& what) {
  const auto refuse = [&](const std::string& type, const std::string& why) {
    return sim::ConfigError(fmt::format("{}: binding '{} -> {}': instance '{}' ({}) cannot serve as {}: {}", b.where,
                                        b.from.text(), b.to.text(), b.to.instance, type, what, why));
  };
  if (Component* to = ctx.find(b.to.instance)) {
    for (sc_core::sc_interface* i : to->interfaces(b.to.socket))
      if (auto* typed = dynamic_cast<IF*>(i)) return *typed;
    throw refuse(to->instance().type, fmt::format("it offers none at socket '{}'", b.to.socket));
  }
  const NetlistInstance* inst = ctx.netlist->find(b.to.instance);
  throw refuse(inst ? inst->type : "not an instance",
               fmt::format("it is not built before instance '{}'", b.from.instance));
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

// Register accesses into the MMIO region routed to the windows of the
// instances bound to an `mmio` socket (the control cores', the SMs'): the
// system block's and each device's registers. Offsets are from the MMIO
// base; a target sees its window's offset.
class MmioWindows : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MmioWindows> in{"in"};
  tlm_utils::multi_passthrough_initiator_socket<MmioWindows> out{"out"};
  explicit MmioWindows(const sc_core::sc_module_name& name);
  // Binds out to `target`'s socket `target_socket` for the window its type
  // declares (ComponentType::address_range); ConfigError naming the binding
  // when it has none in the MMIO region. `who`: the binding socket, for the
  // message ("the control cores' mmio").
  void add(const ComponentRegistry& registry, Component& target, const std::string& target_socket,
           const std::string& who);
  bool maps(uint32_t offset) const;

 private:
  // An access at offset gp.get_address(); TLM_ADDRESS_ERROR_RESPONSE outside every window.
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::vector<std::pair<uint32_t, uint32_t>> windows_;  // offset, size; the binding of `out` of the same index
};

}  // namespace tessera::platform
