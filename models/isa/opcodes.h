// The opcode table: one row per instruction (models/isa/opcodes.def) from
// which `enum class Op`, the decoder's filling of Inst, the disassembler,
// the timing models' classification (unit, latency class, memory class),
// the warp-level predicates and the kernel record's register accounting all
// derive. The vector instructions have their own (isa/vector.h, `facts`).
//
// How to add an instruction:
//   1. its row in models/isa/opcodes.def (name, mnemonic, operand format,
//      unit, latency class, memory class and size, register roles, flags);
//   2. its bit pattern in models/isa/decode.cpp (which word is this Op, its
//      immediate, and any encoding-specific reserved fields);
//   3. its semantics: a case in execute() (models/isa/execute.cpp); or, for
//      a warp-level instruction, in warp_ops.cpp / the SM; for an atomic,
//      its Mem row value is enough where an existing atomic operation fits.
// Then add it to the golden .S files of testbenches/unit/isa (the
// disassembly is checked against binutils there) and to docs/firmware-abi.md
// when it is one of Tessera's own.
#pragma once

#include <array>
#include <cstdint>

namespace tessera::isa {

// One value per instruction mnemonic, in the table's order.
enum class Op : uint16_t {
#define TESSERA_OP(name, ...) k##name,
#include "isa/opcodes.def"
#undef TESSERA_OP
  kCount  // number of opcodes, not an instruction
};

inline constexpr unsigned kOpCount = static_cast<unsigned>(Op::kCount);

// Functional unit an instruction occupies in the SM (see docs/architecture.md).
enum class Unit : uint8_t {
  kSp,    // integer and single-precision ALU/FMA lanes, branches, CSR reads
  kSfu,   // special function unit: sin, cos, ex2, lg2, rcp, rsqrt, fdiv, fsqrt
  kLdst,  // loads, stores, atomics, fences
  kCtrl,  // barrier, thread exit, ecall/ebreak/wfi: no lane occupancy
  kDp,    // FP64 unit: the D extension's arithmetic, comparisons and conversions
};

// What the timing models key a result's latency on: the SM's
// sm.alu_latency / idiv_latency / sfu_latency / fp64_latency /
// fp64_div_latency, the control cores' cpu.mul_latency / div_latency; kMem
// results come from the memory path (shared, local, L1, L2), whose latency
// the access decides.
enum class Lat : uint8_t { kAlu, kImul, kIdiv, kSfu, kMem, kFp64, kFp64Div };

// Memory class. Loads read, stores write, the others both (LR reads, SC
// writes); the AMO values name the read-modify-write operation.
enum class Mem : uint8_t {
  kNone,
  kLoad,
  kStore,
  kLr,
  kSc,
  kFence,  // fence, fence.tso: orders the accesses around it
  kAmoSwap,
  kAmoAdd,
  kAmoXor,
  kAmoAnd,
  kAmoOr,
  kAmoMin,
  kAmoMax,
  kAmoMinu,
  kAmoMaxu,
  kAmoFadd,  // f32 add
  kAmoInc,   // CUDA atomicInc: old >= v ? 0 : old + 1
  kAmoDec,   // CUDA atomicDec: old == 0 || old > v ? v : old - 1
  kAmoCas,   // old == v ? rs3 : old
};
constexpr bool is_amo(Mem m) { return m >= Mem::kAmoSwap; }
constexpr bool reads_memory(Mem m) { return m == Mem::kLoad || m == Mem::kLr || is_amo(m); }
constexpr bool writes_memory(Mem m) { return m == Mem::kStore || m == Mem::kSc || is_amo(m); }

// What a register field names. kD is an f register holding a 64-bit value
// (the D extension); kF one holding a single, NaN-boxed (spec 12.2).
enum class Reg : uint8_t {
  kNone,
  k_ = kNone,  // how opcodes.def spells kNone
  kX,
  kF,
  kD,
};
constexpr bool is_fp(Reg r) { return r == Reg::kF || r == Reg::kD; }

// Disassembly operand formats (GNU objdump -M no-aliases), named by operands.
enum class Fmt : uint8_t {
  kIllegal,  // illegal 0x<word>
  kRegs,     // the register fields with a role, in order rd, rs1, rs2, rs3; ",rm" when kRm
  kU,        // rd, imm >> 12
  kJ,        // rd, target
  kB,        // rs1, rs2, target
  kLoad,     // rd, imm(rs1)
  kStore,    // rs2, imm(rs1)
  kI,        // rd, rs1, imm
  kShift,    // rd, rs1, shamt in hex
  kFence,    // pred, succ
  kCsr,      // rd, csr, rs1
  kCsrI,     // rd, csr, zimm
  kAtomic,   // rd, rs2 and rs3 when they have a role, (rs1); .aq/.rl when kAqRl
  kImm,      // imm
};

// OpInfo::flags.
namespace opflag {
inline constexpr uint16_t kControl = 1 << 0;     // may change the pc other than to pc + 4
inline constexpr uint16_t kRm = 1 << 1;          // has a rounding-mode field (static 5 and 6 reserved)
inline constexpr uint16_t kAqRl = 1 << 2;        // A extension: aq/rl bits, address rs1 with no offset
inline constexpr uint16_t kUnsigned = 1 << 3;    // a load that zero-extends
inline constexpr uint16_t kReadOnly = 1 << 4;    // LDG: the read-only (__ldg) path
inline constexpr uint16_t kSmOnly = 1 << 5;      // an SM instruction: the control cores fault on it
inline constexpr uint16_t kWarp = 1 << 6;        // executed across a warp by the SM, not by execute()
inline constexpr uint16_t kCollective = 1 << 7;  // kWarp reading the active lanes' operands
inline constexpr uint16_t kTx = 1 << 8;          // hardware transactions, the control cores execute them
}  // namespace opflag

struct OpInfo {
  Op op;
  const char* name;
  Fmt fmt;
  Unit unit;
  Lat lat;
  Mem mem;
  uint8_t bytes;  // memory access size, 0 when none
  uint8_t group;  // registers per data operand (dst, src[1], src[2]); 1 but for register groups
  Reg rd, rs1, rs2, rs3;
  uint16_t flags;
};

namespace op_table {
using namespace opflag;
inline constexpr std::array<OpInfo, kOpCount> kOps = {{
#define TESSERA_OP(name, mnemonic, fmt, unit, lat, mem, bytes, group, rd, rs1, rs2, rs3, flags) \
  {Op::k##name, mnemonic,   Fmt::k##fmt, Unit::k##unit, Lat::k##lat, Mem::k##mem, bytes,        \
   group,       Reg::k##rd, Reg::k##rs1, Reg::k##rs2,   Reg::k##rs3, flags},
#include "isa/opcodes.def"
#undef TESSERA_OP
}};

constexpr bool rows_in_order() {
  for (unsigned i = 0; i < kOpCount; ++i)
    if (static_cast<unsigned>(kOps[i].op) != i) return false;
  return true;
}
static_assert(rows_in_order(), "opcodes.def: row i must describe Op i");
}  // namespace op_table

// The row of an opcode; op must be < Op::kCount.
constexpr const OpInfo& info(Op op) { return op_table::kOps[static_cast<unsigned>(op)]; }
constexpr bool has(Op op, uint16_t flag) { return (info(op).flags & flag) != 0; }

// Groups the timing models and executors ask about.
// The warp-level instructions (shfl.*, vote.*, activemask, syncwarp,
// bar.red.*, membar.cta): the SM does not run them through execute().
constexpr bool is_warp_op(Op op) { return has(op, opflag::kWarp); }
// Those whose result combines the active lanes' operands: shfl.*, vote.*, activemask.
constexpr bool is_warp_collective(Op op) { return has(op, opflag::kCollective); }
// The hardware-transaction instructions (tx.begin, tx.end, tx.abort, tx.test):
// the control cores execute them in the cluster; execute() refuses them
// (Trap::kTransactional).
constexpr bool is_tx_op(Op op) { return has(op, opflag::kTx); }
// The wide memory instructions and 64-bit atomics move register groups.
constexpr bool is_wide_memory(Op op) { return info(op).group > 1 && !is_amo(info(op).mem); }
constexpr bool is_atomic64(Op op) { return info(op).group > 1 && is_amo(info(op).mem); }

}  // namespace tessera::isa
