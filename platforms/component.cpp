#include "platforms/component.h"

#include <stdexcept>
#include <utility>

#include "sim/in_flight.h"

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
