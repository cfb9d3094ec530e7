// A processor operation on the cluster: what a core's data or fetch port
// asks its cache controller for.
#pragma once

#include <cstdint>
#include <functional>

namespace tessera::bus {

enum class OpKind : uint8_t { kLoad, kStore, kAmo, kLr, kSc, kFence, kIfetch };
// RISC-V A-extension AMOs (RV32: 32-bit).
enum class AmoKind : uint8_t { kSwap, kAdd, kXor, kAnd, kOr, kMin, kMax, kMinu, kMaxu };

struct Op {
  OpKind kind = OpKind::kLoad;
  uint64_t addr = 0;
  uint32_t size = 4;   // 1, 2 or 4 bytes, naturally aligned; 4 for AMO/LR/SC
  uint32_t value = 0;  // store data / AMO operand / SC data
  AmoKind amo = AmoKind::kAdd;
};

// Completion: the loaded value (zero-extended), the old value of an AMO, 0/1
// for SC success/failure (RISC-V), 0 for stores and fences.
using DoneFn = std::function<void(uint32_t value)>;

}  // namespace tessera::bus
