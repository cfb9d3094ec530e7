// One L2 slice (docs/architecture.md, "Memory system"): set-associative, write-back, sectored,
// with MSHRs that merge misses, and an atomic unit that executes global
// atomics at the L2. Cycle-driven and free of SystemC: the L2 system steps it
// and moves its requests to and from memory.
//
// Timing rules (docs/architecture.md, "Memory system"):
// - the tag pipeline accepts one request per cycle from its input queue;
// - a read whose sectors are all present answers hit_latency cycles later;
//   missing sectors are fetched from memory one 32-byte sector request each,
//   unless an MSHR already fetches them; the answer leaves hit_latency cycles
//   after the last sector arrives;
// - writes allocate without fetching (the sectors they cover become valid and
//   dirty) and are acknowledged hit_latency cycles later; evicted dirty
//   sectors are written back;
// - atomics need their sectors (fetched like reads), then occupy the atomic
//   unit atomic_cycles per lane operation, one request after another; the
//   answer leaves when the unit finishes (at the earliest hit_latency after
//   the lookup).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "mem/sector_cache.h"
#include "sim/mem_ext.h"

namespace tessera::gpu {

struct L2Params {
  mem::SectorGeometry geometry;
  unsigned hit_latency = 0;
  unsigned mshrs = 0;
  unsigned queue_depth = 0;
  unsigned atomic_cycles = 0;
};

struct L2Request {
  uint64_t handle = 0;  // the requester's token, returned with the answer
  uint32_t line = 0;
  uint8_t sectors = 0;
  sim::MemOp op = sim::MemOp::kRead;
  unsigned atomic_ops = 0;
};

struct MemoryRequest {
  uint32_t addr = 0;  // a 32-byte sector
  bool write = false;
  // A read: the handle of the request whose miss fetches the sector (it
  // waits for the fill, so the handle is live until the answer); 0: a
  // write-back.
  uint64_t cause = 0;
};

struct L2Stats {
  uint64_t reads = 0, writes = 0, atomics = 0, atomic_ops = 0;
  uint64_t hit_sectors = 0, miss_sectors = 0, mshr_merged_sectors = 0;
  uint64_t writebacks = 0, mem_reads = 0, mshr_full_cycles = 0;
};

// The slice that holds a line: line number mod slices, or, with `hashed`,
// the line number's bit fields (log2(slices) bits wide) xor-folded first, so
// power-of-two strides that would all land in one slice spread over all.
unsigned slice_for_line(uint32_t line_number, unsigned slices, bool hashed);

class L2Slice {
 public:
  explicit L2Slice(const L2Params& p);

  bool can_accept() const { return input_.size() < p_.queue_depth; }
  size_t queued() const { return input_.size(); }
  unsigned queue_depth() const { return p_.queue_depth; }
  // A request that reaches the slice in `arrival` (usable from that cycle).
  void push(const L2Request& r, uint64_t arrival);
  // One cycle of the tag pipeline.
  void cycle(uint64_t now);
  // The request cycle(now) looks up (nullptr: none waits).
  const L2Request* next_request(uint64_t now) const {
    return input_.empty() || input_.front().arrival > now ? nullptr : &input_.front().req;
  }
  // A sector fetched from memory arrived in cycle `now`.
  void fill(uint32_t sector_addr, uint64_t now);

  // Answers that are due: handle and the cycle they leave the slice.
  struct Answer {
    uint64_t handle;
    uint64_t cycle;
  };
  std::deque<Answer>& answers() { return answers_; }
  std::deque<MemoryRequest>& to_memory() { return to_memory_; }
  // The earliest cycle after `now` at which cycle() could do something on its
  // own (kNever when it only waits for memory or new requests).
  uint64_t next_work(uint64_t now) const;
  bool idle() const { return input_.empty() && mshr_.empty() && answers_.empty() && to_memory_.empty(); }
  const L2Stats& stats() const { return stats_; }
  size_t mshrs_used() const { return mshr_.size(); }
  // Waveforms: when set, every stretch of cycles [first, end) the atomic
  // unit is busy is appended to `log` (contiguous stretches merged).
  void log_atomic_busy(std::deque<std::pair<uint64_t, uint64_t>>* log) { atomic_log_ = log; }
  static constexpr uint64_t kNever = ~uint64_t{0};

 private:
  struct Waiter {
    uint64_t handle;
    sim::MemOp op;
    unsigned atomic_ops;
    uint8_t sectors;
  };
  struct Queued {
    L2Request req;
    uint64_t arrival;
  };
  bool serve(const L2Request& r, uint64_t now);  // false: no MSHR, retry
  void answer(uint64_t handle, sim::MemOp op, unsigned atomic_ops, uint64_t data_ready);
  void write_back(const mem::SectorCache::Victim& v);

  L2Params p_;
  mem::SectorCache cache_;
  mem::MshrTable<Waiter> mshr_;
  std::deque<Queued> input_;
  std::deque<Answer> answers_;  // in cycle order
  std::deque<MemoryRequest> to_memory_;
  uint64_t atomic_free_ = 0;
  std::deque<std::pair<uint64_t, uint64_t>>* atomic_log_ = nullptr;
  L2Stats stats_;
};

}  // namespace tessera::gpu
