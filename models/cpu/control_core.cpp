#include "cpu/control_core.h"

#include <fmt/format.h>

#include "isa/encoding.h"
#include "isa/trap_report.h"

namespace tessera::cpu {

using isa::MemStatus;
using isa::Trap;

ControlCore::ControlCore(const sc_core::sc_module_name& name, unsigned id, const Context& ctx)
    : sc_module(name),
      mmio_socket("mmio_socket"),
      id_(id),
      clock_(ctx.clock),
      global_(ctx.global),
      program_(ctx.program),
      run_(ctx.run),
      log_(std::string(this->name())),
      stats_(fmt::format("cpu{}", id), &ctx.stats_parent) {
  load_latency_ = static_cast<unsigned>(
      ctx.config.get_int("cpu.load_latency", 4, 0, 1000, "Extra cycles of a control-core load from global memory"));
  mul_latency_ = static_cast<unsigned>(
      ctx.config.get_int("cpu.mul_latency", 2, 0, 100, "Extra cycles of a control-core multiply"));
  div_latency_ = static_cast<unsigned>(
      ctx.config.get_int("cpu.div_latency", 32, 0, 1000, "Extra cycles of a control-core divide or remainder"));
  quantum_ = static_cast<unsigned>(ctx.config.get_int(
      "cpu.quantum", 1000, 1, 1000000, "Instructions a control core runs ahead of SystemC time between MMIO accesses"));
  state_.pc = ctx.entry;
  state_.x[2] = ctx.stack_top;

  stats_.add_counter("instructions", &instructions_, "Instructions retired");
  stats_.add_counter("cycles", &cycles_, "Cycles the core was running (not in wfi)");
  stats_.add_counter("wfi_cycles", &wfi_cycles_, "Cycles asleep in wfi (waiting for a kernel)");
  stats_.add_counter("loads", &loads_, "Loads from global memory");
  stats_.add_counter("stores", &stores_, "Stores to global memory");
  stats_.add_counter("mmio_accesses", &mmio_, "MMIO register accesses");

  SC_HAS_PROCESS(ControlCore);
  SC_METHOD(step);
  sensitive << interrupt_;
}

void ControlCore::interrupt() {
  if (sleeping_) interrupt_.notify(clock_.delay_until(clock_.now_cycle() + 1));
}

void ControlCore::step() {
  if (run_.stopped()) return;
  if (sleeping_) {
    sleeping_ = false;
    wfi_cycles_ += clock_.now_cycle() - sleep_start_;
  }
  ahead_ = 0;
  for (unsigned n = 0; n < quantum_; ++n) {
    const isa::Inst* inst = program_.find(state_.pc);
    if (!inst) {
      isa::ExecResult r;
      r.trap = Trap::kIllegalInstruction;
      fault(isa::Inst{}, r);
      return;
    }
    // MMIO and wfi must happen at the exact time: catch up with SystemC time
    // first.
    if (inst->op == isa::Op::kWfi && ahead_ > 0) break;
    if ((inst->is_load || inst->is_store) && ahead_ > 0) {
      const uint32_t addr = state_.x[inst->rs1] + static_cast<uint32_t>(inst->imm);
      if (addr - kMmioBase < kMmioSize) break;
    }
    extra_cycles_ = 0;
    const isa::ExecResult r = isa::execute<true>(*inst, state_, *this);
    if (run_.stopped()) return;  // the program wrote EXIT
    if (r.trap == Trap::kWfi) {
      ++instructions_;
      ++ahead_;
      if (may_sleep_ && may_sleep_()) {
        cycles_ += ahead_;
        sleeping_ = true;
        sleep_start_ = local_cycle();
        next_trigger(interrupt_);
        return;
      }
      continue;
    }
    if (r.trap != Trap::kNone) {
      fault(*inst, r);
      return;
    }
    ++instructions_;
    switch (inst->op) {
      case isa::Op::kMul: case isa::Op::kMulh: case isa::Op::kMulhsu: case isa::Op::kMulhu:
        extra_cycles_ += mul_latency_;
        break;
      case isa::Op::kDiv: case isa::Op::kDivu: case isa::Op::kRem: case isa::Op::kRemu:
        extra_cycles_ += div_latency_;
        break;
      default: break;
    }
    ahead_ += 1 + extra_cycles_;
  }
  cycles_ += ahead_;
  next_trigger(clock_.period() * static_cast<double>(ahead_ ? ahead_ : 1));
}

void ControlCore::fault(const isa::Inst& inst, const isa::ExecResult& r) {
  const uint32_t pc = state_.pc;
  const std::string what = isa::describe_trap(inst, r, pc, program_.find(pc) != nullptr, "on control cores");
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}: {} at pc 0x{:08x}", name(), what, pc));
}

bool ControlCore::mmio_access(tlm::tlm_command cmd, uint32_t addr, unsigned bytes, uint32_t* value) {
  ++mmio_;
  tlm::tlm_generic_payload gp;
  gp.set_command(cmd);
  gp.set_address(addr - kMmioBase);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(value));
  gp.set_data_length(bytes);
  gp.set_streaming_width(bytes);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = clock_.period() * static_cast<double>(ahead_);
  mmio_socket->b_transport(gp, delay);
  return gp.is_response_ok();
}

MemStatus ControlCore::load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) {
  if (read_only) return MemStatus::kAccessFault;  // ldg is an SM instruction
  if (addr - kMmioBase < kMmioSize) {
    *value = 0;
    return mmio_access(tlm::TLM_READ_COMMAND, addr, bytes, value) ? MemStatus::kOk : MemStatus::kAccessFault;
  }
  if (!global_.contains(addr, bytes)) return MemStatus::kAccessFault;
  *value = global_.load(addr, bytes);
  ++loads_;
  extra_cycles_ += load_latency_;
  return MemStatus::kOk;
}

MemStatus ControlCore::store(uint32_t addr, unsigned bytes, uint32_t value) {
  if (addr - kMmioBase < kMmioSize)
    return mmio_access(tlm::TLM_WRITE_COMMAND, addr, bytes, &value) ? MemStatus::kOk : MemStatus::kAccessFault;
  if (!global_.contains(addr, bytes)) return MemStatus::kAccessFault;
  global_.store(addr, bytes, value);
  ++stores_;
  return MemStatus::kOk;
}

MemStatus ControlCore::load_reserved(uint32_t addr, uint32_t* value) {
  if (!global_.contains(addr, 4)) return MemStatus::kAccessFault;
  global_.reserve(id_, addr);
  return load(addr, 4, value, false);
}

MemStatus ControlCore::store_conditional(uint32_t addr, uint32_t value, bool* success) {
  if (!global_.contains(addr, 4)) return MemStatus::kAccessFault;
  *success = global_.take_reservation(id_, addr);
  return *success ? store(addr, 4, value) : MemStatus::kOk;
}

bool ControlCore::csr_read(uint16_t csr, uint32_t* value) {
  namespace c = isa::csr;
  switch (csr) {
    case c::kCycle: case c::kTime: *value = static_cast<uint32_t>(local_cycle()); return true;
    case c::kCycleh: case c::kTimeh: *value = static_cast<uint32_t>(local_cycle() >> 32); return true;
    case c::kInstret: *value = static_cast<uint32_t>(instructions_); return true;
    case c::kInstreth: *value = static_cast<uint32_t>(instructions_ >> 32); return true;
    case c::kMhartid: *value = id_; return true;
    default: return false;
  }
}

bool ControlCore::csr_write(uint16_t, uint32_t) { return false; }

}  // namespace tessera::cpu
