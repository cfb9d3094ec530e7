#include "sm/global_atomics.h"

#include <algorithm>

namespace tessera::sm {

GlobalAtomics::GlobalAtomics(const sc_core::sc_module_name& name, sim::BackingMemory& global, sim::RunControl& run)
    : sc_module(name), global_(global), run_(run) {
  SC_HAS_PROCESS(GlobalAtomics);
  SC_METHOD(perform);
  sensitive << due_;
  dont_initialize();
}

void GlobalAtomics::add(unsigned sm, isa::Op op, uint32_t addr, uint32_t v, uint32_t swap, uint32_t* dest) {
  if (pending_.empty()) due_.notify(sc_core::sc_time(1, sc_core::SC_PS));
  pending_.push_back(Pending{sm, op, addr, v, swap, dest});
}

void GlobalAtomics::perform() {
  // Each SM appends in its own issue order: a stable sort by SM keeps it.
  std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) { return a.sm < b.sm; });
  for (const Pending& p : pending_) {
    const uint32_t old = global_.load(p.addr, 4);
    const uint32_t updated = isa::atomic_new_value(p.op, old, p.v, p.swap);
    global_.store(p.addr, 4, updated);
    if (updated != old) run_.note_change();
    if (p.dest) *p.dest = old;
  }
  performed_ += pending_.size();
  pending_.clear();
}

}  // namespace tessera::sm
