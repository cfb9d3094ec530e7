// An independent checker of hardware transactional memory, in the spirit of
// the coherence checker: it never looks at the caches, the R/W bits or the
// undo log. It watches a cluster's history (transactions beginning, their
// loads and stores with the values they saw and wrote, commits, aborts, and
// the non-transactional accesses around them) and proves two things:
//  serialisable  the witness order is commit order for transactions and
//                perform order for non-transactional accesses. At each
//                commit the transaction's reads and writes are replayed in
//                program order against a shadow memory (its own earlier
//                writes forwarded byte by byte): every read must return what
//                it returned, then its writes are visible. A
//                non-transactional read must return the shadow value at its
//                instant; a non-transactional write is visible at once.
//  isolated      no aborted transaction's write is ever visible. Writes of
//                aborted (and still open) transactions are remembered per
//                word, so a read that disagrees with the shadow and returns
//                such a value is reported as reading it; a read of an older
//                committed value (a missed conflict) names that write.
// The reads of a transaction that aborts are not checked: an aborted
// transaction has no effect to serialise.
// The first violation is kept with its cycle, core, address, the expected
// and actual values, the transaction's begin cycle and the last events of
// the address's block. Protocol misuse by the caller (a begin inside a
// transaction, a commit, abort or transactional access without one, an
// access that is not 1, 2 or 4 naturally aligned bytes) is a failure too.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mem/coherence_failure.h"

namespace tessera::mem {

struct HtmFailure {
  enum class Kind : uint8_t {
    kNone,
    kValue,   // a read that no serial order in commit order explains
    kMisuse,  // the caller broke the protocol (begin inside a transaction...)
  };

  Kind kind = Kind::kNone;
  uint64_t cycle = 0;  // when it was found: the commit, the non-transactional read, the misuse
  uint32_t core = 0;
  uint64_t addr = 0;  // kValue: the read's address
  uint32_t size = 0;
  uint32_t expected = 0;  // kValue: the shadow value in witness order
  uint32_t actual = 0;    // kValue: what the read returned
  bool in_transaction = false;
  uint64_t begin_cycle = 0;  // the transaction's, when in_transaction
  uint64_t read_cycle = 0;   // kValue: when the read was performed
  std::string what;          // one sentence
  std::string history;       // the last events of the address, oldest first, one per line

  explicit operator bool() const { return kind != Kind::kNone; }
  // The report a person reads (one line, then the history).
  std::string text() const;
};

class HtmChecker {
 public:
  // Fills a block's shadow the first time any event touches it; by then no
  // write to the block has been reported, so memory is the truth.
  using Initial = std::function<void(uint64_t block_addr, uint8_t* out)>;

  // `cores` control cores numbered 0..cores-1; `block_bytes` (a power of two,
  // 4..4096) is the granule of `initial` and of the history kept per block.
  HtmChecker(uint32_t cores, uint32_t block_bytes, Initial initial);

  void begin(uint64_t cycle, uint32_t core);
  void tx_read(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value);
  void tx_write(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value);
  void commit(uint64_t cycle, uint32_t core);
  void abort(uint64_t cycle, uint32_t core);
  // Non-transactional accesses, performed at `cycle`. A core inside a
  // transaction may perform them too (they are not part of the transaction).
  void read(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value);
  void write(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value);
  // A loader's functional write, outside the history: applied to the shadow
  // if the block is known (otherwise memory holds it when first needed).
  void debug_write(uint64_t addr, uint32_t size, uint32_t value);
  // A cache was filled with `data` (block_bytes): the block's shadow starts
  // from it if no event has touched the block yet. Memory may have changed
  // behind the history since (the SMs write it between kernel launches), so
  // the fill, not a later read of memory, is the truth the history starts from.
  void seed(uint64_t block_addr, const uint8_t* data);
  // Memory may have changed outside the history (a loader, the SMs between
  // kernel launches): forget every shadow block, memory is the truth again.
  // Misuse while a transaction is open.
  void forget_all(uint64_t cycle);

  bool in_transaction(uint32_t core) const { return core < cores_.size() && cores_[core].open; }
  bool failed() const { return static_cast<bool>(failure_); }
  const HtmFailure& failure() const { return failure_; }
  const std::string& report() const { return report_; }
  // The failure as the random tester's drivers report it: kViolation for a
  // value, kProtocolError for misuse.
  CoherenceFailure coherence_failure() const;

  uint64_t events() const { return events_; }
  uint64_t commits() const { return commits_; }
  uint64_t aborts() const { return aborts_; }
  uint64_t reads_checked() const { return reads_checked_; }

 private:
  enum class Op : uint8_t { kTxRead, kTxWrite, kRead, kWrite, kCommitWrite };
  struct Access {  // one access in a transaction's program order
    uint64_t cycle;
    uint64_t addr;
    uint32_t value;
    uint8_t size;
    bool write;
  };
  struct Core {
    bool open = false;
    uint64_t begin_cycle = 0;
    std::vector<Access> log;  // kept between transactions for its capacity
  };
  struct Event {  // one entry of a block's history
    uint64_t cycle;
    uint64_t addr;
    uint32_t value;
    uint16_t core;
    uint8_t size;
    Op op;
  };
  static constexpr uint32_t kHistory = 8;  // events kept per block
  static constexpr uint32_t kGhosts = 4;   // uncommitted writes remembered per word
  struct Ghost {                           // a write by an aborted transaction
    uint64_t begin_cycle = 0;
    uint32_t value = 0;  // in the word's byte lanes
    uint32_t core = 0;
    uint8_t mask = 0;  // the bytes written
  };
  struct GhostWord {
    Ghost ghosts[kGhosts];
    uint32_t next = 0;
  };

  bool valid_core(uint64_t cycle, uint32_t core, const char* event);
  bool valid_access(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value, const char* event);
  uint32_t block_index(uint64_t addr);  // creates the block from `initial` when new
  uint8_t* bytes(uint32_t index) { return &shadow_[static_cast<size_t>(index) * block_bytes_]; }
  uint32_t load(uint32_t index, uint64_t addr, uint32_t size);
  void store(uint32_t index, uint64_t addr, uint32_t size, uint32_t value);
  void record(uint32_t index, uint64_t cycle, uint32_t core, Op op, uint64_t addr, uint32_t size, uint32_t value);
  void grow();

  std::string explain(uint32_t reader, uint32_t index, uint64_t addr, uint32_t size, uint32_t actual,
                      uint32_t expected) const;
  std::string stale(uint32_t index, uint64_t addr, uint32_t size, uint32_t actual) const;
  std::string history_of(uint64_t addr, uint32_t size);
  void fail_value(uint64_t cycle, uint32_t core, const Access& read, uint32_t expected, bool in_tx);
  void fail_misuse(uint64_t cycle, uint32_t core, std::string what);

  uint32_t block_bytes_;
  uint32_t block_shift_;
  Initial initial_;
  std::vector<Core> cores_;

  // Shadow blocks: an open-addressing table from block number to an index
  // into the flat arrays of bytes and histories (the hot path does one
  // probe, usually none with the last block cached).
  std::vector<uint64_t> keys_;  // kEmpty when unused
  std::vector<uint32_t> slots_;
  uint32_t table_shift_;
  uint32_t blocks_ = 0;
  std::vector<uint8_t> shadow_;
  std::vector<Event> history_;        // kHistory per block, a ring
  std::vector<uint32_t> history_at_;  // the ring's next entry per block
  const uint8_t* seed_ = nullptr;     // block_index creates a new block from these bytes
  uint64_t last_key_ = ~uint64_t{0};
  uint32_t last_index_ = 0;

  std::unordered_map<uint64_t, GhostWord> ghosts_;  // by word address

  HtmFailure failure_;
  std::string report_;
  uint64_t events_ = 0;
  uint64_t commits_ = 0;
  uint64_t aborts_ = 0;
  uint64_t reads_checked_ = 0;
};

}  // namespace tessera::mem
