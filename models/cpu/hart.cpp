#include "cpu/hart.h"

namespace tessera::cpu {

using isa::MemStatus;

MemClass classify(const isa::Inst& inst) {
  if ((inst.exec & isa::kExecMemory) == 0) return MemClass::kNone;
  if ((inst.exec & isa::kExecFence) != 0) return MemClass::kFence;
  // SM instructions: illegal on the control cores (docs/firmware-abi.md).
  return (inst.exec & isa::kExecSmOnly) != 0 ? MemClass::kDirect : MemClass::kAccess;
}

// The bus's AMO kinds are the A extension's, in the opcode table's order.
constexpr bool amo_kinds_match() {
  using isa::Mem;
  using K = bus::AmoKind;
  const Mem mem[] = {Mem::kAmoSwap, Mem::kAmoAdd, Mem::kAmoXor,  Mem::kAmoAnd, Mem::kAmoOr,
                     Mem::kAmoMin,  Mem::kAmoMax, Mem::kAmoMinu, Mem::kAmoMaxu};
  const K kind[] = {K::kSwap, K::kAdd, K::kXor, K::kAnd, K::kOr, K::kMin, K::kMax, K::kMinu, K::kMaxu};
  for (unsigned k = 0; k < 9; ++k)
    if (static_cast<unsigned>(mem[k]) - static_cast<unsigned>(Mem::kAmoSwap) != static_cast<unsigned>(kind[k]))
      return false;
  return true;
}
static_assert(amo_kinds_match());

bus::Op memory_op(const isa::Inst& inst, const isa::ThreadState& s, unsigned half) {
  const isa::OpInfo& o = isa::info(inst.op);
  bus::Op op;
  op.addr = access_address(inst, s);
  op.size = inst.mem_bytes ? inst.mem_bytes : 4;
  if (op.size == 8) {  // fld, fsd
    op.size = 4;
    op.addr += 4 * half;
  }
  switch (o.mem) {
    case isa::Mem::kFence:
      op.kind = bus::OpKind::kFence;
      op.size = 4;
      break;
    case isa::Mem::kStore: {
      const uint32_t v = isa::is_fp(o.rs2) ? static_cast<uint32_t>(s.fd(inst.rs2) >> (32 * half)) : s.x[inst.rs2];
      op.kind = bus::OpKind::kStore;
      op.value = op.size == 4 ? v : v & ((1u << (8 * op.size)) - 1);
      break;
    }
    case isa::Mem::kLr:
      op.kind = bus::OpKind::kLr;
      break;
    case isa::Mem::kSc:
      op.kind = bus::OpKind::kSc;
      op.value = s.x[inst.rs2];
      break;
    default:
      if (o.mem >= isa::Mem::kAmoSwap && o.mem <= isa::Mem::kAmoMaxu) {
        op.kind = bus::OpKind::kAmo;
        op.amo = static_cast<bus::AmoKind>(static_cast<unsigned>(o.mem) - static_cast<unsigned>(isa::Mem::kAmoSwap));
        op.value = s.x[inst.rs2];
      } else {
        op.kind = bus::OpKind::kLoad;
      }
      break;
  }
  return op;
}

isa::ExecResult Hart::replay(const isa::Inst& inst, uint64_t result) {
  replay_result_ = result;
  const isa::ExecResult r = execute_counting(inst);
  replay_result_.reset();
  return r;
}

MemStatus Hart::load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) {
  if (read_only) return MemStatus::kAccessFault;  // ldg is an SM instruction
  if (replay_result_) {
    *value = static_cast<uint32_t>(*replay_result_);  // the loaded value, or an AMO's old value
    return MemStatus::kOk;
  }
  if (is_mmio(addr)) {
    *value = 0;
    return mmio_(false, addr, bytes, value) ? MemStatus::kOk : MemStatus::kAccessFault;
  }
  return MemStatus::kAccessFault;
}

MemStatus Hart::store(uint32_t addr, unsigned bytes, uint32_t value) {
  if (replay_result_) return MemStatus::kOk;  // the cluster performed it
  if (is_mmio(addr)) return mmio_(true, addr, bytes, &value) ? MemStatus::kOk : MemStatus::kAccessFault;
  return MemStatus::kAccessFault;
}

MemStatus Hart::load_wide(uint32_t addr, unsigned bytes, uint32_t* words) {
  if (!replay_result_) return ExecEnv::load_wide(addr, bytes, words);  // MMIO, word by word
  words[0] = static_cast<uint32_t>(*replay_result_);
  words[1] = static_cast<uint32_t>(*replay_result_ >> 32);
  return MemStatus::kOk;
}

MemStatus Hart::store_wide(uint32_t addr, unsigned bytes, const uint32_t* words) {
  if (replay_result_) return MemStatus::kOk;  // the cluster performed both words
  return ExecEnv::store_wide(addr, bytes, words);
}

MemStatus Hart::load_reserved(uint32_t, uint32_t* value) {
  if (!replay_result_) return MemStatus::kAccessFault;
  *value = static_cast<uint32_t>(*replay_result_);
  return MemStatus::kOk;
}

MemStatus Hart::store_conditional(uint32_t, uint32_t, bool* success) {
  if (!replay_result_) return MemStatus::kAccessFault;
  *success = *replay_result_ == 0;  // the cluster returns 0 for success (RISC-V sc.w rd)
  return MemStatus::kOk;
}

bool Hart::csr_read(uint16_t csr, uint32_t* value) {
  switch (csr) {
    case isa::csr::kTxLogBase:
      *value = tx_log_base;
      return true;
    case isa::csr::kTxLogSize:
      *value = tx_log_size;
      return true;
    case isa::csr::kTxFallback:
      *value = fallback_locks ? static_cast<uint32_t>(*fallback_locks) : 0;
      return true;
    default:
      break;
  }
  if (vector && vector->csr_read(csr, value)) return true;
  return isa::csr::read_counter(csr, ready_at, instructions, id_, value);
}

bool Hart::csr_write(uint16_t csr, uint32_t value) {
  switch (csr) {
    case isa::csr::kTxLogBase:
      tx_log_base = value;
      return true;
    case isa::csr::kTxLogSize:
      tx_log_size = value;
      return true;
    case isa::csr::kTxFallback:
      if (fallback_locks) ++*fallback_locks;
      return true;
    default:
      return vector && vector->csr_write(csr, value);
  }
}

const char* mode_name(Hart::Mode m) {
  switch (m) {
    case Hart::Mode::kParked:
      return "parked";
    case Hart::Mode::kRunning:
      return "running";
    case Hart::Mode::kWaitMemory:
      return "waiting for memory";
    case Hart::Mode::kSleeping:
      return "asleep in wfi";
  }
  return "?";
}

}  // namespace tessera::cpu
