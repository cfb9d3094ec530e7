// SM configuration (docs/architecture.md, "The SM"; defaults follow Maxwell, compute
// capability 5.x). Keys are shared by every SM of a chip: "sm.<name>".
#pragma once

#include <cstdint>
#include <string>

#include "rtl/common/lockstep.h"
#include "sim/config.h"
#include "sm/l1_cache.h"
#include "sm/shared_banks.h"

namespace tessera::sm {

inline constexpr unsigned kWarpSize = 32;
inline constexpr uint32_t kSharedWindow = 0x20000000;
inline constexpr uint32_t kLocalWindow = 0x30000000;
// Accesses this far below the local window are a thread's stack overflowing
// its sm.local_bytes: reported as such rather than as an unmapped address.
inline constexpr uint32_t kLocalStackGuardBytes = 0x10000;
// How far a load or store reaches from its base register (12-bit signed offset).
inline constexpr uint32_t kSpOffsetReach = 2048;

struct SmParams {
  unsigned partitions;
  unsigned sp_lanes, sfu_lanes, ldst_lanes, fp64_lanes;  // per partition
  unsigned alu_latency, idiv_latency, sfu_latency, fp64_latency, fp64_div_latency;
  unsigned shared_latency, local_latency;
  bool dual_issue;
  bool skip_idle;
  std::string scheduler;
  unsigned two_level_active;
  unsigned max_warps, max_threads, max_blocks, max_threads_per_block;
  unsigned registers, register_granule, regs_per_thread_default;
  unsigned shared_bytes, local_bytes;
  unsigned shared_banks, shared_bank_bytes;
  unsigned shared_atomic_latency, shared_atomic_cycles;
  // sm.shared_conflict_cycles: what an n-way bank conflict adds to a load's latency.
  ConflictCurve shared_conflict;
  rtl::Impl shared_impl;                     // the bank unit: C++ model, Verilated RTL, or both compared
  std::string shared_impl_name = "shipped";  // the RTL implementation (sm.shared_impl=rtl:NAME)
  rtl::RtlOptions rtl;                       // the rtl.* keys
  L1Params l1;                               // the l1.* keys: the L1 declares them
  L1Params constant;                         // the constant cache (sm.const_cache_*), one per SM
  unsigned mem_queue;                        // outstanding sector requests the LD/ST unit may queue

  static SmParams from_config(sim::Config& cfg);
};

}  // namespace tessera::sm
