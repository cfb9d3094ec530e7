// How a simulation ends. Models never exit() or throw out of a SystemC
// process: they record why the run must stop here and call sc_stop(); the
// platform driver turns that into a message and an exit status.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace tessera::sim {

enum class ExitKind {
  kRunning,
  kProgramExit,       // the guest wrote EXIT (or main returned)
  kGuestFault,        // illegal instruction, misaligned or unmapped access
  kBadLaunch,         // a kernel launch the chip cannot run
  kDeadlock,          // no component can make progress
  kCycleLimit,        // --max-cycles reached
  kLockstepMismatch,  // an RTL block and its C++ model disagreed (docs/cosim.md)
  kKilled,            // gdb's kill (--gdb)
};

// Exit statuses of `tessera run` (docs/firmware-abi.md).
inline constexpr int kStatusConfigError = 2;
inline constexpr int kStatusGuestFault = 3;
inline constexpr int kStatusBadLaunch = 4;
inline constexpr int kStatusDeadlock = 5;
inline constexpr int kStatusCycleLimit = 6;
inline constexpr int kStatusOutputError = 7;  // an output file could not be written
inline constexpr int kStatusLockstepMismatch = 8;
inline constexpr int kStatusHostMemory = 9;      // the host ran out of memory
inline constexpr int kStatusKilled = 10;         // killed from gdb (--gdb)
inline constexpr int kStatusHostTimeout = 11;    // --host-timeout reached (sim/host_timeout.h)
inline constexpr int kStatusInternalError = 70;  // a bug of the simulator (sysexits.h EX_SOFTWARE)

class RunControl {
 public:
  // The first reason wins; later ones (a second SM faulting in the same
  // cycle) are ignored so the report names the first.
  void stop(ExitKind kind, int status, std::string message);
  // After the simulation: a check that fails once the run is over (a
  // lockstep reference's writes the block never made) replaces a program's
  // exit, which it shows to be wrong; it does not replace another failure.
  void fail_after_exit(ExitKind kind, int status, std::string message) {
    if (kind_ != ExitKind::kProgramExit && kind_ != ExitKind::kRunning) return;
    kind_ = kind;
    status_ = status;
    message_ = std::move(message);
  }
  bool stopped() const { return kind_ != ExitKind::kRunning; }
  ExitKind kind() const { return kind_; }
  int status() const { return status_; }
  const std::string& message() const { return message_; }

  // Progress watchdog. A guest that spins forever (a lock never released, a
  // flag never set) keeps the chip busy without deadlocking it. Progress is
  // an instruction that writes memory (a store, a successful SC, an atomic
  // whose new value differs from the old one: a test-and-set spinning on a
  // held lock writes nothing new) or writes an MMIO register, or a control
  // core that computes (an instruction writing its register a value other
  // than the one it wrote the last time it ran); models report it with
  // note_change(). A run with no progress for
  // `window_ps` of simulated time stops as a livelock (status 5) with
  // `state()` in the report. window_ps 0: off.
  void arm_watchdog(uint64_t window_ps, std::string window_text, std::function<std::string()> state);
  void note_change() { ++changes_; }
  // Called by clocked models while they are active (a livelocked chip is
  // never idle), with the current simulated time.
  void watch(uint64_t now_ps) {
    if (changes_ != seen_changes_) {
      seen_changes_ = changes_;
      last_change_ps_ = now_ps;
    } else if (window_ps_ && now_ps - last_change_ps_ >= window_ps_) {
      livelock();
    }
  }

 private:
  void livelock();

  uint64_t window_ps_ = 0, changes_ = 0, seen_changes_ = 0, last_change_ps_ = 0;
  std::string window_text_;
  std::function<std::string()> state_;
  ExitKind kind_ = ExitKind::kRunning;
  int status_ = 0;
  std::string message_;
};

}  // namespace tessera::sim
