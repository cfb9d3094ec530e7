// The value an AMO writes. The arithmetic is the ISA executor's
// (isa::atomic_new_value), so a core's AMO through the cluster, inside a
// transaction or not, and one executed directly agree by construction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bus/op.h"
#include "isa/isa.h"

namespace tessera::bus {

// Indexed by AmoKind.
inline constexpr isa::Op kAmoOps[] = {isa::Op::kAmoswapW, isa::Op::kAmoaddW,  isa::Op::kAmoxorW,
                                      isa::Op::kAmoandW,  isa::Op::kAmoorW,   isa::Op::kAmominW,
                                      isa::Op::kAmomaxW,  isa::Op::kAmominuW, isa::Op::kAmomaxuW};
static_assert(sizeof(kAmoOps) / sizeof(kAmoOps[0]) == static_cast<size_t>(AmoKind::kMaxu) + 1,
              "one isa::Op per AmoKind");

inline uint32_t amo_result(AmoKind kind, uint32_t old, uint32_t operand) {
  return isa::atomic_new_value(kAmoOps[static_cast<size_t>(kind)], old, operand, 0);
}

}  // namespace tessera::bus
