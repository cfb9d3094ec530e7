#include "platforms/system_regs.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

namespace tessera::platform {

namespace {
constexpr uint32_t kConsoleTx = 0x000, kExit = 0x004, kRoi = kRoiRegister, kCycleLo = 0x00C, kCycleHi = 0x010,
                   kClockKhz = 0x014;
constexpr uint32_t kDispatcherBase = 0x100;
}  // namespace

SystemRegs::SystemRegs(const sc_core::sc_module_name& name, const sim::ClockDomain& clock, sim::RunControl& run)
    : sc_module(name), socket("socket"), dispatcher_socket("dispatcher_socket"), clock_(clock), run_(run) {
  socket.register_b_transport(this, &SystemRegs::b_transport);
}

void SystemRegs::flush_console() {
  if (echo_ && echoed_ < console_.size()) {
    std::fwrite(console_.data() + echoed_, 1, console_.size() - echoed_, stdout);
    std::fflush(stdout);
  }
  echoed_ = console_.size();
}

void SystemRegs::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const auto offset = static_cast<uint32_t>(gp.get_address());
  if (offset >= kDispatcherBase) {
    dispatcher_socket->b_transport(gp, delay);
    return;
  }
  uint32_t value = 0;
  const unsigned len = std::min(gp.get_data_length(), 4u);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (gp.is_write()) {
    std::memcpy(&value, gp.get_data_ptr(), len);
    switch (offset) {
      case kConsoleTx:
        console_.push_back(static_cast<char>(value & 0xFF));
        if ((value & 0xFF) == '\n') flush_console();
        return;
      case kExit:
        flush_console();
        // A process exit status is 8 bits (as POSIX exit() keeps them); the
        // summary shows a value that did not fit. One whose low 8 bits are 0
        // (256, say) exits 1, not 0: a failure must not read as success.
        run_.stop(sim::ExitKind::kProgramExit, program_exit_status(value),
                  value > 0xFF ? fmt::format("EXIT was written {}", static_cast<int32_t>(value)) : "");
        return;
      case kRoi:
        if (on_roi_) on_roi_(value != 0);
        return;
      default:
        break;
    }
  } else {
    const uint64_t cycle = clock_.cycle_at(sc_core::sc_time_stamp() + delay);
    switch (offset) {
      case kCycleLo:
        value = static_cast<uint32_t>(cycle);
        break;
      case kCycleHi:
        value = static_cast<uint32_t>(cycle >> 32);
        break;
      case kClockKhz:
        // At most 10^8 (clock.cpu_mhz <= 100000): it fits.
        value = static_cast<uint32_t>(clock_.khz());
        break;
      case kConsoleTx:
      case kExit:
      case kRoi:
        value = 0;
        break;
      default:
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    std::memcpy(gp.get_data_ptr(), &value, len);
    return;
  }
  gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace tessera::platform
