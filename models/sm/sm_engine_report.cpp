// The SM engine's reports: a faulting thread's message (the trap, the
// instruction, the block and thread), the state dump of a stuck run and the
// in-flight lines of the deadlock report. Cold paths, apart from the cycle
// loop in sm_engine.cpp.
#include <fmt/format.h>

#include "isa/encoding.h"
#include "isa/trap_report.h"
#include "sm/sm_engine.h"

namespace tessera::sm {

using isa::Inst;
using isa::Trap;

void SmEngine::illegal_pc(unsigned slot) {
  const Warp& w = warps_[slot];
  isa::ExecResult r;
  r.trap = Trap::kIllegalInstruction;
  r.fault_addr = w.pc;
  fault(w, slot, static_cast<unsigned>(__builtin_ctz(w.mask)), Inst{}, r);
}

void SmEngine::fault(const Warp& w, unsigned slot, unsigned lane, const Inst& inst, const isa::ExecResult& r) {
  if (debugger_) debugger_->fault(debug_source_, debug_key(slot, w), lane, debug::Debugger::signal_of(r.trap));
  const Block& blk = slots_[w.block_slot];
  const auto& tid = w.tid[lane];
  const uint32_t pc = w.threads[lane].pc;
  const AccessRecord& rec = lanes_.record();
  std::string what = isa::describe_trap(inst, r, pc, program_.find(pc) != nullptr, "in kernels");
  const auto& regs = w.threads[lane].x;
  if (r.trap == Trap::kEbreak && regs[17] == isa::kAssertMagic) {
    // assert() failed in the kernel: file, line, function and expression as
    // CUDA prints them (the strings are constants of the image).
    const isa::ElfImage& image = program_.image();
    const auto text = [&](uint32_t addr) { return image.string_at(addr).value_or("?"); };
    what = fmt::format("{}:{}: {}: Assertion `{}` failed", text(regs[10]), static_cast<int32_t>(regs[11]),
                       regs[12] != 0 ? text(regs[12]) : "?", text(regs[13]));
  }
  const bool access = r.trap == Trap::kLoadAccessFault || r.trap == Trap::kStoreAccessFault;
  const std::string text = access ? isa::disassemble(inst, pc) : "";
  switch (access ? rec.fault_why : FaultWhy::kUnmapped) {
    case FaultWhy::kUnmapped:
      break;
    case FaultWhy::kSharedWindow:
      what += fmt::format(
          " (the shared-memory window 0x{:08x}: this block's static shared variables are [0x{:08x}, 0x{:08x}) "
          "and its dynamic area [0x{:08x}, 0x{:08x}); {} bytes of shared memory in all)",
          kSharedWindow, blk.launch.static_lo, uint64_t{blk.launch.static_lo} + blk.launch.static_bytes,
          blk.launch.dynamic_at, uint64_t{blk.launch.dynamic_at} + blk.launch.dynamic_bytes, blk.use.shared_bytes);
      break;
    case FaultWhy::kStackOverflow:
      what = fmt::format(
          "stack overflow: access at 0x{:08x} ({}), below the thread's local memory [0x{:08x}, "
          "0x{:08x}) that holds its stack (sm.local_bytes = {})",
          rec.fault_addr, text, kLocalWindow, kLocalWindow + p_.local_bytes, p_.local_bytes);
      break;
    case FaultWhy::kLocalAtomic:
      what = fmt::format("atomic on local memory at 0x{:08x} ({}): atomics and LR/SC need shared or global memory",
                         rec.fault_addr, text);
      break;
    case FaultWhy::kWideSharedRtl:
      what = fmt::format(
          "{}-bit shared-memory access at 0x{:08x} ({}) refused: the RTL shared-memory bank unit (sm.shared_impl "
          "{}) takes 32-bit lanes only (wide shared accesses and 64-bit shared atomics need sm.shared_impl model)",
          8 * inst.mem_bytes, rec.fault_addr, isa::disassemble(inst, pc), rtl::impl_name(p_.shared_impl));
      break;
    case FaultWhy::kDeviceAccess:
      what = fmt::format(
          "device register access at 0x{:08x} ({}) refused: a kernel reaches device registers with 32-bit loads "
          "and stores only (no atomics, LR/SC or wide accesses)",
          rec.fault_addr, text);
      break;
    case FaultWhy::kDeviceError:
      what = fmt::format("device register access at 0x{:08x} ({}) answered with an error (SLVERR or DECERR)",
                         rec.fault_addr, text);
      break;
    case FaultWhy::kDeviceMixed:
      what = fmt::format(
          "{}: the lanes of one instruction access both device registers and memory, which Tessera refuses (give "
          "the device access an instruction of its own, for example under if (threadIdx.x == 0))",
          text);
      break;
    case FaultWhy::kCodeStore:
      what = fmt::format("store into the program's code at 0x{:08x} ({}): the executable segment is read-only",
                         rec.fault_addr, text);
      break;
  }
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}: {} at pc {}, warp slot {} (block ({},{},{}) warp {}), thread ({},{},{}) lane {}", name_,
                        what, program_.image().format_pc(pc), slot, blk.ctaid[0], blk.ctaid[1], blk.ctaid[2],
                        w.warp_in_block, tid[0], tid[1], tid[2], lane));
}

std::string SmEngine::dump_state() const {
  std::string out;
  for (unsigned slot = 0; slot < warps_.size(); ++slot) {
    const Warp& w = warps_[slot];
    if (!w.resident) continue;
    const Block& blk = slots_[w.block_slot];
    const Inst* inst = program_.find(w.pc);
    const isa::ElfImage& image = program_.image();
    // A lane waiting at a barrier or __syncwarp has its pc past it; one
    // parked at a *_sync call is still at it.
    const auto pc_of = [&](uint32_t lanes, uint32_t back) {
      return image.format_pc(w.threads[static_cast<unsigned>(__builtin_ctz(lanes))].pc - back);
    };
    std::string waits =
        w.at_syncwarp ? fmt::format(", lanes 0x{:08x} wait at the __syncwarp {} for lanes 0x{:08x}", w.at_syncwarp,
                                    pc_of(w.at_syncwarp, 4), w.syncwarp_need & w.existing & ~w.exited & ~w.at_syncwarp)
                      : "";
    if (w.at_collective)
      waits +=
          fmt::format(", lanes 0x{:08x} are parked at the *_sync call {}", w.at_collective, pc_of(w.at_collective, 0));
    if (w.at_barrier)
      waits = fmt::format(", lanes 0x{:08x} wait at the barrier {}", w.at_barrier, pc_of(w.at_barrier, 4)) + waits;
    // What the warp does next, in words: which lanes run which instruction.
    const std::string next = w.mask ? fmt::format("lanes 0x{:08x} run next at {}{}", w.mask, image.format_pc(w.pc),
                                                  inst ? ": " + isa::disassemble(*inst, w.pc) : "")
                                    : "no lane is ready to run";
    out += fmt::format(
        "  {} warp slot {:2}: block ({},{},{}) warp {}, lanes 0x{:08x}, exited 0x{:08x}{}; {}; memory groups in "
        "flight {}\n",
        name_, slot, blk.ctaid[0], blk.ctaid[1], blk.ctaid[2], w.warp_in_block, w.existing, w.exited, waits, next,
        w.outstanding);
  }
  for (const Block& b : slots_.blocks()) {
    if (b.resident && b.waiting)
      out += fmt::format("  {} block ({},{},{}): {} of {} threads wait at the barrier, {} have exited\n", name_,
                         b.ctaid[0], b.ctaid[1], b.ctaid[2], b.waiting, b.threads, b.exited);
  }
  return out;
}

namespace {
const char* op_name(LineOp op) {
  switch (op) {
    case LineOp::kRead:
      return "read";
    case LineOp::kWrite:
      return "write";
    case LineOp::kAtomic:
      return "atomic";
  }
  return "?";
}
}  // namespace

std::string SmEngine::describe_in_flight() const {
  // Every resident warp and waiting block (the deadlock report's detail),
  // then the memory requests at each stage.
  std::string out = dump_state();
  for (const MemRequest& r : requests_)
    out += fmt::format("{}: {} line 0x{:08x} sectors 0x{:x} for warp slot {} waiting to be sent\n", name_,
                       op_name(r.op), r.line, r.sectors, r.warp);
  for (unsigned h = 0; h < l1_.halves(); ++h) {
    for (const auto& e : l1_.half(h).mshr.entries())
      out += fmt::format("{}: l1_half{} miss on line 0x{:08x}: sectors 0x{:x} requested, 0x{:x} arrived, {} waiting\n",
                         name_, h, e.line, e.requested, e.arrived, e.waiters.size());
  }
  for (const auto& e : const_.half(0).mshr.entries())
    out += fmt::format("{}: const_cache miss on line 0x{:08x}: sectors 0x{:x} requested, 0x{:x} arrived, {} waiting\n",
                       name_, e.line, e.requested, e.arrived, e.waiters.size());
  for (const Arrival& a : arrivals_)
    out += fmt::format("{}: line 0x{:08x} answered in cycle {}, applied from cycle {}\n", name_, a.line, a.cycle,
                       a.cycle + 1);
  return out;
}

}  // namespace tessera::sm
