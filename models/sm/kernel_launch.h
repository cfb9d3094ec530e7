// A kernel launch as the block dispatcher hands it to the SMs.
#pragma once

#include <cstdint>

#include "isa/kernel_record.h"

namespace tessera::sm {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  // x*y*z, saturating: three guest-written 32-bit values can exceed 2^64,
  // and a product that wrapped to something small would pass every check.
  uint64_t count() const {
    uint64_t n = 0;
    if (__builtin_mul_overflow(uint64_t{x} * y, uint64_t{z}, &n)) return UINT64_MAX;
    return n;
  }
};

// Grid limits of compute capability 5.x (CUDA C Programming Guide, table
// "Technical specifications per compute capability"): at most 2^31-1 blocks
// along x, 65535 along y and z.
inline constexpr uint32_t kMaxGridX = 0x7FFFFFFF, kMaxGridYZ = 65535;

struct KernelLaunch {
  uint32_t start_pc = 0;  // the runtime trampoline
  uint32_t kernel = 0;    // passed in a1
  uint32_t args = 0;      // passed in a0
  Dim3 grid, block;
  uint32_t shared_bytes = 0;     // per block: the static window, then the dynamic area
  uint32_t regs_per_thread = 0;  // for occupancy
  uint32_t id = 0;               // launch number
  // Shared memory as threads address it (docs/firmware-abi.md, "Memory
  // map"): the static window [static_lo, static_lo + static_bytes) is the
  // block's bytes [0, static_bytes); the dynamic area [dynamic_at,
  // dynamic_at + dynamic_bytes) is its bytes [dynamic_offset, ...).
  uint32_t static_lo = isa::kSharedWindowBase, static_bytes = 0;
  uint32_t dynamic_at = isa::kSharedWindowBase, dynamic_bytes = 0, dynamic_offset = 0;
  const isa::KernelRecord* record = nullptr;  // the kernel's record, when the ELF has one

  // The block's byte offset of a shared access of `bytes` at `addr`, or false
  // when it is outside both segments.
  bool shared_offset(uint32_t addr, unsigned bytes, uint32_t* offset) const {
    if (addr - static_lo < static_bytes && addr - static_lo + bytes <= static_bytes) {
      *offset = addr - static_lo;
      return true;
    }
    if (addr - dynamic_at < dynamic_bytes && addr - dynamic_at + bytes <= dynamic_bytes) {
      *offset = dynamic_offset + (addr - dynamic_at);
      return true;
    }
    return false;
  }
};

// Resources one block takes on an SM.
// 64-bit: the launch registers are guest-written 32-bit values whose
// products must not wrap around into something that fits.
struct BlockFootprint {
  uint64_t threads, warps, registers, shared_bytes;
};

inline BlockFootprint footprint(const KernelLaunch& k, uint32_t warp_size, uint32_t register_granule) {
  const uint64_t threads = k.block.count();
  const uint64_t warps = threads / warp_size + (threads % warp_size != 0);  // no wrap at UINT64_MAX
  // Registers are allocated per warp, rounded up to the allocation granule.
  const uint64_t per_warp =
      (uint64_t{k.regs_per_thread} * warp_size + register_granule - 1) / register_granule * register_granule;
  return BlockFootprint{threads, warps, per_warp * warps, k.shared_bytes};
}

}  // namespace tessera::sm
