// Mnemonics of every Op, from the opcode table.
#include "isa/encoding.h"

namespace tessera::isa {

const char* op_name(Op op) { return static_cast<unsigned>(op) < kOpCount ? info(op).name : "illegal"; }

}  // namespace tessera::isa
