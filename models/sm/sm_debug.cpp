// An SM's resident warps as gdb threads (--gdb, debug/debugger.h): a
// thread per warp a slot holds, named by the SM, the slot and the block;
// its registers those of one lane; memory as that lane sees it.
#include <fmt/format.h>

#include "sm/sm_engine.h"

namespace tessera::sm {

class SmEngine::DebugThreads final : public debug::ThreadSource {
 public:
  explicit DebugThreads(SmEngine& e) : e_(e) {}

  void threads(std::vector<Thread>& out) override {
    for (unsigned slot = 0; slot < e_.warps_.size(); ++slot) {
      const Warp& w = e_.warps_[slot];
      if (!w.resident) continue;
      const Block& b = e_.slots_[w.block_slot];
      out.push_back({debug_key(slot, w),
                     fmt::format("{} warp {} block ({},{},{})", e_.name_, slot, b.ctaid[0], b.ctaid[1], b.ctaid[2])});
    }
  }

  uint32_t lanes(uint64_t key) override {
    const Warp* w = warp(key);
    return w ? w->existing : 0u;
  }

  unsigned default_lane(uint64_t key) override {
    const Warp* w = warp(key);
    if (!w) return 0;
    const uint32_t m = w->mask ? w->mask : w->existing & ~w->exited ? w->existing & ~w->exited : w->existing;
    return m ? static_cast<unsigned>(__builtin_ctz(m)) : 0;
  }

  isa::ThreadState* state(uint64_t key, unsigned lane) override {
    Warp* w = warp(key);
    return w && lane < kWarpSize && (w->existing >> lane & 1) ? &w->threads[lane] : nullptr;
  }

  bool access_memory(uint64_t key, unsigned lane, uint32_t addr, uint8_t* data, uint32_t len, bool write) override {
    const Warp* w = warp(key);
    if (!w) return false;
    const Block& b = e_.slots_[w->block_slot];
    for (uint32_t i = 0; i < len; ++i)
      if (!e_.lanes_.debug_byte(static_cast<unsigned>(key & 0xff), lane, b, addr + i, &data[i], write)) return false;
    return true;
  }

  std::string activity(uint64_t key) override {
    const Warp* w = warp(key);
    if (!w) return "gone";
    const uint32_t live = w->existing & ~w->exited;
    std::string s = fmt::format("lanes 0x{:08x} run next at {}", w->mask, e_.program_.image().format_pc(w->pc));
    if (w->at_barrier) s += fmt::format(", 0x{:08x} at the barrier", w->at_barrier & live);
    if (w->exited) s += fmt::format(", 0x{:08x} exited", w->exited);
    if (w->outstanding)
      s += fmt::format(", waiting on {} memory access{}", w->outstanding, w->outstanding == 1 ? "" : "es");
    return s;
  }

 private:
  Warp* warp(uint64_t key) {
    const auto slot = static_cast<unsigned>(key & 0xff);
    if (slot >= e_.warps_.size()) return nullptr;
    Warp& w = e_.warps_[slot];
    return w.resident && debug_key(slot, w) == key ? &w : nullptr;
  }

  SmEngine& e_;
};

void SmEngine::set_debugger(debug::Debugger* d) {
  debugger_ = d;
  if (!d) return;
  if (warps_.size() > 256) throw std::logic_error("--gdb: more than 256 warp slots in an SM");
  debug_threads_ = std::make_unique<DebugThreads>(*this);
  debug_source_ = d->add_source(*debug_threads_);
}

}  // namespace tessera::sm
