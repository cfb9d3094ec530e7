// What a model holds in flight, for the reports a stuck run prints (the
// deadlock report, the progress watchdog): every model says for itself which
// requests, warps or transactions it still holds, so a request stuck in any
// part of the chip shows where it is.
#pragma once

#include <string>

namespace tessera::sim {

class InFlightReporter {
 public:
  virtual ~InFlightReporter() = default;
  // One line per item in flight ("l2.slice2: read 0x80001200 waiting for
  // memory since cycle 1234"), each ending in '\n'; empty when idle.
  virtual std::string describe_in_flight() const = 0;
};

}  // namespace tessera::sim
