// A run's own limit on host (wall-clock) time, `tessera run --host-timeout`:
// a run that a sweep's driver can no longer kill (the driver died on a node
// where the parent-death signal did not reach the run) still ends.
#pragma once

#include <string>

namespace tessera::sim {

// Arms a one-shot timer of `seconds` of wall-clock time (0 < seconds <= 31
// days); when it fires, the process writes "tessera: error: ..." naming the
// limit to standard error and exits at once with kStatusHostTimeout, without
// writing its statistics (the run is incomplete). Throws std::runtime_error
// when the timer cannot be armed.
void arm_host_timeout(double seconds);

// The message written when the limit is reached (for the tests).
std::string host_timeout_message(double seconds);

}  // namespace tessera::sim
