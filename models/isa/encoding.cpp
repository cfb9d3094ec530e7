// Mnemonics of every Op, in enum order.
#include "isa/encoding.h"

namespace tessera::isa {

namespace {
constexpr const char* kNames[kOpCount] = {
    "illegal",   "lui",       "auipc",    "jal",       "jalr",      "beq",       "bne",       "blt",      "bge",
    "bltu",      "bgeu",      "lb",       "lh",        "lw",        "lbu",       "lhu",       "sb",       "sh",
    "sw",        "addi",      "slti",     "sltiu",     "xori",      "ori",       "andi",      "slli",     "srli",
    "srai",      "add",       "sub",      "sll",       "slt",       "sltu",      "xor",       "srl",      "sra",
    "or",        "and",       "fence",    "fence.tso", "ecall",     "ebreak",    "fence.i",   "csrrw",    "csrrs",
    "csrrc",     "csrrwi",    "csrrsi",   "csrrci",    "wfi",       "mul",       "mulh",      "mulhsu",   "mulhu",
    "div",       "divu",      "rem",      "remu",      "lr.w",      "sc.w",      "amoswap.w", "amoadd.w", "amoxor.w",
    "amoand.w",  "amoor.w",   "amomin.w", "amomax.w",  "amominu.w", "amomaxu.w", "flw",       "fsw",      "fmadd.s",
    "fmsub.s",   "fnmsub.s",  "fnmadd.s", "fadd.s",    "fsub.s",    "fmul.s",    "fdiv.s",    "fsqrt.s",  "fsgnj.s",
    "fsgnjn.s",  "fsgnjx.s",  "fmin.s",   "fmax.s",    "fcvt.w.s",  "fcvt.wu.s", "fmv.x.w",   "feq.s",    "flt.s",
    "fle.s",     "fclass.s",  "fcvt.s.w", "fcvt.s.wu", "fmv.w.x",   "sfu.sin",   "sfu.cos",   "sfu.ex2",  "sfu.lg2",
    "sfu.rcp",   "sfu.rsqrt", "bar.sync", "exit",      "ldg.b",     "ldg.h",     "ldg.w",     "ldg.bu",   "ldg.hu",
    "atom.fadd", "atom.inc",  "atom.dec", "atom.cas",
};
// Every entry filled: the last one must be the last Op's name.
static_assert(kNames[kOpCount - 1] != nullptr, "op name table shorter than Op");
}  // namespace

const char* op_name(Op op) {
  const auto i = static_cast<unsigned>(op);
  return i < kOpCount ? kNames[i] : "illegal";
}

}  // namespace tessera::isa
