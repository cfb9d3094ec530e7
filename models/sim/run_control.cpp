#include "sim/run_control.h"

#include <fmt/format.h>

#include <systemc>

namespace tessera::sim {

void RunControl::stop(ExitKind kind, int status, std::string message) {
  if (stopped()) return;
  kind_ = kind;
  status_ = status;
  message_ = std::move(message);
  sc_core::sc_stop();
}

void RunControl::arm_watchdog(uint64_t window_ps, std::string window_text, std::function<std::string()> state) {
  window_ps_ = window_ps;
  window_text_ = std::move(window_text);
  state_ = std::move(state);
}

void RunControl::livelock() {
  stop(ExitKind::kDeadlock, kStatusDeadlock,
       fmt::format("livelock: no instruction changed memory, wrote an MMIO register or computed a new value on a "
                   "control core for {} (the guest spins on a "
                   "condition that never becomes true?)\n{}",
                   window_text_, state_ ? state_() : std::string()));
}

}  // namespace tessera::sim
