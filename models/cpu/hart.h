// One control core (hart) of the cluster: architectural state, what it is
// doing, and how an instruction's data access becomes a cluster operation.
// Pure logic, no SystemC: the ControlCluster shell schedules harts.
//
// A data access runs in two halves: the hart turns the instruction into a
// bus::Op (memory_op) and the cluster engine performs it with real timing;
// when the engine completes it, the instruction is executed by the ISA
// executor in replay mode, where load()/store()/lr/sc return the engine's
// result instead of touching memory. So the executor stays the one
// definition of every instruction's semantics.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

#include "bus/cluster.h"
#include "isa/isa.h"
#include "isa/vector.h"

namespace tessera::cpu {

// The MMIO region: the system block's 4 KiB at its base (console, exit,
// the cluster's and the dispatcher's registers), then the register windows
// of the netlist's devices (rtl_device).
inline constexpr uint32_t kMmioBase = 0x10000000;
inline constexpr uint32_t kMmioSize = 0x01000000;
inline constexpr uint32_t kMmioSystemSize = 0x1000;

// MMIO offsets from here on belong to devices (the dispatcher), below to
// the system registers and the cluster's own.
inline constexpr uint32_t kDeviceRegisters = 0x100;

inline bool is_mmio(uint32_t addr) { return addr - kMmioBase < kMmioSize; }

// What an instruction needs from the memory system.
enum class MemClass : uint8_t {
  kNone,    // no data access (fetch is functional)
  kAccess,  // a load, store, AMO, LR or SC through the L1D
  kFence,   // fence / fence.tso: waits for the store buffer
  kDirect,  // executed without the cluster: it faults (LDG and the SIMT atomics are SM instructions)
};

MemClass classify(const isa::Inst& inst);

// The data address of an access: rs1 + imm, or rs1 alone for the A
// extension (spec 8.2-8.4: no offset).
inline uint32_t access_address(const isa::Inst& inst, const isa::ThreadState& s) {
  const bool a_extension = isa::has(inst.op, isa::opflag::kAqRl);
  return s.x[inst.rs1] + (a_extension ? 0u : static_cast<uint32_t>(inst.imm));
}

// The cluster operation of a kAccess or kFence instruction. fld and fsd
// are two word accesses (the cores' data path is 32 bits; RV32D does not
// require them to be atomic, spec 12.3): `half` 0 the low word, 1 the high.
bus::Op memory_op(const isa::Inst& inst, const isa::ThreadState& s, unsigned half = 0);

class Hart final : public isa::ExecEnv {
 public:
  enum class Mode : uint8_t { kParked, kRunning, kWaitMemory, kSleeping };

  // mmio(write, addr, bytes, value): the shell's MMIO path.
  using MmioFn = std::function<bool(bool write, uint32_t addr, unsigned bytes, uint32_t* value)>;

  Hart(unsigned id, MmioFn mmio) : id_(id), mmio_(std::move(mmio)) {}

  unsigned id() const { return id_; }
  Mode mode = Mode::kParked;
  isa::ThreadState state;
  // The instruction being run and its memory address (x[rs1] + imm), for
  // the instruction trace; kept only while one is written.
  uint32_t issue_pc = 0, issue_addr = 0;
  uint64_t ready_at = 0;  // cycle of the next instruction (the hart's local time)

  // Executes `inst` with the result of its completed cluster operation
  // (fld: both words, the high one in bits 63:32).
  isa::ExecResult replay(const isa::Inst& inst, uint64_t result);
  // Executes `inst` directly: MMIO and CSRs work, global memory faults.
  // Inline: every instruction of a core runs through here.
  isa::ExecResult execute_direct(const isa::Inst& inst) {
    // The wide loads and stores and the 64-bit atomics move register groups
    // through the SM's load/store unit; the control cores' data path is 32 bits.
    if (isa::info(inst.op).group > 1) {
      isa::ExecResult r;
      r.trap = isa::Trap::kIllegalInstruction;
      return r;
    }
    return execute_counting(inst);
  }

  // HTM (docs/htm.md): the nesting depth, the register checkpoint of the
  // outermost tx.begin (with the pc after it) and its rd, and the undo-log
  // CSRs. fallback_locks: the engine's counter CSR txfallback adds to.
  unsigned tx_depth = 0;
  isa::ThreadState tx_checkpoint;
  uint8_t tx_rd = 0;
  uint32_t tx_log_base = 0, tx_log_size = 0;
  uint64_t* fallback_locks = nullptr;

  // The state of the core's vector unit (null: the core has none); its
  // CSRs (vstart, vl, vtype, vlenb) are read and written through Zicsr.
  isa::vec::VectorState* vector = nullptr;

  // Counts instructions that wrote their destination register (x or f) a
  // value other than the one the same instruction (the same pc) wrote the
  // last time it ran: the progress watchdog's sign of a core that computes
  // (ControlCluster::step_cores; null: not counted).
  uint64_t* register_changes = nullptr;

  // Statistics (instret reads `instructions`).
  uint64_t instructions = 0, loads = 0, stores = 0, atomics = 0, fences = 0, fetches = 0, mmio_accesses = 0;
  uint64_t memory_wait_cycles = 0, wfi_cycles = 0;
  uint64_t ff_instructions = 0;  // executed functionally (--fast-forward)

  isa::MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) override;
  isa::MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override;
  isa::MemStatus load_wide(uint32_t addr, unsigned bytes, uint32_t* words) override;
  isa::MemStatus store_wide(uint32_t addr, unsigned bytes, const uint32_t* words) override;
  isa::MemStatus load_reserved(uint32_t addr, uint32_t* value) override;
  isa::MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override;
  bool csr_read(uint16_t csr, uint32_t* value) override;
  bool csr_write(uint16_t csr, uint32_t value) override;

 private:
  // The executor's step, counted in register_changes when it wrote a new value.
  isa::ExecResult execute_counting(const isa::Inst& inst) {
    const uint32_t pc = state.pc;
    const isa::ExecResult r = isa::execute<true>(inst, state, *this);
    if (inst.dst != isa::kNoReg && register_changes)
      note_write(pc, inst.dst < isa::kFpRegBase ? state.x[inst.dst] : fold(state.fd(inst.dst - isa::kFpRegBase)));
    return r;
  }
  // What the instructions wrote last, by pc, in a direct-mapped table: a
  // spin loop's few instructions stay in it; an instruction evicted by
  // another counts as writing something new (which can only hide a spin,
  // never stop a computation).
  void note_write(uint32_t pc, uint32_t value) {
    LastWrite& w = last_writes_[(pc >> 2) % kLastWrites];
    if (w.pc != pc || w.value != value) {
      w = {pc, value};
      ++*register_changes;
    }
  }
  static uint32_t fold(uint64_t v) { return static_cast<uint32_t>(v ^ (v >> 32)); }
  struct LastWrite {
    uint32_t pc = 1;  // no instruction's (pcs are multiples of 4)
    uint32_t value = 0;
  };
  static constexpr unsigned kLastWrites = 4096;  // 16 KiB of code without a collision
  std::array<LastWrite, kLastWrites> last_writes_{};

  unsigned id_;
  MmioFn mmio_;
  std::optional<uint64_t> replay_result_;
};

// "parked", "running", "waiting for memory", "asleep in wfi".
const char* mode_name(Hart::Mode m);

}  // namespace tessera::cpu
