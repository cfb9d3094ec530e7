#include "platforms/component.h"

#include "sim/in_flight.h"

namespace tessera::platform {

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
