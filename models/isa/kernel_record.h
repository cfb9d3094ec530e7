// The kernel record (docs/firmware-abi.md, "Kernel record"): per kernel of a
// linked firmware ELF, the resources its call graph uses -- registers per
// thread, the static shared window, the stack -- and the limits given in the
// source (__launch_bounds__, TESSERA_MAXRREG). tessera-kinfo computes it from
// the machine code and tessera-cc stores it as JSON in the non-allocated
// section .tessera.kernels; the simulator's ELF loader reads it back.
// No SystemC here.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::isa {

// 32-bit registers a thread can use: x0..x31, and f0..f31 counted twice, as
// the 64-bit registers of the D extension (a double takes a register pair on
// a GPU).
inline constexpr unsigned kRegistersPerThread = 96;
// What a kernel that makes an indirect call is charged: one register per x
// and f register, the register budget of a call through the ABI (a callee
// holding doubles in every f register at once is not assumed), so that a
// kernel calling printf still launches 1024-thread blocks.
inline constexpr unsigned kIndirectCallRegisters = 64;
// The shared window (docs/firmware-abi.md, "Memory map").
inline constexpr uint32_t kSharedWindowBase = 0x20000000;
// Static shared windows start at a multiple of this many bytes, so a
// variable's bank (address / 4 mod 32) is the same in every kernel.
inline constexpr uint32_t kSharedWindowAlign = 128;

struct KernelRecord {
  std::string name;
  uint32_t entry = 0;
  // Distinct x and f registers of the call graph (x0 not counted; an f
  // register that holds a double anywhere counts twice), or
  // at least kIndirectCallRegisters when the graph makes an indirect call.
  unsigned registers_used = 0;
  // What a block is charged per thread: registers_used, capped by
  // register_limit when one is given.
  unsigned registers = 0;
  unsigned register_limit = 0;  // 0: none
  // Source overrides; 0 when not given.
  unsigned max_threads = 0, min_blocks = 0, maxrreg = 0;
  // Static shared window: [shared_lo, shared_lo + shared_bytes).
  uint32_t shared_lo = kSharedWindowBase, shared_bytes = 0;
  uint32_t stack_bytes = 0;
  // D-extension instructions in the call graph's code (static count): the
  // FP64 unit's work and double loads and stores.
  unsigned fp64_instructions = 0;
  // Why a figure is conservative (indirect call, recursion, dynamic stack,
  // no relocations); printed by tessera-cc -v.
  std::vector<std::string> notes;
};

struct KernelTable {
  std::vector<KernelRecord> kernels;
  const KernelRecord* find(uint32_t entry) const {
    for (const KernelRecord& k : kernels)
      if (k.entry == entry) return &k;
    return nullptr;
  }
};

class KernelRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The register limit __launch_bounds__(max_threads, min_blocks) implies on an
// SM of `sm_registers` registers: floor(sm_registers / (min_blocks * threads
// rounded up to a warp)), at most kRegistersPerThread; 0 when max_threads is 0.
unsigned launch_bounds_register_limit(unsigned max_threads, unsigned min_blocks, unsigned sm_registers);

// Analyses a linked firmware ELF (linked with --emit-relocs and
// --unique=.text.tessera.kres.*, as tessera-cc links). Kernels are the
// functions listed in __patchable_function_entries (TESSERA_KERNEL puts them
// there). Throws KernelRecordError naming the file and what is wrong.
KernelTable analyse_kernels(const std::string& elf_path, unsigned sm_registers = 65536);

// JSON text of the record and back. from_json throws KernelRecordError.
std::string kernels_to_json(const KernelTable& table);
KernelTable kernels_from_json(const std::string& text);

// "kernel 'sgemm': 23 registers, 8192 bytes static shared, 48 bytes stack"
std::string describe(const KernelRecord& k);

}  // namespace tessera::isa
