#include "cpu/hart.h"

namespace tessera::cpu {

using isa::MemStatus;
using isa::Op;

MemClass classify(const isa::Inst& inst) {
  switch (inst.op) {
    case Op::kLb:
    case Op::kLh:
    case Op::kLw:
    case Op::kLbu:
    case Op::kLhu:
    case Op::kFlw:
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
    case Op::kFsw:
    case Op::kLrW:
    case Op::kScW:
    case Op::kAmoswapW:
    case Op::kAmoaddW:
    case Op::kAmoxorW:
    case Op::kAmoandW:
    case Op::kAmoorW:
    case Op::kAmominW:
    case Op::kAmomaxW:
    case Op::kAmominuW:
    case Op::kAmomaxuW:
      return MemClass::kAccess;
    case Op::kFence:
    case Op::kFenceTso:
      return MemClass::kFence;
    case Op::kLdgB:
    case Op::kLdgH:
    case Op::kLdgW:
    case Op::kLdgBu:
    case Op::kLdgHu:
    case Op::kAtomFadd:
    case Op::kAtomInc:
    case Op::kAtomDec:
    case Op::kAtomCas:
    // SM instructions: illegal on the control cores (docs/firmware-abi.md).
    case Op::kLdV2:
    case Op::kLdV4:
    case Op::kFldV2:
    case Op::kFldV4:
    case Op::kStV2:
    case Op::kStV4:
    case Op::kFstV2:
    case Op::kFstV4:
    case Op::kAtomAdd64:
    case Op::kAtomExch64:
    case Op::kAtomCas64:
      return MemClass::kDirect;
    default:
      return MemClass::kNone;
  }
}

bus::Op memory_op(const isa::Inst& inst, const isa::ThreadState& s) {
  bus::Op op;
  op.addr = access_address(inst, s);
  op.size = inst.mem_bytes ? inst.mem_bytes : 4;
  switch (inst.op) {
    case Op::kFence:
    case Op::kFenceTso:
      op.kind = bus::OpKind::kFence;
      op.size = 4;
      break;
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
      op.kind = bus::OpKind::kStore;
      op.value = op.size == 4 ? s.x[inst.rs2] : s.x[inst.rs2] & ((1u << (8 * op.size)) - 1);
      break;
    case Op::kFsw:
      op.kind = bus::OpKind::kStore;
      op.value = s.f[inst.rs2];
      break;
    case Op::kLrW:
      op.kind = bus::OpKind::kLr;
      break;
    case Op::kScW:
      op.kind = bus::OpKind::kSc;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmoswapW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kSwap;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmoaddW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kAdd;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmoxorW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kXor;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmoandW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kAnd;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmoorW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kOr;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmominW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kMin;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmomaxW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kMax;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmominuW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kMinu;
      op.value = s.x[inst.rs2];
      break;
    case Op::kAmomaxuW:
      op.kind = bus::OpKind::kAmo;
      op.amo = bus::AmoKind::kMaxu;
      op.value = s.x[inst.rs2];
      break;
    default:
      op.kind = bus::OpKind::kLoad;
      break;
  }
  return op;
}

isa::ExecResult Hart::replay(const isa::Inst& inst, uint32_t result) {
  replay_result_ = result;
  const isa::ExecResult r = execute_counting(inst);
  replay_result_.reset();
  return r;
}

MemStatus Hart::load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) {
  if (read_only) return MemStatus::kAccessFault;  // ldg is an SM instruction
  if (replay_result_) {
    *value = *replay_result_;  // the loaded value, or an AMO's old value
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

MemStatus Hart::load_reserved(uint32_t, uint32_t* value) {
  if (!replay_result_) return MemStatus::kAccessFault;
  *value = *replay_result_;
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

}  // namespace tessera::cpu
