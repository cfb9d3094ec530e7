#include "sm/sm_params.h"

#include <stdexcept>

#include "rtl/common/impl_registry.h"
#include "sm/shared_bank_pins.h"
#include "sm/warp_scheduler.h"

namespace tessera::sm {

SmParams SmParams::from_config(sim::Config& cfg) {
  SmParams p{};
  p.partitions = static_cast<unsigned>(cfg.get_int("sm.partitions", 4, 1, 8, "Warp schedulers (partitions) per SM"));
  p.sp_lanes = static_cast<unsigned>(cfg.get_int("sm.sp_lanes", 32, 1, 32, "SP (ALU/FMA) lanes per partition"));
  p.sfu_lanes = static_cast<unsigned>(cfg.get_int("sm.sfu_lanes", 8, 1, 32, "SFU lanes per partition"));
  p.ldst_lanes = static_cast<unsigned>(cfg.get_int("sm.ldst_lanes", 8, 1, 32, "LD/ST lanes per partition"));
  // Maxwell (compute capability 5.x) has 4 FP64 results per clock per SM
  // against 128 FP32 (CUDA C++ Programming Guide, "Arithmetic Instructions",
  // table "Throughput of Native Arithmetic Instructions"; conversions from
  // and to 64-bit types likewise 4): one lane per partition, 1/32 of sp_lanes.
  p.fp64_lanes = static_cast<unsigned>(cfg.get_int(
      "sm.fp64_lanes", 1, 1, 32, "FP64 lanes per partition (D extension arithmetic, comparisons, conversions)"));
  p.alu_latency = static_cast<unsigned>(
      cfg.get_int("sm.alu_latency", 6, 1, 64, "Latency of SP instructions (FMA, ALU, branch link, CSR read), cycles"));
  p.idiv_latency = static_cast<unsigned>(
      cfg.get_int("sm.idiv_latency", 24, 1, 256, "Latency of integer divide/remainder on the SP lanes, cycles"));
  p.sfu_latency = static_cast<unsigned>(
      cfg.get_int("sm.sfu_latency", 12, 1, 256,
                  "Latency of SFU instructions (sin, cos, ex2, lg2, rcp, rsqrt, fdiv, fsqrt), cycles"));
  // GPGPU-Sim's double-precision latencies (-ptx_opcode_latency_dp: 8 for
  // add, multiply and multiply-add, 330 for divide in its Maxwell/Pascal
  // configurations); the divide also stands for the square root.
  p.fp64_latency = static_cast<unsigned>(cfg.get_int(
      "sm.fp64_latency", 8, 1, 256, "Latency of FP64 add, multiply, FMA, compare, min/max and conversions, cycles"));
  p.fp64_div_latency = static_cast<unsigned>(
      cfg.get_int("sm.fp64_div_latency", 330, 1, 4096, "Latency of FP64 divide and square root, cycles"));
  p.shared_latency = static_cast<unsigned>(
      cfg.get_int("sm.shared_latency", 28, 1, 1024, "Latency of a conflict-free shared-memory load, cycles"));
  p.local_latency = static_cast<unsigned>(
      cfg.get_int("sm.local_latency", 30, 1, 1024, "Latency of a local-memory (per-thread stack) access, cycles"));
  p.dual_issue = cfg.get_bool("sm.dual_issue", true,
                              "Issue a second independent instruction of the same warp to another unit in one cycle");
  p.skip_idle = cfg.get_bool("sm.skip_idle", true,
                             "Sleep through cycles in which no warp can issue (false: tick every cycle, to compare)");
  p.scheduler = cfg.get_enum("sm.scheduler", "gto", scheduler_names(), "Warp scheduling policy");
  p.two_level_active = static_cast<unsigned>(
      cfg.get_int("sm.two_level_active", 4, 1, 64, "Active-set size of the two-level scheduler, warps per partition"));
  p.max_warps = static_cast<unsigned>(cfg.get_int("sm.max_warps", 64, 1, 64, "Resident warps per SM"));
  p.max_threads = static_cast<unsigned>(cfg.get_int("sm.max_threads", 2048, 32, 2048, "Resident threads per SM"));
  p.max_blocks = static_cast<unsigned>(cfg.get_int("sm.max_blocks", 32, 1, 64, "Resident thread blocks per SM"));
  p.max_threads_per_block =
      static_cast<unsigned>(cfg.get_int("sm.max_threads_per_block", 1024, 32, 1024, "Threads per block limit"));
  p.registers = static_cast<unsigned>(
      cfg.get_int("sm.registers", 65536, 1024, 1 << 20, "32-bit registers in the SM's register file"));
  p.register_granule = static_cast<unsigned>(
      cfg.get_int("sm.register_granule", 256, 1, 4096, "Register allocation granule per warp, registers"));
  p.regs_per_thread_default =
      static_cast<unsigned>(cfg.get_int("sm.regs_per_thread_default", 64, 1, 255,
                                        "Registers per thread charged when a launch does not say (x0-31 + f0-31)"));
  p.shared_bytes =
      static_cast<unsigned>(cfg.get_int("sm.shared_bytes", 65536, 0, 1 << 20, "Shared memory per SM, bytes"));
  p.local_bytes = static_cast<unsigned>(
      cfg.get_int("sm.local_bytes", 4096, 256, 1 << 20, "Local memory (stack) per thread, bytes"));
  p.mem_queue = static_cast<unsigned>(
      cfg.get_int("sm.mem_queue", 64, 1, 4096, "Sector requests the LD/ST unit can hold before it stalls issue"));
  p.shared_banks = static_cast<unsigned>(cfg.get_int("sm.shared_banks", 32, 1, 64, "Shared-memory banks"));
  p.shared_bank_bytes = static_cast<unsigned>(std::stoi(cfg.get_enum(
      "sm.shared_bank_bytes", "4", {"4", "8"}, "Shared-memory bank width, bytes (one word per bank per pass)")));
  p.shared_atomic_latency = static_cast<unsigned>(cfg.get_int(
      "sm.shared_atomic_latency", 36, 1, 1024, "Latency of a shared-memory atomic without conflicts, cycles"));
  p.shared_atomic_cycles = static_cast<unsigned>(
      cfg.get_int("sm.shared_atomic_cycles", 2, 1, 64, "Cycles a bank's atomic ALU spends on one read-modify-write"));
  const std::string conflict = cfg.get_string(
      "sm.shared_conflict_cycles", kDefaultConflictCycles,
      "Cycles a 2, 4, 8, 16 and 32-way bank conflict adds to a shared-memory load's latency (linear between)");
  try {
    p.shared_conflict = parse_conflict_curve(conflict);
  } catch (const std::invalid_argument& e) {
    throw sim::ConfigError(std::string("sm.shared_conflict_cycles: ") + e.what());
  }
  const rtl::ImplChoice shared_impl = rtl::read_impl_choice(
      cfg, "sm.shared_impl",
      "Shared-memory bank unit: the C++ model, the Verilated RTL block, or both compared every cycle (docs/cosim.md)");
  p.shared_impl = shared_impl.mode;
  p.shared_impl_name = shared_impl.name;
  p.rtl = rtl::RtlOptions::from_config(cfg);
  p.l1 = L1Params::from_config(cfg);
  // Maxwell's constant cache: 2 KiB per SM at the first level (Mei and Chu,
  // "Dissecting GPU Memory Hierarchy through Microbenchmarking", IEEE TPDS
  // 2017), one address per cycle: a warp's request is split into as many
  // requests as it has distinct addresses (CUDA C Programming Guide,
  // "Compute Capability 5.x", constant memory).
  p.constant.bytes = static_cast<unsigned>(
      cfg.get_int("sm.const_cache_bytes", 2048, 128, 1 << 20, "Constant cache per SM (__constant__ data), bytes"));
  p.constant.ways = static_cast<unsigned>(cfg.get_int("sm.const_cache_ways", 4, 1, 64, "Constant cache associativity"));
  p.constant.hit_latency = static_cast<unsigned>(
      cfg.get_int("sm.const_hit_latency", 28, 1, 10000,
                  "Cycles from issue to result for a constant load whose one address hits in the constant cache"));
  p.constant.halves = 1;
  p.constant.mshrs = p.l1.mshrs;
  p.constant.cache_global_loads = true;
  mem::SectorGeometry{p.constant.bytes, p.constant.ways, mem::kLineBytes}.validate("sm.const_cache_bytes",
                                                                                   "sm.const_cache_ways");
  if (p.max_threads > p.max_warps * kWarpSize)
    throw sim::ConfigError("sm.max_threads: " + std::to_string(p.max_threads) +
                           " threads need more than sm.max_warps=" + std::to_string(p.max_warps) + " warps");
  if (p.local_bytes % 16 != 0)
    throw sim::ConfigError("sm.local_bytes: must be a multiple of 16 (stack alignment), got " +
                           std::to_string(p.local_bytes));
  if (p.shared_impl != rtl::Impl::kModel) check_shared_rtl_params(p);
  return p;
}

}  // namespace tessera::sm
