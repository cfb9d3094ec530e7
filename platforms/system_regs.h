// The chip's MMIO block at 0x1000_0000 (docs/firmware-abi.md): console,
// exit, region of interest, cycle counter and the clock's frequency (of the
// control cores, whose clock domain `clock` is); offsets from 0x100 belong
// to the block dispatcher and are forwarded to it.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <string>
#include <systemc>

#include "sim/clock.h"
#include "sim/run_control.h"

namespace tessera::platform {

// The region-of-interest register (a non-zero store begins the region).
inline constexpr uint32_t kRoiRegister = 0x008;

// The exit status of `tessera run` for a program that wrote `value` to EXIT
// (or returned it from main): its low 8 bits, as POSIX exit() keeps them,
// but 1 when those are 0 and the value is not: 256 must not read as success.
inline int program_exit_status(uint32_t value) {
  const int low = static_cast<int>(value & 0xFF);
  return low == 0 && value != 0 ? 1 : low;
}

class SystemRegs : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<SystemRegs> socket;
  tlm_utils::simple_initiator_socket<SystemRegs> dispatcher_socket;

  SystemRegs(const sc_core::sc_module_name& name, const sim::ClockDomain& clock, sim::RunControl& run);

  // The console: `echo` copies each line to stdout as it completes.
  void set_echo(bool echo) { echo_ = echo; }
  const std::string& console() const { return console_; }
  void flush_console();
  void on_roi(std::function<void(bool begin)> fn) { on_roi_ = std::move(fn); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  const sim::ClockDomain& clock_;
  sim::RunControl& run_;
  std::string console_;
  size_t echoed_ = 0;
  bool echo_ = true;
  std::function<void(bool)> on_roi_;
};

}  // namespace tessera::platform
