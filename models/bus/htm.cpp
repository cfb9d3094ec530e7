#include "bus/htm.h"

#include <fmt/format.h>

#include "isa/isa.h"
#include "sim/config.h"

namespace tessera::bus {

HtmParams HtmParams::from_config(sim::Config& cfg, uint32_t line_bytes) {
  HtmParams p;
  p.versioning =
      cfg.get_enum("htm.versioning", "lazy", {"eager", "lazy"},
                   "HTM data versioning: eager (undo log in memory) or lazy (write buffer in the L1)") == "eager"
          ? Versioning::kEager
          : Versioning::kLazy;
  p.detection =
      cfg.get_enum("htm.detection", "pessimistic", {"pessimistic", "optimistic"},
                   "HTM conflict detection: pessimistic (on every snoop) or optimistic (at commit)") == "optimistic"
          ? Detection::kOptimistic
          : Detection::kPessimistic;
  const std::string policy = cfg.get_enum(
      "htm.policy", "auto", {"auto", "requester-wins", "requester-stalls", "older-wins", "committer-wins"},
      "HTM contention manager (auto: older-wins for pessimistic, committer-wins for optimistic detection)");
  if (policy == "auto")
    p.policy = p.detection == Detection::kOptimistic ? Policy::kCommitterWins : Policy::kOlderWins;
  else if (policy == "requester-wins")
    p.policy = Policy::kRequesterWins;
  else if (policy == "requester-stalls")
    p.policy = Policy::kRequesterStalls;
  else if (policy == "older-wins")
    p.policy = Policy::kOlderWins;
  else
    p.policy = Policy::kCommitterWins;
  if ((p.policy == Policy::kCommitterWins) != (p.detection == Detection::kOptimistic))
    throw sim::ConfigError(fmt::format(
        "htm.policy: {} does not apply to {} detection (committer-wins is the policy of optimistic detection; "
        "requester-wins, requester-stalls and older-wins are for pessimistic detection)",
        policy, detection_name(p.detection)));
  p.word_granularity =
      cfg.get_enum("htm.granularity", "line", {"line", "word"},
                   "granularity of the HTM read/write bits: per cache line or per 32-bit word") == "word";
  if (p.word_granularity && line_bytes > 256)
    throw sim::ConfigError(
        fmt::format("htm.granularity: word granularity keeps one bit per word and supports lines up to 256 bytes "
                    "(cluster.l1d.line_bytes is {})",
                    line_bytes));
  p.max_depth = static_cast<uint32_t>(
      cfg.get_int("htm.max_depth", 8, 1, 255, "deepest (flattened) nesting of transactions; deeper aborts"));
  p.stall_timeout =
      static_cast<uint32_t>(cfg.get_int("htm.stall_timeout", 256, 1, 1000000,
                                        "requester-stalls: cycles a NACKed transactional request waits, then aborts"));
  p.abort_cycles = static_cast<uint32_t>(cfg.get_int(
      "htm.abort_cycles", 2, 1, 1000, "cycles of a lazy abort (flash-clear of the R/W bits and write buffer)"));
  return p;
}

const char* versioning_name(Versioning v) { return v == Versioning::kEager ? "eager" : "lazy"; }
const char* detection_name(Detection d) { return d == Detection::kOptimistic ? "optimistic" : "pessimistic"; }
const char* policy_name(Policy p) {
  switch (p) {
    case Policy::kRequesterWins:
      return "requester-wins";
    case Policy::kRequesterStalls:
      return "requester-stalls";
    case Policy::kOlderWins:
      return "older-wins";
    case Policy::kCommitterWins:
      return "committer-wins";
  }
  return "?";
}

// The reasons and the status word are the ISA's (isa::tx, docs/firmware-abi.md).
static_assert(static_cast<int>(TxReason::kExplicit) == static_cast<int>(isa::tx::AbortReason::kExplicit) &&
                  static_cast<int>(TxReason::kConflictRW) == static_cast<int>(isa::tx::AbortReason::kConflictRw) &&
                  static_cast<int>(TxReason::kConflictWR) == static_cast<int>(isa::tx::AbortReason::kConflictWr) &&
                  static_cast<int>(TxReason::kConflictWW) == static_cast<int>(isa::tx::AbortReason::kConflictWw) &&
                  static_cast<int>(TxReason::kCapacity) == static_cast<int>(isa::tx::AbortReason::kCapacity) &&
                  static_cast<int>(TxReason::kMmio) == static_cast<int>(isa::tx::AbortReason::kMmio) &&
                  static_cast<int>(TxReason::kNesting) == static_cast<int>(isa::tx::AbortReason::kNesting) &&
                  static_cast<int>(TxReason::kLogOverflow) == static_cast<int>(isa::tx::AbortReason::kLogOverflow) &&
                  static_cast<unsigned>(TxReason::kCount) == isa::tx::kReasons + 1 && kTxRetryBit == isa::tx::kRetryBit,
              "bus::TxReason follows isa::tx::AbortReason");

const char* tx_reason_name(TxReason r) {
  if (r == TxReason::kNone || r == TxReason::kCount) return "none";
  return isa::tx::abort_reason_name(static_cast<isa::tx::AbortReason>(r));
}

uint32_t tx_status(TxReason reason, uint8_t code) {
  return isa::tx::abort_status(static_cast<isa::tx::AbortReason>(reason), code);
}

TxReason conflict_type(bool exclusive, bool hits_read, bool hits_write) {
  if (exclusive) return hits_write ? TxReason::kConflictWW : hits_read ? TxReason::kConflictWR : TxReason::kNone;
  return hits_write ? TxReason::kConflictRW : TxReason::kNone;
}

Decision decide(const ConflictInput& in) {
  if (in.type == TxReason::kNone) return Decision::kNone;
  switch (in.holder) {
    case TxPhase::kIdle:
    case TxPhase::kAborted:
      return Decision::kNone;
    case TxPhase::kPublishing:
      // Until its commit ends, what it read and wrote must not change.
      return Decision::kNackRequester;
    case TxPhase::kRollingBack:
      // Its write set holds values being restored: wait.
      return in.hits_write ? Decision::kNackRequester : Decision::kNone;
    case TxPhase::kAcquiring:
      // A committer holds what it has: the first to begin committing wins.
      if (in.requester == Role::kCommitter)
        return in.requester_commits_first ? Decision::kAbortHolder : Decision::kNackRequester;
      return Decision::kNackRequester;
    case TxPhase::kActive:
      break;
  }
  if (in.requester == Role::kCommitter) return Decision::kAbortHolder;
  const bool shared_hits_write = in.type == TxReason::kConflictRW;
  if (in.detection == Detection::kPessimistic) {
    if (in.requester == Role::kPlain) return Decision::kAbortHolder;  // strong isolation
    switch (in.policy) {
      case Policy::kRequesterWins:
      case Policy::kCommitterWins:
        return Decision::kAbortHolder;
      case Policy::kRequesterStalls:
        return in.stall_expired ? Decision::kAbortRequester : Decision::kNackRequester;
      case Policy::kOlderWins:
        return in.requester_older ? Decision::kAbortHolder : Decision::kNackRequester;
    }
    return Decision::kAbortHolder;
  }
  // Optimistic detection.
  if (in.requester == Role::kPlain)
    // A plain read of a lazily written word reads the committed value and
    // orders before the transaction; an eager writer's line holds its new
    // value, so the writer aborts first.
    return shared_hits_write && in.versioning == Versioning::kLazy ? Decision::kNone : Decision::kAbortHolder;
  // Another running transaction: with lazy versioning it only reads (its
  // writes ask for the line when it commits).
  if (in.versioning == Versioning::kLazy) return Decision::kNone;
  // Eager: nobody may read or overwrite an uncommitted value; the older
  // transaction goes first. A write that takes a line another transaction
  // only read aborts that reader when the writer commits.
  if (in.hits_write) return in.requester_older ? Decision::kAbortHolder : Decision::kNackRequester;
  return Decision::kDeferred;
}

}  // namespace tessera::bus
