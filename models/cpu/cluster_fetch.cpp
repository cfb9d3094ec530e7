// The control cores' instruction fetch: run_hart's handler that fills a
// core's one-line fetch buffer through its L1I (cpu.fetch_l1i) before the
// first instruction of a new line runs. Instructions themselves come from
// the decoded program; a fetched word that differs stops the run.
#include <fmt/format.h>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

ControlCluster::Step ControlCluster::on_fetch(Pass& p) {
  Hart& h = p.h;
  const unsigned id = h.id();
  if (!fetch_l1i_ || (h.state.pc & line_mask_) == fetch_line_[id]) return Step::kNext;
  // Fill the fetch buffer from the L1I, when the engine reaches the core.
  const uint64_t t = p.t;
  if (t != p.now) return Step::kWait;
  if (draining_) {
    h.ready_at = t + 1;
    return Step::kWait;
  }
  bus::Op fetch;
  fetch.kind = bus::OpKind::kIfetch;
  fetch.addr = h.state.pc;
  fetch.size = 4;
  fetch_expected_[id] = p.inst.raw;
  ++h.fetches;
  issued_at_[id] = t;
  set_mode(h, Hart::Mode::kWaitMemory, t);
  engine_->issue(id, fetch, [this, &h](uint32_t word) {
    const unsigned hid = h.id();
    resume(h);
    if (word != fetch_expected_[hid]) {
      run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                fmt::format("{}.core{}: the instruction at pc {} was changed in memory (0x{:08x}, was "
                            "0x{:08x}); control cores do not run code written at run time",
                            name(), hid, pc_text(h.state.pc), word, fetch_expected_[hid]));
      return;
    }
    fetch_line_[hid] = h.state.pc & line_mask_;
  });
  return Step::kWait;
}

}  // namespace tessera::cpu
