#include "mem/coherence_failure.h"

#include <fmt/format.h>

namespace tessera::mem {

const char* failure_kind_name(CoherenceFailure::Kind kind) {
  switch (kind) {
    case CoherenceFailure::Kind::kNone:
      return "none";
    case CoherenceFailure::Kind::kViolation:
      return "coherence violation";
    case CoherenceFailure::Kind::kProtocolError:
      return "protocol error";
    case CoherenceFailure::Kind::kDeadlock:
      return "bus deadlock";
    case CoherenceFailure::Kind::kStalled:
      return "stalled";
    case CoherenceFailure::Kind::kLivelock:
      return "transactional livelock";
  }
  return "?";
}

std::string CoherenceFailure::text() const {
  switch (kind) {
    case Kind::kNone:
      return "";
    case Kind::kViolation:
    case Kind::kProtocolError:
      return fmt::format("{} at cycle {}, line {:#x}: {}\n  caches: {}", failure_kind_name(kind), cycle, line, what,
                         details);
    case Kind::kDeadlock:
      return fmt::format("bus deadlock at cycle {}: {}; outstanding:{}", cycle, what, details);
    case Kind::kLivelock:
      return fmt::format("livelock at cycle {}: {}; transactions running:{}", cycle, what, details);
    case Kind::kStalled:
      return what;
  }
  return what;
}

}  // namespace tessera::mem
