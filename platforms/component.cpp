#include "platforms/component.h"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/side_band_port.h"

namespace tessera::platform {

void BuildContext::check() const {
  const std::pair<const char*, const void*> required[] = {
      {"config", config},     {"netlist", netlist},     {"registry", registry},
      {"sm_clock", sm_clock}, {"cpu_clock", cpu_clock}, {"global", global},
      {"image", image},       {"program", program},     {"run", run},
      {"stats", stats},       {"shared", shared}};
  for (const auto& [name, value] : required)
    if (!value) throw std::logic_error(std::string("BuildContext::") + name + " is not set");
}

void bind_port(const NetlistBinding& b, const NetlistInstance& from, sim::PortBinder& port, Component& to) {
  const std::vector<sc_core::sc_interface*> targets = to.interfaces(b.to.socket);
  bool ok = !targets.empty();
  for (sc_core::sc_interface* t : targets) ok = ok && port.bind_interface(*t);
  if (!ok)
    throw sim::ConfigError(fmt::format(
        "{}: binding '{} -> {}': socket '{}' of instance '{}' ({}) takes {}; instance '{}' ({}) offers none at '{}'",
        b.where, b.from.text(), b.to.text(), b.from.socket, from.name, from.type, port.interface_name(), to.name(),
        to.instance().type, b.to.socket));
}

void bind_instances(const NetlistBinding& b, Component& from, Component& to) {
  if (sim::PortBinder* port = from.port(b.from.socket)) {
    bind_port(b, from.instance(), *port, to);
    return;
  }
  if (!to.target_socket(b.to.socket))
    throw sim::ConfigError(fmt::format(
        "{}: binding '{} -> {}': socket '{}' of instance '{}' ({}) sends TLM transactions; instance '{}' ({}) has no "
        "TLM target socket '{}'",
        b.where, b.from.text(), b.to.text(), b.from.socket, from.name(), from.instance().type, to.name(),
        to.instance().type, b.to.socket));
  from.bind(b.from.socket, to, b.to.socket);
}

void bind_while_built(const BuildContext& ctx, const NetlistInstance& inst, const std::string& socket,
                      sim::PortBinder& port) {
  for (const NetlistBinding* b : ctx.netlist->bindings_from(inst.name, socket)) {
    Component* to = ctx.find(b->to.instance);
    if (!to) {
      const NetlistInstance* target = ctx.netlist->find(b->to.instance);
      throw sim::ConfigError(fmt::format(
          "{}: binding '{} -> {}': instance '{}' ({}) is not built before instance '{}' ({}), which takes it while "
          "it is built",
          b->where, b->from.text(), b->to.text(), b->to.instance, target ? target->type : "not an instance", inst.name,
          inst.type));
    }
    bind_port(*b, inst, port, *to);
  }
}

std::string in_flight_report(const std::vector<const Component*>& components) {
  std::string state;
  for (const Component* c : components)
    for (const sc_core::sc_object* model : c->models()) {
      if (const auto* reporter = dynamic_cast<const sim::InFlightReporter*>(model)) {
        state += reporter->describe_in_flight();
      } else {
        state += c->fallback_state(*model);
      }
    }
  return state;
}

}  // namespace tessera::platform
