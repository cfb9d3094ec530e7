#include "sm/global_atomics.h"

namespace tessera::sm {

GlobalAtomics::GlobalAtomics(const sc_core::sc_module_name& name, sim::BackingMemory& global, sim::RunControl& run)
    : sc_module(name), AtomicQueue(global, run) {
  SC_HAS_PROCESS(GlobalAtomics);
  SC_METHOD(perform);
  sensitive << due_;
  dont_initialize();
}

}  // namespace tessera::sm
