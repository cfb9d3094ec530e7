// A processor operation on the cluster: what a core's data or fetch port
// asks its cache controller for.
#pragma once

#include <cstdint>
#include <functional>

namespace tessera::bus {

// kTx*: the core's transaction control (bus/htm.h): begin (addr: undo-log
// base, value: its size in bytes), commit (completes with 0, or 1 when the
// transaction had aborted), abort (value: the abort status) and rollback
// (completes once the aborted transaction's state is gone: its core then
// restores its register checkpoint).
enum class OpKind : uint8_t {
  kLoad,
  kStore,
  kAmo,
  kLr,
  kSc,
  kFence,
  kIfetch,
  kTxBegin,
  kTxCommit,
  kTxAbort,
  kTxRollback
};
// RISC-V A-extension AMOs (RV32: 32-bit).
enum class AmoKind : uint8_t { kSwap, kAdd, kXor, kAnd, kOr, kMin, kMax, kMinu, kMaxu };

struct Op {
  OpKind kind = OpKind::kLoad;
  uint64_t addr = 0;
  uint32_t size = 4;   // 1, 2 or 4 bytes, naturally aligned; 4 for AMO/LR/SC
  uint32_t value = 0;  // store data / AMO operand / SC data
  AmoKind amo = AmoKind::kAdd;
  bool tx = false;      // issued inside a transaction (set by the cluster)
  bool intent = false;  // a commit's acquisition: write permission, no data
};

inline bool is_tx_control(OpKind k) { return k >= OpKind::kTxBegin; }

// Completion: the loaded value (zero-extended), the old value of an AMO, 0/1
// for SC success/failure (RISC-V), 0 for stores and fences.
using DoneFn = std::function<void(uint32_t value)>;

}  // namespace tessera::bus
