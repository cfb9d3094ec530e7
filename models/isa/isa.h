// RV32IMAFD + Tessera SIMT extension: instruction representation, decoder,
// executor and disassembler. No SystemC here: the SM, the control cores and the
// fuzzers all reuse this library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>

#include "isa/encoding.h"

namespace tessera::isa {

// A failed assert() in a kernel (firmware/runtime/runtime.c, __assert_func):
// ebreak with this value in a7, the file, line, function and expression
// in a0..a3.
inline constexpr uint32_t kAssertMagic = 0x41535254;  // "ASRT"

// Register index space used by scoreboards: 0..31 are x0..x31, 32..63 are f0..f31.
inline constexpr uint8_t kNoReg = 0xFF;
inline constexpr uint8_t kFpRegBase = 32;

struct Inst {
  Op op = Op::kIllegal;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;  // register fields as encoded
  uint8_t rm = 0;                             // F: rounding-mode field; A: aq<<1|rl
  uint16_t csr = 0;                           // Zicsr: CSR number
  int32_t imm = 0;                            // sign-extended immediate (shift amount for shifts, zimm for csr*i)
  uint32_t raw = 0;                           // the encoded word
  // Filled from the opcode table (isa/opcodes.h) by the decoder:
  Unit unit = Unit::kSp;
  Lat lat = Lat::kAlu;
  // Scoreboard view: destination and sources in the 0..63 space; kNoReg when
  // unused. Writes to x0 report dst == kNoReg.
  uint8_t dst = kNoReg;
  uint8_t src[3] = {kNoReg, kNoReg, kNoReg};
  uint8_t mem_bytes = 0;  // access size for loads/stores/atomics, else 0
  // Register groups (ld.v4, atom.cas64, ...): dst and the data sources src[1]
  // and src[2] each name the first of `group` consecutive registers.
  uint8_t group = 1;
  bool is_load = false;     // reads memory (loads, LR, AMOs, LDG)
  bool is_store = false;    // writes memory (stores, SC, AMOs)
  bool is_control = false;  // may change the PC other than to pc + 4
  // The table's facts the executor's per-lane memory paths need, copied so
  // that they cost no table lookup: kExecReadOnly, kExecUnsigned, kExecFpData.
  uint8_t exec = 0;
};
inline constexpr uint8_t kExecReadOnly = 1 << 0;  // LDG: the read-only (__ldg) path
inline constexpr uint8_t kExecUnsigned = 1 << 1;  // a load that zero-extends
inline constexpr uint8_t kExecFpData = 1 << 2;    // a load's rd or a store's rs2 is an f register
inline constexpr uint8_t kExecMemory = 1 << 3;    // the table's Mem is not kNone
inline constexpr uint8_t kExecFence = 1 << 4;     // Mem::kFence
inline constexpr uint8_t kExecSmOnly = 1 << 5;    // opflag::kSmOnly
// DecodedProgram holds one Inst per code word: keep it two to a cache line.
static_assert(sizeof(Inst) == 32, "isa::Inst grew past 32 bytes");

// The value an AMO or Tessera atomic leaves in memory, from the old value,
// rs2 (`v`) and, for atom.cas, rs3 (`swap`, stored only when old == v).
uint32_t atomic_new_value(Op op, uint32_t old, uint32_t v, uint32_t swap);
// The same for the 64-bit atomics (atom.add64, atom.exch64, atom.cas64).
uint64_t atomic_new_value64(Op op, uint64_t old, uint64_t v, uint64_t swap);

// Hardware transactions (docs/firmware-abi.md, "Transactional memory (control
// cores)"): the abort status tx.begin writes to rd after an abort, and the
// undo-log entry size.
namespace tx {
enum class AbortReason : uint8_t {
  kExplicit = 1,     // tx.abort
  kConflictRw = 2,   // another core's read hit this transaction's write set
  kConflictWr = 3,   // another core's write hit its read set
  kConflictWw = 4,   // another core's write hit its write set
  kCapacity = 5,     // a transactional line left the L1
  kMmio = 6,         // an MMIO access or wfi inside the transaction
  kNesting = 7,      // tx.begin deeper than htm.max_depth
  kLogOverflow = 8,  // the next undo-log entry would pass txlogbase + txlogsize
};
inline constexpr unsigned kReasons = 8;
inline constexpr uint32_t kRetryBit = 1u << 16;  // retrying may succeed
inline constexpr unsigned kLogEntryBytes = 8;    // word-aligned address, then the old word

// Only conflicts may go away on a retry.
constexpr bool retry_may_succeed(AbortReason r) {
  return r == AbortReason::kConflictRw || r == AbortReason::kConflictWr || r == AbortReason::kConflictWw;
}
// Bits 7:0 the reason, 15:8 the tx.abort code (explicit aborts only), bit 16
// the retry hint. Never 0: tx.begin's 0 means "started".
constexpr uint32_t abort_status(AbortReason r, uint8_t code = 0) {
  const uint32_t c = r == AbortReason::kExplicit ? uint32_t{code} << 8 : 0u;
  return static_cast<uint32_t>(r) | c | (retry_may_succeed(r) ? kRetryBit : 0u);
}
// The reason of a status, or 0 for a status no abort produces.
constexpr unsigned status_reason(uint32_t status) {
  const unsigned r = status & 0xFFu;
  return r >= 1 && r <= kReasons ? r : 0u;
}
// Short names for statistics and reports: "explicit", "conflict_rw", ...
const char* abort_reason_name(AbortReason r);
}  // namespace tx

// Decodes one 32-bit instruction word. Unknown or reserved encodings give
// op == Op::kIllegal (never throws).
Inst decode(uint32_t raw);

// GNU objdump style with -M no-aliases: "addi\ta0,a1,5", branch and jump
// targets as absolute hex addresses ("beq\ta0,a1,0x80000010"), FP rounding
// mode printed when not dyn ("fcvt.w.s\ta0,fa0,rtz").
std::string disassemble(const Inst& inst, uint32_t pc);
// The ABI name of a register in the 0..63 space of Inst::dst ("a0", "fa1").
const char* reg_name(uint8_t reg);
inline std::string disassemble(uint32_t raw, uint32_t pc) { return disassemble(decode(raw), pc); }

namespace fp {
// NaN-boxing (spec 12.2): a single in a 64-bit f register has its upper 32
// bits all ones; an operation reading a single from a register that is not
// so boxed reads the canonical NaN. Loads, moves and stores (flw, fmv.w.x,
// fsw, fmv.x.w) transfer the low 32 bits unchecked.
inline constexpr uint64_t kBoxed = 0xFFFFFFFF00000000ull;
inline constexpr uint64_t box(uint32_t single) { return kBoxed | single; }
inline constexpr uint32_t unbox(uint64_t reg) {
  return (reg & kBoxed) == kBoxed ? static_cast<uint32_t>(reg) : 0x7FC00000u;  // the canonical NaN
}
}  // namespace fp

// The 64-bit values of the f registers that hold something other than a
// boxed single (doubles), for one thread: allocated on the first such write
// and kept by clear(), so that a thread that only uses singles carries one
// null pointer and no more.
class WideRegisters {
 public:
  WideRegisters() = default;
  WideRegisters(const WideRegisters& o) { *this = o; }
  WideRegisters& operator=(const WideRegisters& o) {
    if (o.bits_ && this != &o) {
      if (!bits_) bits_.reset(new uint64_t[32]);
      std::copy(o.bits_.get(), o.bits_.get() + 32, bits_.get());
    }
    return *this;
  }
  WideRegisters(WideRegisters&&) noexcept = default;
  WideRegisters& operator=(WideRegisters&&) noexcept = default;
  ~WideRegisters() = default;

  uint64_t get(unsigned r) const { return bits_[r]; }
  void set(unsigned r, uint64_t v) {
    if (!bits_) bits_.reset(new uint64_t[32]);
    bits_[r] = v;
  }

 private:
  std::unique_ptr<uint64_t[]> bits_;
};

// Architectural state of one hardware thread.
//
// The f registers are 64 bits (D); a single is NaN-boxed in one (spec 12.2).
// f[r] is what register r is as a single operand: its value when it holds a
// boxed single, the canonical NaN otherwise. Where `wide` has bit r, the
// register holds something else (a double), whose 64 bits are in
// `wide_registers`. Code that uses singles reads f[] with no check and never
// touches the 64-bit values, and a thread is as compact as an F-only one:
// the SM holds 2048 of these per SM, and their cache and TLB footprint is
// its speed (a 64-bit f[] array in here cost 5-9% of it). Read and write f
// registers through the accessors.
struct ThreadState {
  uint32_t x[32] = {};
  uint32_t f[32] = {};
  uint32_t pc = 0;
  uint32_t fcsr = 0;  // frm in bits 7:5, fflags in bits 4:0
  uint32_t wide = 0;  // bit r: f register r is not a boxed single
  WideRegisters wide_registers;

  // The reset state (zero registers, f registers boxed +0.0), keeping the
  // 64-bit storage for the next use of the thread.
  void clear() {
    std::fill(std::begin(x), std::end(x), 0u);
    std::fill(std::begin(f), std::end(f), 0u);
    pc = fcsr = wide = 0;
  }

  // f register r as a single operand (the canonical NaN unless NaN-boxed).
  uint32_t fs(unsigned r) const { return f[r]; }
  // Writes a single, NaN-boxed.
  void set_fs(unsigned r, uint32_t v) {
    f[r] = v;
    if (wide != 0) wide &= ~(1u << r);
  }
  // The 64 bits of f register r.
  uint64_t fd(unsigned r) const { return (wide >> r & 1) != 0 ? wide_registers.get(r) : 0xFFFFFFFF00000000ull | f[r]; }
  void set_fd(unsigned r, uint64_t v) {
    if (v >> 32 == 0xFFFFFFFFu) return set_fs(r, static_cast<uint32_t>(v));
    f[r] = 0x7FC00000u;  // read as a single: the canonical NaN
    wide_registers.set(r, v);
    wide |= 1u << r;
  }
  // The low 32 bits of f register r, boxed or not: what fsw and fmv.x.w move.
  uint32_t low(unsigned r) const { return static_cast<uint32_t>(fd(r)); }
};

// Whether two threads' architectural states are equal (fh[] where unused
// does not count).
inline bool same_state(const ThreadState& a, const ThreadState& b) {
  for (unsigned r = 0; r < 32; ++r)
    if (a.x[r] != b.x[r] || a.fd(r) != b.fd(r)) return false;
  return a.pc == b.pc && a.fcsr == b.fcsr;
}

enum class MemStatus : uint8_t { kOk, kMisaligned, kAccessFault };

// What a core or SM provides to the executor. Addresses are guest addresses.
class ExecEnv {
 public:
  virtual ~ExecEnv() = default;
  // read_only is true for the Tessera LDG (__ldg) loads.
  virtual MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) = 0;
  virtual MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) = 0;
  // The wide loads and stores and the 64-bit atomics: `bytes` (8 or 16,
  // aligned) as little-endian words words[0..bytes/4). An environment that
  // does not override them performs one 4-byte access per word, in order.
  virtual MemStatus load_wide(uint32_t addr, unsigned bytes, uint32_t* words) {
    for (unsigned k = 0; k < bytes / 4; ++k) {
      const MemStatus s = load(addr + 4 * k, 4, &words[k], false);
      if (s != MemStatus::kOk) return s;
    }
    return MemStatus::kOk;
  }
  virtual MemStatus store_wide(uint32_t addr, unsigned bytes, const uint32_t* words) {
    for (unsigned k = 0; k < bytes / 4; ++k) {
      const MemStatus s = store(addr + 4 * k, 4, words[k]);
      if (s != MemStatus::kOk) return s;
    }
    return MemStatus::kOk;
  }
  // AMOs and the Tessera atomics are executed as load() then store() of the
  // same word: threads run one instruction at a time, so the pair is atomic.
  virtual MemStatus load_reserved(uint32_t addr, uint32_t* value) = 0;
  // Sets *success; stores only when the reservation taken by load_reserved
  // of this thread is still valid.
  virtual MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) = 0;
  // CSRs other than fflags/frm/fcsr (which live in ThreadState). Return false
  // for an unknown CSR or a write to a read-only one (illegal instruction).
  virtual bool csr_read(uint16_t csr, uint32_t* value) = 0;
  virtual bool csr_write(uint16_t csr, uint32_t value) = 0;
};

enum class Trap : uint8_t {
  kNone,
  kIllegalInstruction,
  kLoadMisaligned,
  kLoadAccessFault,
  kStoreMisaligned,
  kStoreAccessFault,
  kEcall,
  kEbreak,
  kBarrier,     // Tessera bar.sync: pc already advanced; the SM holds the thread
  kThreadExit,  // Tessera exit: the thread is finished
  kWfi,         // wait for interrupt: pc already advanced; the core may sleep
  // A taken branch or jump to an address that is not a multiple of 4 (no C
  // extension; spec 2.2); fault_addr is the target. Added after the others.
  kInstructionMisaligned,
  // tx.* (or a transactional CSR the environment does not have) outside a
  // control core: transactions live in the cluster's L1 caches. Added after
  // the others.
  kTransactional,
};

const char* trap_name(Trap trap);

struct ExecResult {
  Trap trap = Trap::kNone;
  uint32_t fault_addr = 0;  // the address for memory traps
};

// Executes one instruction for one thread and advances thread.pc. On a fault
// (illegal instruction, misaligned or faulting access) the thread's registers
// and pc are left unchanged. kTrackFflags selects whether IEEE exception
// flags accrue into fcsr (exactly, as the control cores do) or are not
// tracked (SM lanes, like CUDA hardware, raise no FP flags; faster).
template <bool kTrackFflags>
ExecResult execute(const Inst& inst, ThreadState& thread, ExecEnv& env);

extern template ExecResult execute<true>(const Inst&, ThreadState&, ExecEnv&);
extern template ExecResult execute<false>(const Inst&, ThreadState&, ExecEnv&);

}  // namespace tessera::isa
