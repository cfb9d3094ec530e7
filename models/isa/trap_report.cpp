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

}  // namespace tessera::isa
