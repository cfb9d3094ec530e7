// The control cores' data accesses through their L1Ds: run_hart's
// handlers that retire a completed access, refuse a forbidden one and
// issue loads, stores, atomics and fences to the engine.
#include <fmt/format.h>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

using isa::Trap;

ControlCluster::Step ControlCluster::on_access_done(Pass& p) {
  Hart& h = p.h;
  const unsigned id = h.id();
  if (!completed_[id]) return Step::kNext;
  // The data access finished in the engine: retire the instruction.
  const uint32_t result = *completed_[id];
  completed_[id].reset();
  uint64_t value = result;
  if (p.inst.mem_bytes == 8) {
    // fld/fsd: the low word is done, the high word goes next.
    if (!first_half_[id]) {
      first_half_[id] = result;
      return Step::kAgain;
    }
    value = uint64_t{result} << 32 | *first_half_[id];
    first_half_[id].reset();
  }
  if (p.inst.is_store) note_write(h, p.inst, result, p.t);
  const isa::ExecResult r = h.replay(p.inst, value);
  if (r.trap != Trap::kNone) {
    fault(h, p.inst, r);
    return Step::kWait;
  }
  retired(h, p.t);
  return Step::kAgain;
}

ControlCluster::Step ControlCluster::on_access_check(Pass& p) {
  p.mc = classify(p.inst);
  if (p.mc != MemClass::kAccess) return Step::kNext;
  const uint32_t addr = access_address(p.inst, p.h.state);
  p.mmio_access = is_mmio(addr);
  return refuse_access(p.h, p.inst, addr, p.mmio_access) ? Step::kWait : Step::kNext;
}

ControlCluster::Step ControlCluster::on_memory(Pass& p) {
  if (p.mc != MemClass::kAccess && p.mc != MemClass::kFence) return Step::kNext;
  Hart& h = p.h;
  const unsigned id = h.id();
  const uint64_t t = p.t;
  if (p.mc == MemClass::kAccess) {
    const uint32_t addr = access_address(p.inst, h.state);
    const unsigned bytes = p.inst.mem_bytes ? p.inst.mem_bytes : 4;
    if ((addr & (bytes - 1)) != 0 || !global_.contains(addr, bytes)) {
      // Misaligned or unmapped: the executor raises the trap.
      fault(h, p.inst, h.execute_direct(p.inst));
      return Step::kWait;
    }
  }
  if (t != p.now) return Step::kWait;  // issue when the engine reaches the core's time
  // A drain waits for the cores' accesses in flight: an fld/fsd whose
  // first word is done is one of them, so its second word still goes.
  const bool second_half = first_half_[id].has_value();
  if (draining_ && !second_half) {
    h.ready_at = t + 1;
    return Step::kWait;
  }
  const bus::Op op = memory_op(p.inst, h.state, second_half ? 1 : 0);
  if (!second_half) count_access(h, op.kind);
  if (op.kind == bus::OpKind::kLoad || op.kind == bus::OpKind::kLr)
    last_load_[id] = {line_of(op.addr), h.state.pc, true};
  issued_at_[id] = t;
  set_mode(h, Hart::Mode::kWaitMemory, t);
  engine_->issue(id, op, [this, &h](uint32_t value) {
    completed_[h.id()] = value;
    resume(h);
  });
  return Step::kWait;
}

void ControlCluster::note_write(const Hart& h, const isa::Inst& inst, uint32_t result, uint64_t cycle) {
  // What changes memory: a store, a successful SC (result 0), an AMO whose
  // new value differs from the old (a test-and-set on a held lock writes
  // nothing new, so a spinner does not hide the holder).
  const uint32_t old = result, v = h.state.x[inst.rs2];
  if (inst.op == isa::Op::kScW ? result != 0
                               : inst.is_load && isa::atomic_new_value(inst.op, old, v, h.state.x[inst.rs3]) == old)
    return;
  const uint32_t line = line_of(access_address(inst, h.state));
  line_writes_[(line / engine_->line_bytes()) % kLineWrites] = {line, cycle, h.state.pc, h.id()};
}

std::string ControlCluster::describe_spins() const {
  // The data symbol at or below an address: "lock", "counts+0x8".
  const auto data_name = [this](uint32_t addr) -> std::string {
    const auto& symbols = program_.image().symbols;
    std::string best;
    uint32_t at = 0;
    for (const auto& [name, a] : symbols)
      if (a <= addr && (best.empty() || a > at)) {
        best = name;
        at = a;
      }
    if (best.empty()) return "";
    return addr == at ? " (" + best + ")" : fmt::format(" ({}+0x{:x})", best, addr - at);
  };
  std::string out;
  for (const auto& h : harts_) {
    const LastLoad& l = last_load_[h->id()];
    if (!l.valid || (h->mode != Hart::Mode::kRunning && h->mode != Hart::Mode::kWaitMemory)) continue;
    out += fmt::format("{}.core{}: its last load read line 0x{:08x}{} at pc {}; ", name(), h->id(), l.line,
                       data_name(l.line), pc_text(l.pc));
    const LineWrite& w = line_writes_[(l.line / engine_->line_bytes()) % kLineWrites];
    if (w.line == l.line) {
      out += fmt::format("the last control-core write to it was core{}'s, at cycle {}, pc {}\n", w.core, w.cycle,
                         pc_text(w.pc));
    } else {
      out += "no control core wrote it (as far as the write record reaches)\n";
    }
  }
  return out;
}

void ControlCluster::count_access(Hart& h, bus::OpKind kind) {
  switch (kind) {
    case bus::OpKind::kLoad:
      ++h.loads;
      break;
    case bus::OpKind::kStore:
      ++h.stores;
      break;
    case bus::OpKind::kFence:
      ++h.fences;
      break;
    default:
      ++h.atomics;
      break;
  }
}

bool ControlCluster::refuse_access(Hart& h, const isa::Inst& inst, uint32_t addr, bool mmio_access) {
  const uint32_t pc = h.state.pc;
  std::string why;
  const isa::Mem mem = isa::info(inst.op).mem;
  const bool atomic = mem == isa::Mem::kLr || mem == isa::Mem::kSc || isa::is_amo(mem);
  if (mmio_access) {
    if (atomic || inst.mem_bytes != 4)
      why = fmt::format("{} of MMIO register 0x{:08x}: MMIO registers take 32-bit loads and stores only",
                        isa::disassemble(inst, pc), addr);
  } else {
    for (const StackGuard& g : stack_guards_)
      if (addr - g.base < g.bytes)
        why = fmt::format("stack overflow: {} at 0x{:08x} is in the {}-byte guard at the bottom of {}",
                          isa::disassemble(inst, pc), addr, g.bytes, g.stack);
    if (why.empty() && inst.is_store && program_.find(addr & ~3u))
      why = fmt::format("{} into the program's code at 0x{:08x}: the executable segment is read-only",
                        isa::disassemble(inst, pc), addr);
  }
  if (why.empty()) return false;
  if (debugger_) debugger_->fault(debug_source_, h.id(), 0, debug::Debugger::kSigSegv);
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: {} at pc {}", name(), h.id(), why, pc_text(pc)));
  return true;
}

}  // namespace tessera::cpu
