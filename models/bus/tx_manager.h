// One core's transaction, as its L1D keeps it (docs/htm.md): its phase, its
// read and write sets with the write buffer, eager versioning's undo log,
// the queue of the controller's transaction port (undo-log stores, the
// walk back, a commit's acquisitions and publishing stores), what the
// contention managers compare (timestamp, commit start, Karma's work) and
// its statistics. Bookkeeping only, no cache or bus: the controller
// (cache_controller_htm.cpp) performs the accesses, pins and unpins the
// lines and tells the others; the TxManager decides what is queued and
// what the transaction's state becomes. Tested directly.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "bus/htm.h"
#include "bus/op.h"

namespace tessera::bus {

// The words [offset, offset+size) touches within its line (bit w: word w).
uint64_t exact_words(uint64_t offset, uint32_t size);

class TxManager {
 public:
  TxPhase phase = TxPhase::kIdle;
  uint64_t begin_cycle = 0;
  uint64_t timestamp = 0;  // older-wins: the first attempt's begin, kept across aborts until a commit
  bool keep_timestamp = false;
  uint64_t commit_started = 0;
  uint32_t status = 0;  // the abort status tx.begin returns
  uint32_t log_base = 0, log_size = 0, log_used = 0;
  uint32_t log_stores_done = 0;  // undo-log words written (two per entry)
  std::vector<TxLine> lines;
  std::deque<Op> ops;     // the transaction port's queue
  bool wait_log = false;  // the core's store waits for its undo-log entries
  uint32_t saved_result = 0;
  uint64_t port_cycle = ~uint64_t{0};  // the cycle the transaction port last worked
  bool stalled = false;                // requester-stalls: NACKed by a transaction since `stalled_since`
  uint64_t stalled_since = 0;
  uint64_t walk_started = 0;
  // Eager + optimistic: readers whose lines this transaction's writes
  // took; they abort if it commits. (agent, its transaction's begin cycle)
  using Deferred = std::vector<std::pair<uint32_t, uint64_t>>;
  Deferred deferred;
  // Karma: lines opened by the attempts aborted since the last commit,
  // plus the NACKs taken from transactions since then.
  uint64_t karma = 0;
  HtmCounters counters;

  bool running() const { return phase == TxPhase::kActive || phase == TxPhase::kAcquiring; }
  bool committing() const { return phase == TxPhase::kAcquiring || phase == TxPhase::kPublishing; }
  // Work done, Karma's priority (bus/contention/karma.cpp).
  uint64_t work() const { return karma + lines.size(); }
  TxLine* find(uint64_t line) {
    for (auto& l : lines)
      if (l.line == line) return &l;
    return nullptr;
  }
  const TxLine* find(uint64_t line) const { return const_cast<TxManager*>(this)->find(line); }

  // tx.begin at `now`: running, empty sets and queue, the undo log at
  // [log_base, log_base + log_size). The timestamp is kept after an abort.
  void begin(uint64_t now, uint32_t log_base, uint32_t log_size);
  // The line's entry in the sets, added (with a write buffer of
  // `line_bytes`) on first use.
  TxLine& open(uint64_t line, uint32_t line_bytes);
  // Eager versioning, before the first write of `words` of `tl`: an undo-log
  // entry (the word's address, then its old value from `committed`, the
  // line's committed bytes) per word not yet logged, queued as two stores;
  // the core's write waits for them (wait_log). False, and nothing queued,
  // when the log would overflow.
  bool log(TxLine& tl, uint64_t words, const uint8_t* committed);
  // tx.commit: acquiring, an intent (write permission, no data) queued per
  // written line.
  void begin_commit(uint64_t now);
  // The commit token is this transaction's: publishing, the write buffer
  // queued as stores, a word where all four bytes were written, else its
  // written bytes.
  void publish(uint32_t line_bytes);
  // The commit ended (the controller has released the sets).
  void committed(uint64_t now);
  // Aborts a running transaction: its status, counters and Karma; the
  // queue emptied. Returns the readers it deferred (they abort with it).
  Deferred abort(TxReason reason, uint8_t code, uint64_t now);
  // After abort(): eager versioning with undo-log entries written queues
  // the walk back, newest entry first (a load of the entry, then the
  // restore write), and rolls back (true); otherwise nothing to undo.
  bool walk_back(bool eager, uint64_t now);
  // The sets and deferred readers dropped (the controller unpinned the lines).
  void clear_sets();
};

}  // namespace tessera::bus
