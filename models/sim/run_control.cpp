#include "sim/run_control.h"

#include <systemc>

namespace tessera::sim {

void RunControl::stop(ExitKind kind, int status, std::string message) {
  if (stopped()) return;
  kind_ = kind;
  status_ = status;
  message_ = std::move(message);
  sc_core::sc_stop();
}

}  // namespace tessera::sim
