// Hardware transactional memory in the cluster's L1D caches (docs/htm.md):
// the parameters, the abort reasons, a transaction's state in its cache
// controller, and what the contention manager decides (bus/contention_manager.h).
//
// Design space (after the transactional-memory lecture of the course in
// shared/seeds, and LogTM / TCC for the two extreme corners):
//  - versioning: eager (new values in place, old values appended to an undo
//    log in memory through the L1D; an abort walks the log back) or lazy
//    (new values in a transactional write buffer beside the L1, published
//    at commit);
//  - detection: pessimistic (every snooped request is checked against the
//    R/W bits as it happens) or optimistic (conflicts are found when a
//    transaction commits: the committer gains exclusive ownership of its
//    write set and every transaction whose read or write set it hits aborts);
//  - contention manager (bus/contention_manager.h, one file per policy):
//    for pessimistic detection requester-wins, requester-stalls (NACK,
//    abort after htm.stall_timeout cycles), older-wins (timestamps) or
//    karma (work done); optimistic detection is committer-wins.
// Functionally the new values of a transaction always live in its write
// buffer (TxLine::data) and the cache line keeps the committed values: no
// other core can read an uncommitted value in either versioning (conflicting
// requests abort the writer or wait), so this is observably the same as
// writing in place, while the timing and traffic are each corner's own: the
// eager corner pays its undo-log writes as real L1D stores, its abort as a
// walk over the log (its write set is refused to other cores meanwhile) and
// commits at once; the lazy corner aborts at once and publishes its write
// buffer at commit, a line per cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mem/coherence_protocol.h"

namespace tessera::sim {
class Config;
}

namespace tessera::bus {

enum class Versioning : uint8_t { kEager, kLazy };
enum class Detection : uint8_t { kPessimistic, kOptimistic };

struct HtmParams {
  Versioning versioning = Versioning::kLazy;
  Detection detection = Detection::kPessimistic;
  std::string policy = "older-wins";  // a contention_manager_names() name
  bool word_granularity = false;      // R/W bits per word (true) or per line
  uint32_t max_depth = 8;             // flattened nesting depth
  uint32_t stall_timeout = 256;       // requester-stalls: cycles of NACKs before the requester aborts
  uint32_t abort_cycles = 2;          // lazy abort: flash-clear and checkpoint restore
  static HtmParams from_config(sim::Config& cfg, uint32_t line_bytes);
};

const char* versioning_name(Versioning v);
const char* detection_name(Detection d);

// Abort reasons: the low byte of the status tx.begin returns after an abort
// (docs/firmware-abi.md).
enum class TxReason : uint8_t {
  kNone = 0,
  kExplicit = 1,
  kConflictRW = 2,   // a shared request hit a written word
  kConflictWR = 3,   // an exclusive request hit a read word
  kConflictWW = 4,   // an exclusive request hit a written word
  kCapacity = 5,     // a transactional line had to leave the L1
  kMmio = 6,         // MMIO or wfi inside a transaction
  kNesting = 7,      // deeper than htm.max_depth
  kLogOverflow = 8,  // the undo log is full
  kCount
};
inline constexpr uint32_t kTxRetryBit = 1u << 16;
const char* tx_reason_name(TxReason r);  // "conflict_rw", ...
// The status word: reason, code (explicit aborts) and the retry hint.
uint32_t tx_status(TxReason reason, uint8_t code);

// Per-core statistics (cluster.coreN.htm).
struct HtmCounters {
  uint64_t started = 0, committed = 0;
  uint64_t aborts[static_cast<size_t>(TxReason::kCount)] = {};
  uint64_t committed_cycles = 0;  // begin to commit, committed transactions
  uint64_t aborted_cycles = 0;    // begin to abort: wasted work
  uint64_t undo_log_bytes = 0;
  uint64_t commit_bus_transactions = 0;
  uint64_t conflict_nacks = 0;   // this core's requests refused by a transaction
  uint64_t fallback_locks = 0;   // written by firmware through CSR txfallback
  uint64_t rollback_cycles = 0;  // eager: walking the undo log back
};

// One line of a transaction's read and write sets: word masks (bit w: word
// w of the line; line granularity sets every bit) and the write buffer.
struct TxLine {
  uint64_t line = 0;
  uint64_t rmask = 0, wmask = 0;
  uint64_t logged = 0;        // eager: words whose old value is in the undo log
  std::vector<uint8_t> data;  // new values (bytes where `written` is set)
  std::vector<uint8_t> written;
};

// A transaction's phase in its controller.
enum class TxPhase : uint8_t {
  kIdle,
  kActive,
  kAcquiring,    // committing: gaining exclusive ownership of the write set
  kPublishing,   // committing: holding the commit token, writing the buffer into the lines
  kRollingBack,  // eager abort: walking the undo log back
  kAborted,      // aborted and clean; waits for its core to restore the checkpoint
};

// Who sent a snooped request, as the contention manager sees it.
enum class Role : uint8_t { kPlain, kActive, kCommitter };

// What the contention manager decides for one holder hit by a request.
enum class Decision : uint8_t {
  kNone,            // no conflict
  kAbortHolder,     // the holder aborts (lazy: at once; eager: the requester then waits for its walk)
  kNackRequester,   // the requester retries later
  kAbortRequester,  // requester-stalls timeout: the requester aborts
  kDeferred,        // eager + optimistic: the holder aborts if the requester commits
};

// The conflict type of a request (exclusive or shared) hitting a holder's
// read and write bits: RW (shared hits W), WR (exclusive hits R), WW
// (exclusive hits W), or kNone.
TxReason conflict_type(bool exclusive, bool hits_read, bool hits_write);

}  // namespace tessera::bus
