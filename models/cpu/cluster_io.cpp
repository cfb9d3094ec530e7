// The control cores' MMIO and wfi: run_hart's handler that synchronises
// them with SystemC time (and the kernel-launch coherence points), the
// cluster's own registers (core start and park, bus counters;
// docs/firmware-abi.md) and the accesses that go out through mmio_socket
// to the chip's devices.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

ControlCluster::Step ControlCluster::on_io(Pass& p) {
  if (!p.mmio_access && p.inst.op != isa::Op::kWfi) return Step::kNext;
  Hart& h = p.h;
  const uint64_t t = p.t;
  if (h.tx_depth > 0) {
    // A transaction cannot do I/O or sleep: it aborts, the access never happens.
    if (t != p.now) return Step::kWait;
    abort_transaction(h, isa::tx::abort_status(isa::tx::AbortReason::kMmio), t);
    return Step::kWait;
  }
  // Synchronise: MMIO and wfi happen exactly at SystemC time.
  if (t != p.now || t != p.sc_now) return Step::kWait;
  if (p.mmio_access && needs_coherence_point(p.inst, h)) {
    if (!engine_->idle()) {
      draining_ = true;  // no core starts a new access until the engine is idle
      h.ready_at = t + 1;
      return Step::kWait;
    }
    draining_ = false;
    coherence_point(h, t);
    if (h.ready_at != t) return Step::kAgain;  // the write-backs take time: synchronise again
  }
  const isa::ExecResult r = h.execute_direct(p.inst);
  if (run_.stopped()) return Step::kWait;  // EXIT, or a bad core start
  if (r.trap != isa::Trap::kNone && r.trap != isa::Trap::kWfi) {
    fault(h, p.inst, r);
    return Step::kWait;
  }
  retired(h, t);
  if (r.trap == isa::Trap::kWfi && should_sleep(h)) {
    set_mode(h, Hart::Mode::kSleeping, t + 1);
    sleep_start_[h.id()] = t + 1;
    if (timeline_)
      timeline_->begin(core_tracks_[h.id()],
                       interrupt_source_busy() ? "wfi (kernel or device busy)" : "wfi (core join)", timeline_ps(t + 1));
    return Step::kWait;
  }
  // Not parked by HART_PARK; a device register access waits for the device.
  if (h.mode == Hart::Mode::kRunning) h.ready_at = t + 1 + std::exchange(mmio_extra_cycles_, 0);
  return Step::kAgain;
}

bool ControlCluster::needs_coherence_point(const isa::Inst& inst, const Hart& h) const {
  if (!launch_coherence_) return false;
  const uint32_t addr = access_address(inst, h.state);
  if (!is_mmio(addr)) return false;
  const uint32_t offset = addr - kMmioBase;
  // A device's registers: what it reads or wrote in memory is coherent with
  // the caches at each access (docs/rtl-devices.md).
  if (offset >= kMmioSystemSize) return true;
  if (inst.is_store && offset == launch_offset_) return true;
  return inst.is_load && offset == status_offset_ && kernel_may_have_run_;
}

// Every dirty line to memory, every cache emptied: the SMs read what the
// cores wrote, and the cores' next reads see what kernels wrote. Costs the
// core one line transfer per dirty line.
void ControlCluster::coherence_point(Hart& h, uint64_t now) {
  const uint32_t written = engine_->write_back_and_invalidate_all();
  forget_fetch_lines();  // the L1Is are empty too
  ++coherence_points_;
  coherence_write_backs_ += written;
  const auto& p = engine_->params();
  const uint64_t beats = p.l1d.line_bytes * 8u / p.width_bits;
  h.ready_at = now + static_cast<uint64_t>(written) * beats;
}

bool ControlCluster::mmio(Hart& h, bool write, uint32_t addr, unsigned bytes, uint32_t* value) {
  ++h.mmio_accesses;
  if (write) run_.note_change();
  const uint32_t offset = addr - kMmioBase;
  if (offset >= cluster_reg::kFirst && offset < cluster_reg::kEnd) return cluster_register(h, write, offset, value);
  tlm::tlm_generic_payload gp;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(offset);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(value));
  gp.set_data_length(bytes);
  gp.set_streaming_width(bytes);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;  // cores synchronise before MMIO
  mmio_socket->b_transport(gp, delay);
  // A device's register access runs the device's cycles until it answers.
  mmio_extra_cycles_ = static_cast<uint64_t>(std::ceil(delay / clock_.period()));
  if (!gp.is_response_ok()) return false;
  if (write && offset == launch_offset_) kernel_may_have_run_ = true;
  if (write && log_device_writes_ && offset >= kDeviceRegisters) {
    const auto it = std::find_if(device_writes_.begin(), device_writes_.end(),
                                 [offset](const auto& w) { return w.first == offset; });
    if (it == device_writes_.end())
      device_writes_.emplace_back(offset, *value);
    else
      it->second = *value;
  }
  if (!write && offset == status_offset_ && *value == 0) kernel_may_have_run_ = false;
  return true;
}

bool ControlCluster::cluster_register(Hart& h, bool write, uint32_t offset, uint32_t* value) {
  namespace r = cluster_reg;
  const uint64_t t = h.ready_at;
  if (write) {
    switch (offset) {
      case r::kHartPc:
        start_pc_ = *value;
        return true;
      case r::kHartArg:
        start_arg_ = *value;
        return true;
      case r::kHartFn:
        start_fn_ = *value;
        return true;
      case r::kHartSp:
        start_sp_ = *value;
        return true;
      case r::kHartStart: {
        const uint32_t target = *value;
        std::string why;
        if (target == 0 || target >= harts_.size())
          why = fmt::format("hart {} cannot be started (harts 1..{} exist; cluster.cores={})", target,
                            harts_.size() - 1, harts_.size());
        else if (harts_[target]->mode != Hart::Mode::kParked)
          why = fmt::format("hart {} is already running", target);
        if (!why.empty()) {
          run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                    fmt::format("{}.core{}: HART_START at pc {}: {}", name(), h.id(), pc_text(h.state.pc), why));
          return true;
        }
        Hart& o = *harts_[target];
        o.state = isa::ThreadState{};
        o.state.pc = start_pc_;
        o.state.x[2] = start_sp_;
        o.state.x[10] = start_arg_;
        o.state.x[11] = start_fn_;
        // The vector unit starts from reset too (spec 3.11's recommended
        // vtype: vill), whatever the core's previous function set.
        if (o.vector) {
          o.vector->vl = 0;
          o.vector->vtype = isa::vec::kVtypeVill;
          o.vector->vstart = 0;
        }
        set_mode(o, Hart::Mode::kRunning, t + 1);
        o.ready_at = t + 1;
        if (timeline_) timeline_->end(core_tracks_[target], timeline_ps(t + 1));
        completed_[target].reset();
        first_half_[target].reset();
        fetch_line_[target] = kNoLine;
        return true;
      }
      case r::kHartPark:
        if (h.id() == 0) {
          run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                    fmt::format("{}.cpu0: HART_PARK at pc {}: hart 0 runs main() and cannot park", name(),
                                pc_text(h.state.pc)));
          return true;
        }
        set_mode(h, Hart::Mode::kParked, t + 1);
        if (timeline_) timeline_->begin(core_tracks_[h.id()], "parked", timeline_ps(t + 1));
        wake_sleepers(t + 1);  // a core waiting in tessera_core_join
        return true;
      default:
        return false;  // read-only
    }
  }
  const bus::ClusterCounters& c = engine_->counters();
  switch (offset) {
    case r::kNumCores:
      *value = static_cast<uint32_t>(harts_.size());
      return true;
    case r::kHartPc:
      *value = start_pc_;
      return true;
    case r::kHartArg:
      *value = start_arg_;
      return true;
    case r::kHartFn:
      *value = start_fn_;
      return true;
    case r::kHartSp:
      *value = start_sp_;
      return true;
    case r::kHartRunning: {
      uint32_t mask = 0;
      for (const auto& o : harts_)
        if (o->mode != Hart::Mode::kParked) mask |= 1u << o->id();
      *value = mask;
      return true;
    }
    case r::kBusTransactions: {
      uint64_t n = 0;
      for (uint64_t k : c.bus_ops) n += k;
      *value = static_cast<uint32_t>(n);
      return true;
    }
    case r::kInvalidations: {
      uint64_t n = 0;
      for (uint32_t a = 0; a < 2 * harts_.size(); ++a) n += engine_->agent_counters(a).invalidations;
      *value = static_cast<uint32_t>(n);
      return true;
    }
    case r::kCacheToCache:
      *value = static_cast<uint32_t>(c.cache_to_cache);
      return true;
    case r::kMemoryReads:
      *value = static_cast<uint32_t>(c.memory_reads);
      return true;
    default:
      return false;
  }
}

}  // namespace tessera::cpu
