#include "sm/atomic_queue.h"

#include <algorithm>

namespace tessera::sm {

void AtomicQueue::perform() {
  // Each SM appends in its own issue order: a stable sort by SM keeps it.
  std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) { return a.sm < b.sm; });
  for (const Pending& p : pending_) {
    if (isa::is_atomic64(p.op)) {
      const uint64_t old = uint64_t{global_.load(p.addr + 4, 4)} << 32 | global_.load(p.addr, 4);
      const uint64_t updated = isa::atomic_new_value64(p.op, old, p.v, p.swap);
      global_.store(p.addr, 4, static_cast<uint32_t>(updated));
      global_.store(p.addr + 4, 4, static_cast<uint32_t>(updated >> 32));
      if (updated != old) run_.note_change();
      if (p.dest) {
        p.dest[0] = static_cast<uint32_t>(old);
        p.dest[1] = static_cast<uint32_t>(old >> 32);
      }
      continue;
    }
    const uint32_t old = global_.load(p.addr, 4);
    const uint32_t updated =
        isa::atomic_new_value(p.op, old, static_cast<uint32_t>(p.v), static_cast<uint32_t>(p.swap));
    global_.store(p.addr, 4, updated);
    if (updated != old) run_.note_change();
    if (p.dest) *p.dest = old;
  }
  performed_ += pending_.size();
  pending_.clear();
}

}  // namespace tessera::sm
