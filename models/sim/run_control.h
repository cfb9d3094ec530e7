// How a simulation ends. Models never exit() or throw out of a SystemC
// process: they record why the run must stop here and call sc_stop(); the
// platform driver turns that into a message and an exit status.
#pragma once

#include <string>

namespace tessera::sim {

enum class ExitKind {
  kRunning,
  kProgramExit,  // the guest wrote EXIT (or main returned)
  kGuestFault,   // illegal instruction, misaligned or unmapped access
  kBadLaunch,    // a kernel launch the chip cannot run
  kDeadlock,     // no component can make progress
  kCycleLimit,   // --max-cycles reached
};

// Exit statuses of `tessera run` (docs/firmware-abi.md).
inline constexpr int kStatusConfigError = 2;
inline constexpr int kStatusGuestFault = 3;
inline constexpr int kStatusBadLaunch = 4;
inline constexpr int kStatusDeadlock = 5;
inline constexpr int kStatusCycleLimit = 6;

class RunControl {
 public:
  // The first reason wins; later ones (a second SM faulting in the same
  // cycle) are ignored so the report names the first.
  void stop(ExitKind kind, int status, std::string message);
  bool stopped() const { return kind_ != ExitKind::kRunning; }
  ExitKind kind() const { return kind_; }
  int status() const { return status_; }
  const std::string& message() const { return message_; }

 private:
  ExitKind kind_ = ExitKind::kRunning;
  int status_ = 0;
  std::string message_;
};

}  // namespace tessera::sim
