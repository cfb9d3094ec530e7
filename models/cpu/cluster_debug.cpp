// The control cores as gdb threads (--gdb, debug/debugger.h): one thread
// per core, parked ones included, their registers the hart's, memory the
// cluster's coherent view (a dirty line in an L1D is read from there).
#include <fmt/format.h>

#include <stdexcept>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

class ControlCluster::DebugThreads final : public debug::ThreadSource {
 public:
  explicit DebugThreads(ControlCluster& c) : c_(c) {}

  void threads(std::vector<Thread>& out) override {
    for (const auto& h : c_.harts_) out.push_back({h->id(), fmt::format("{}.core{}", c_.name(), h->id())});
  }
  uint32_t lanes(uint64_t key) override { return key < c_.harts_.size() ? 1u : 0u; }
  unsigned default_lane(uint64_t) override { return 0; }
  isa::ThreadState* state(uint64_t key, unsigned lane) override {
    return key < c_.harts_.size() && lane == 0 ? &c_.harts_[key]->state : nullptr;
  }

  bool access_memory(uint64_t, unsigned, uint32_t addr, uint8_t* data, uint32_t len, bool write) override {
    // Global memory only: an MMIO read has effects (the console, a device).
    if (!c_.global_.contains(addr, len)) return false;
    for (uint32_t i = 0; i < len; ++i) {
      try {
        if (write) {
          c_.engine_->debug_write(addr + i, 1, data[i]);
        } else {
          data[i] = static_cast<uint8_t>(c_.engine_->debug_read(addr + i, 1));
        }
      } catch (const std::logic_error&) {
        // A bus transaction on the line is in flight: memory's copy.
        if (write) {
          c_.global_.write(addr + i, &data[i], 1);
        } else {
          c_.global_.read(addr + i, &data[i], 1);
        }
      }
    }
    return true;
  }

  std::string activity(uint64_t key) override {
    if (key >= c_.harts_.size()) return "gone";
    const Hart& h = *c_.harts_[key];
    return fmt::format("{} at {}", mode_name(h.mode), c_.program_.image().format_pc(h.state.pc));
  }

 private:
  ControlCluster& c_;
};

void ControlCluster::set_debugger(debug::Debugger* d) {
  debugger_ = d;
  if (!d) return;
  debug_threads_ = std::make_unique<DebugThreads>(*this);
  debug_source_ = d->add_source(*debug_threads_);
}

}  // namespace tessera::cpu
