// Global atomics of one instant, performed together in a fixed order (by SM,
// then in each SM's issue order), so the old values the lanes see do not
// depend on the order SystemC runs the SMs of that instant. No SystemC here:
// whoever owns the queue decides when perform() runs (GlobalAtomics: 1 ps
// after the first atomic of an instant).
#pragma once

#include <cstdint>
#include <vector>

#include "isa/isa.h"
#include "sim/backing_memory.h"
#include "sim/run_control.h"

namespace tessera::sm {

class AtomicQueue {
 public:
  AtomicQueue(sim::BackingMemory& global, sim::RunControl& run) : global_(global), run_(run) {}
  virtual ~AtomicQueue() = default;
  AtomicQueue(const AtomicQueue&) = delete;
  AtomicQueue& operator=(const AtomicQueue&) = delete;

  // One lane's atomic: `op` at `addr` with rs2 = v, rs3 = swap (atom.cas);
  // the old value is written to *dest (null: rd is x0) when performed.
  void add(unsigned sm, isa::Op op, uint32_t addr, uint32_t v, uint32_t swap, uint32_t* dest) {
    if (pending_.empty()) due();
    pending_.push_back(Pending{sm, op, addr, v, swap, dest});
  }
  // A 64-bit atomic (atom.add64/exch64/cas64) at the 8-aligned `addr`: the
  // old value goes to dest[0] (low word) and dest[1] (high word).
  void add64(unsigned sm, isa::Op op, uint32_t addr, uint64_t v, uint64_t swap, uint32_t* dest) {
    if (pending_.empty()) due();
    pending_.push_back(Pending{sm, op, addr, v, swap, dest});
  }
  // Performs every queued atomic.
  void perform();
  uint64_t performed() const { return performed_; }
  bool empty() const { return pending_.empty(); }

 protected:
  // The queue became non-empty: arrange for perform() to run.
  virtual void due() {}

 private:
  struct Pending {
    unsigned sm;
    isa::Op op;
    uint32_t addr;
    uint64_t v, swap;  // 32-bit atomics: the low words
    uint32_t* dest;
  };

  sim::BackingMemory& global_;
  sim::RunControl& run_;  // told of every atomic that changes memory (the progress watchdog)
  std::vector<Pending> pending_;
  uint64_t performed_ = 0;
};

}  // namespace tessera::sm
