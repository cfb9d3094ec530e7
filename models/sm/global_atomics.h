// Global atomics in a fixed order. SMs execute instructions when they issue,
// but the SMs of one chip are separate SystemC processes, and the order in
// which SystemC runs the processes of one instant is not specified: two SMs
// whose atomics on one word issue in the same cycle must not see different
// old values depending on that order (nor on idle skipping, which changes
// it). So an SM records its global atomics instead of performing them, and
// 1 ps after the instant every atomic of that instant is performed on the
// functional memory by SM number, then by issue order within the SM; the
// old value goes to the thread's destination register. The register is not
// readable before the atomic's answer returns from L2, many cycles later.
#pragma once

#include <cstdint>
#include <systemc>
#include <vector>

#include "isa/isa.h"
#include "sim/backing_memory.h"
#include "sim/run_control.h"

namespace tessera::sm {

class GlobalAtomics : public sc_core::sc_module {
 public:
  GlobalAtomics(const sc_core::sc_module_name& name, sim::BackingMemory& global, sim::RunControl& run);

  // One lane's atomic: `op` at `addr` with rs2 = v, rs3 = swap (atom.cas);
  // the old value is written to *dest (null: rd is x0).
  void add(unsigned sm, isa::Op op, uint32_t addr, uint32_t v, uint32_t swap, uint32_t* dest);
  uint64_t performed() const { return performed_; }

 private:
  struct Pending {
    unsigned sm;
    isa::Op op;
    uint32_t addr, v, swap;
    uint32_t* dest;
  };
  void perform();

  sim::BackingMemory& global_;
  sim::RunControl& run_;  // told of every atomic that changes memory (the progress watchdog)
  std::vector<Pending> pending_;
  sc_core::sc_event due_;
  uint64_t performed_ = 0;
};

}  // namespace tessera::sm
