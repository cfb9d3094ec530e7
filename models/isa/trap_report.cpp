#include "isa/trap_report.h"

#include <fmt/format.h>

namespace tessera::isa {

std::string describe_trap(const Inst& inst, const ExecResult& r, uint32_t pc, bool pc_in_code,
                          const std::string& unsupported_where) {
  if (!pc_in_code) return fmt::format("instruction fetch from 0x{:08x}, outside the program's code", pc);
  const std::string text = disassemble(inst, pc);
  switch (r.trap) {
    case Trap::kIllegalInstruction:
      return fmt::format("illegal instruction 0x{:08x} ({})", inst.raw, text);
    case Trap::kLoadMisaligned:
    case Trap::kStoreMisaligned:
      return fmt::format("misaligned {} of {} bytes at address 0x{:08x} ({})",
                         r.trap == Trap::kLoadMisaligned ? "load" : "store", inst.mem_bytes, r.fault_addr, text);
    case Trap::kLoadAccessFault:
    case Trap::kStoreAccessFault:
      return fmt::format("{} access fault at unmapped address 0x{:08x} ({})",
                         r.trap == Trap::kLoadAccessFault ? "load" : "store", r.fault_addr, text);
    case Trap::kInstructionMisaligned:
      return fmt::format("jump to misaligned address 0x{:08x} ({})", r.fault_addr, text);
    case Trap::kTransactional:
      return fmt::format("{}: transactions run on the control cores only (HTM lives in the cluster's L1 caches)", text);
    default:
      return fmt::format("{} is not supported {} ({})", trap_name(r.trap), unsupported_where, text);
  }
}

const char* trap_name(Trap trap) {
  switch (trap) {
    case Trap::kNone:
      return "none";
    case Trap::kIllegalInstruction:
      return "illegal instruction";
    case Trap::kLoadMisaligned:
      return "load address misaligned";
    case Trap::kLoadAccessFault:
      return "load access fault";
    case Trap::kStoreMisaligned:
      return "store/AMO address misaligned";
    case Trap::kStoreAccessFault:
      return "store/AMO access fault";
    case Trap::kEcall:
      return "ecall";
    case Trap::kEbreak:
      return "ebreak";
    case Trap::kBarrier:
      return "barrier";
    case Trap::kThreadExit:
      return "thread exit";
    case Trap::kWfi:
      return "wfi";
    case Trap::kInstructionMisaligned:
      return "instruction address misaligned";
    case Trap::kTransactional:
      return "transactional instruction";
  }
  return "unknown trap";
}

namespace tx {
const char* abort_reason_name(AbortReason r) {
  switch (r) {
    case AbortReason::kExplicit:
      return "explicit";
    case AbortReason::kConflictRw:
      return "conflict_rw";
    case AbortReason::kConflictWr:
      return "conflict_wr";
    case AbortReason::kConflictWw:
      return "conflict_ww";
    case AbortReason::kCapacity:
      return "capacity";
    case AbortReason::kMmio:
      return "mmio";
    case AbortReason::kNesting:
      return "nesting";
    case AbortReason::kLogOverflow:
      return "log_overflow";
  }
  return "unknown";
}
}  // namespace tx

}  // namespace tessera::isa
