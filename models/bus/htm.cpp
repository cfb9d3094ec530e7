#include "bus/htm.h"

#include <fmt/format.h>

#include "bus/contention_manager.h"
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
  std::vector<std::string> policies{"auto"};
  for (const auto& name : contention_manager_names()) policies.push_back(name);
  p.policy = cfg.get_enum(
      "htm.policy", "auto", policies,
      "HTM contention manager (auto: older-wins for pessimistic, committer-wins for optimistic detection)");
  if (p.policy == "auto") p.policy = p.detection == Detection::kOptimistic ? "committer-wins" : "older-wins";
  if (make_contention_manager(p.policy)->detection() != p.detection)
    throw sim::ConfigError(fmt::format(
        "htm.policy: {} does not apply to {} detection (committer-wins is the policy of optimistic detection; "
        "the others are for pessimistic detection)",
        p.policy, detection_name(p.detection)));
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

}  // namespace tessera::bus
