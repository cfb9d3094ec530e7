// Why a coherent cluster stopped, as a value: the kind of failure, where and
// when, and the details a reader needs. The independent checker reports
// violations, the cache controllers protocol errors (a table with no row for
// what happened), the bus watchdog deadlocks; drivers (the random tester,
// the litmus runner) report a run that stalled. Callers decide on the kind
// (a deadlock exits with the deadlock status), never on the report's words.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::mem {

struct CoherenceFailure {
  enum class Kind : uint8_t {
    kNone,
    kViolation,      // the checker: SWMR or a value rule broken
    kProtocolError,  // a controller met a (state, event) its table has no row for
    kDeadlock,       // the bus watchdog: work outstanding, nothing performed for too long
    kStalled,        // a driver stopped with operations that never completed
    kLivelock,       // the bus watchdog: transactions kept aborting, none committed
  };

  Kind kind = Kind::kNone;
  uint64_t cycle = 0;
  uint64_t line = 0;    // the line concerned (kViolation, kProtocolError)
  std::string what;     // the rule broken, the missing row, the watchdog window
  std::string details;  // every cache's state of the line, or what is outstanding

  static CoherenceFailure make(Kind kind, uint64_t cycle, uint64_t line, std::string what, std::string details) {
    CoherenceFailure f;
    f.kind = kind;
    f.cycle = cycle;
    f.line = line;
    f.what = std::move(what);
    f.details = std::move(details);
    return f;
  }

  explicit operator bool() const { return kind != Kind::kNone; }
  // The report a person reads (one line, then the details).
  std::string text() const;
};

const char* failure_kind_name(CoherenceFailure::Kind kind);

}  // namespace tessera::mem
