// Fast-forward and the switch point (docs/fast-forward.md): the control
// cores run functionally, memory accesses straight to global memory, until
// the first ROI begin, dispatcher LAUNCH, tx.*, wfi or rtl_device register
// access (and vector instruction); then the detailed
// model continues from that state with cold caches at cycle 0.
#include <fmt/format.h>

#include <chrono>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

// The device writes a checkpoint keeps are those logged here.
static_assert(ClusterSnapshot::kFirstDeviceRegister == kDeviceRegisters);
static_assert(ClusterSnapshot::kDeviceWindows == kMmioSystemSize);

const char* switch_reason_name(SwitchReason r) {
  switch (r) {
    case SwitchReason::kNone:
      return "none";
    case SwitchReason::kRoiBegin:
      return "roi-begin";
    case SwitchReason::kLaunch:
      return "launch";
    case SwitchReason::kTx:
      return "tx";
    case SwitchReason::kWfi:
      return "wfi";
    case SwitchReason::kProgramEnd:
      return "program-end";
    case SwitchReason::kVector:
      return "vector";
    case SwitchReason::kDevice:
      return "device";
  }
  return "?";
}

// Loads, stores, AMOs and LR/SC of one core straight to global memory (the
// caller checked alignment, bounds, guards): no caches, no timing.
class ControlCluster::FfEnv final : public isa::ExecEnv {
 public:
  FfEnv(sim::BackingMemory& mem, std::vector<uint32_t>& reservations, unsigned id)
      : mem_(mem), res_(reservations), id_(id) {}
  isa::MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool) override {
    *value = mem_.load(addr, bytes);
    return isa::MemStatus::kOk;
  }
  isa::MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override {
    for (uint32_t& r : res_)
      if (r == (addr & ~3u)) r = kNoReservation;
    mem_.store(addr, bytes, value);
    return isa::MemStatus::kOk;
  }
  isa::MemStatus load_reserved(uint32_t addr, uint32_t* value) override {
    *value = mem_.load(addr, 4);
    res_[id_] = addr;
    return isa::MemStatus::kOk;
  }
  isa::MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override {
    *success = res_[id_] == addr;
    res_[id_] = kNoReservation;
    if (*success) store(addr, 4, value);
    return isa::MemStatus::kOk;
  }
  bool csr_read(uint16_t, uint32_t*) override { return false; }
  bool csr_write(uint16_t, uint32_t) override { return false; }

 private:
  sim::BackingMemory& mem_;
  std::vector<uint32_t>& res_;
  unsigned id_;
};

void ControlCluster::set_fast_forward(bool on, uint64_t max_instructions) {
  ff_.enabled = ff_pending_ = on;
  log_device_writes_ = log_device_writes_ || on;
  ff_limit_ = max_instructions;
  ff_envs_.clear();
  for (const auto& h : harts_) ff_envs_.push_back(std::make_unique<FfEnv>(global_, ff_reservation_, h->id()));
}

void ControlCluster::on_switch(std::function<void()> hook, bool detailed) {
  switch_hook_ = std::move(hook);
  switch_armed_ = detailed;
  log_device_writes_ = log_device_writes_ || detailed;
}

ClusterSnapshot ControlCluster::snapshot() const {
  ClusterSnapshot s;
  for (const auto& h : harts_)
    s.harts.push_back({static_cast<uint32_t>(h->mode), h->state, h->tx_log_base, h->tx_log_size});
  s.start_pc = start_pc_;
  s.start_arg = start_arg_;
  s.start_fn = start_fn_;
  s.start_sp = start_sp_;
  s.device_writes = device_writes_;
  return s;
}

void ControlCluster::restore(const ClusterSnapshot& s) {
  for (size_t k = 0; k < harts_.size(); ++k) {
    Hart& h = *harts_[k];
    h.state = s.harts[k].state;
    h.tx_log_base = s.harts[k].tx_log_base;
    h.tx_log_size = s.harts[k].tx_log_size;
    set_mode(h, static_cast<Hart::Mode>(s.harts[k].mode), 0);
    h.ready_at = 0;
  }
  start_pc_ = s.start_pc;
  start_arg_ = s.start_arg;
  start_fn_ = s.start_fn;
  start_sp_ = s.start_sp;
  replay_writes_ = s.device_writes;
  if (timeline_)
    for (const auto& h : harts_)
      if (h->mode != Hart::Mode::kParked) timeline_->end(core_tracks_[h->id()], 0);
}

SwitchReason ControlCluster::switch_reason(const isa::Inst& inst, const Hart& h) const {
  if (inst.op == isa::Op::kWfi) return SwitchReason::kWfi;
  if (isa::is_tx_op(inst.op)) return SwitchReason::kTx;
  // The vector registers are at their reset state until the first vector
  // instruction, so the switch before it needs no vector state.
  if (inst.op == isa::Op::kIllegal && core_vector_unit_[h.id()] &&
      isa::vec::decode_vector(inst.raw).op != isa::vec::VOp::kIllegal)
    return SwitchReason::kVector;
  // An rtl_device's state (its RTL, its bursts) is in no checkpoint: the
  // device sees its first access in detail, from reset as in a full run.
  if (!inst.is_load && !inst.is_store) return SwitchReason::kNone;
  const uint32_t addr = access_address(inst, h.state);
  if (!is_mmio(addr)) return SwitchReason::kNone;
  if (addr - kMmioBase >= kMmioSystemSize) return SwitchReason::kDevice;
  if (inst.is_store && !inst.is_load) {
    const uint32_t offset = addr - kMmioBase;
    if (offset == launch_offset_) return SwitchReason::kLaunch;
    if (offset == roi_offset_ && h.state.x[inst.rs2] != 0) return SwitchReason::kRoiBegin;
  }
  return SwitchReason::kNone;
}

void ControlCluster::fast_forward() {
  ff_pending_ = false;
  constexpr unsigned kBatch = 1000;  // instructions of one core before the next runs
  const auto t0 = std::chrono::steady_clock::now();
  SwitchReason reason = SwitchReason::kNone;
  while (reason == SwitchReason::kNone && !run_.stopped()) {
    bool any = false;
    for (auto& hp : harts_) {
      if (hp->mode != Hart::Mode::kRunning) continue;
      any = true;
      reason = fast_forward_hart(*hp, kBatch);
      if (reason != SwitchReason::kNone || run_.stopped()) break;
    }
    if (!any) break;
  }
  ff_.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ff_.instructions = 0;  // the running count of the --max-cycles bound; now the cores' sum
  for (const auto& h : harts_) {
    ff_.instructions += h->ff_instructions;
    h->mmio_accesses = 0;  // detailed counters count the detailed part only
  }
  if (run_.stopped()) {
    if (run_.kind() == sim::ExitKind::kProgramExit) ff_.reason = SwitchReason::kProgramEnd;
    return;
  }
  ff_.reason = reason;
  // The detailed model starts here: every running core ready at cycle 0,
  // caches and fetch buffers cold (never touched), no reservation.
  for (auto& h : harts_)
    if (h->mode == Hart::Mode::kRunning) h->ready_at = 0;
  ff_reservation_.assign(harts_.size(), kNoReservation);
  if (switch_hook_) switch_hook_();
  log_device_writes_ = false;
}

SwitchReason ControlCluster::fast_forward_hart(Hart& h, unsigned batch) {
  isa::ExecEnv& env = *ff_envs_[h.id()];
  for (unsigned n = 0; n < batch; ++n) {
    const isa::Inst* inst = program_.find(h.state.pc);
    if (!inst) {
      isa::ExecResult r;
      r.trap = isa::Trap::kIllegalInstruction;
      fault(h, isa::Inst{}, r);
      return SwitchReason::kNone;
    }
    const SwitchReason reason = switch_reason(*inst, h);
    if (reason != SwitchReason::kNone) {
      ff_.switch_pc = h.state.pc;
      ff_.switch_core = h.id();
      return reason;
    }
    if (ff_limit_ && ++ff_.instructions > ff_limit_) {
      run_.stop(sim::ExitKind::kCycleLimit, sim::kStatusCycleLimit,
                fmt::format("--max-cycles {} reached during fast-forward: {} control-core instructions ran "
                            "functionally without reaching a switch point (ROI begin, kernel launch, tx.*, wfi, a "
                            "device register; core{} at pc 0x{:08x})",
                            ff_limit_, ff_limit_, h.id(), h.state.pc));
      return SwitchReason::kNone;
    }
    if (classify(*inst) == MemClass::kAccess) {
      const uint32_t addr = access_address(*inst, h.state);
      const bool mmio_access = is_mmio(addr);
      if (refuse_access(h, *inst, addr, mmio_access)) return SwitchReason::kNone;
      if (!mmio_access) {
        const unsigned bytes = inst->mem_bytes ? inst->mem_bytes : 4;
        if ((addr & (bytes - 1)) != 0 || !global_.contains(addr, bytes)) {
          fault(h, *inst, h.execute_direct(*inst));
          return SwitchReason::kNone;
        }
        const isa::ExecResult r = isa::execute<true>(*inst, h.state, env);
        if (r.trap != isa::Trap::kNone) {
          fault(h, *inst, r);
          return SwitchReason::kNone;
        }
        ++h.ff_instructions;
        continue;
      }
    }
    const isa::ExecResult r = h.execute_direct(*inst);
    if (run_.stopped()) return SwitchReason::kNone;  // EXIT is not counted, as in a detailed run
    if (r.trap != isa::Trap::kNone) {
      fault(h, *inst, r);
      return SwitchReason::kNone;
    }
    ++h.ff_instructions;
    if (h.mode != Hart::Mode::kRunning) return SwitchReason::kNone;  // parked itself
  }
  return SwitchReason::kNone;
}

ControlCluster::Step ControlCluster::on_switch_point(Pass& p) {
  const unsigned id = p.h.id();
  if (!switch_armed_ || completed_[id] || first_half_[id] || vector_accesses_[id].active) return Step::kNext;
  const SwitchReason reason = switch_reason(p.inst, p.h);
  if (reason == SwitchReason::kNone) return Step::kNext;
  return detailed_switch(p.h, reason, p.t, p.now, p.sc_now) ? Step::kWait : Step::kAgain;
}

bool ControlCluster::detailed_switch(Hart& h, SwitchReason reason, uint64_t t, uint64_t now, uint64_t sc_now) {
  if (t != now || t != sc_now) return true;  // synchronise, as for MMIO
  // A coherence point: no new access until every operation has finished
  // and every core has retired the one it waited for.
  draining_ = true;
  bool pending = !engine_->idle();
  for (size_t k = 0; k < harts_.size(); ++k)
    pending = pending || completed_[k].has_value() || first_half_[k].has_value();
  if (pending) {
    h.ready_at = t + 1;
    return true;
  }
  draining_ = false;
  engine_->write_back_and_invalidate_all();
  forget_fetch_lines();
  switch_armed_ = false;
  log_device_writes_ = false;
  ff_.reason = reason;
  ff_.switch_pc = h.state.pc;
  ff_.switch_core = h.id();
  if (switch_hook_) switch_hook_();
  return false;
}

}  // namespace tessera::cpu
