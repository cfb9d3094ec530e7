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

#include <systemc>

#include "sm/atomic_queue.h"

namespace tessera::sm {

class GlobalAtomics : public sc_core::sc_module, public AtomicQueue {
 public:
  GlobalAtomics(const sc_core::sc_module_name& name, sim::BackingMemory& global, sim::RunControl& run);

 private:
  void due() override { due_.notify(sc_core::sc_time(1, sc_core::SC_PS)); }
  void perform() { AtomicQueue::perform(); }

  sc_core::sc_event due_;
};

}  // namespace tessera::sm
