// What went wrong, in words, for a guest fault report: the trap, the
// faulting address and the instruction's disassembly.
#pragma once

#include <cstdint>
#include <string>

#include "isa/isa.h"

namespace tessera::isa {

// pc_in_code: whether pc lies in the program's code (else the fault is a
// fetch from outside it). unsupported_where completes "ecall is not
// supported ..." for traps the core cannot take ("in kernels").
std::string describe_trap(const Inst& inst, const ExecResult& r, uint32_t pc, bool pc_in_code,
                          const std::string& unsupported_where);

}  // namespace tessera::isa
