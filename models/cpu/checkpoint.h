// Checkpoints of the architectural state at the fast-forward switch point
// (docs/fast-forward.md): every control core's registers and cluster MMIO
// state, and global memory (its non-zero pages, zlib-compressed), with a
// header naming the program (and a hash of its ELF), the platform and the
// memory size. Pure C++ (no SystemC): tests decode checkpoints with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa.h"

namespace tessera::cpu {

// One core: mode (Hart::Mode as a number), registers, the HTM log CSRs.
struct HartSnapshot {
  uint32_t mode = 0;
  isa::ThreadState state;
  uint32_t tx_log_base = 0, tx_log_size = 0;
};

// The cluster: every core and the HART_START registers.
struct ClusterSnapshot {
  std::vector<HartSnapshot> harts;
  uint32_t start_pc = 0, start_arg = 0, start_fn = 0, start_sp = 0;
  // Device registers written before the switch (MMIO offsets from 0x100:
  // the dispatcher's kernel, grid, arguments...), the last value of each,
  // in the order first written: a restore writes them again.
  static constexpr uint32_t kFirstDeviceRegister = 0x100;  // cpu::kDeviceRegisters
  // The rtl_devices' register windows begin here (cpu::kMmioSystemSize):
  // fast-forward switches before their first access, so no checkpoint
  // holds a write to them.
  static constexpr uint32_t kDeviceWindows = 0x1000;
  std::vector<std::pair<uint32_t, uint32_t>> device_writes;
};

struct Checkpoint {
  // 2: a checksum after the end marker; 3: 64-bit f registers (the D extension)
  static constexpr uint32_t kVersion = 3;
  static constexpr uint32_t kPageBytes = 1u << 16;
  uint32_t version = kVersion;
  std::string program;  // the ELF's path when written
  uint64_t elf_hash = 0;
  std::string platform;
  uint32_t memory_base = 0;
  uint64_t memory_size = 0;
  std::string reason;  // why the run switched: roi-begin, launch, tx, wfi
  uint32_t switch_pc = 0;
  ClusterSnapshot cluster;
  struct Page {
    uint32_t addr = 0;
    std::vector<uint8_t> bytes;  // kPageBytes
  };
  std::vector<Page> pages;  // the non-zero pages, by address
};

// FNV-1a (64 bits) of a file's bytes; ConfigError when it cannot be read.
uint64_t file_hash(const std::string& path);
uint64_t bytes_hash(const std::string& bytes);

// The file's bytes (pages compressed), then the FNV-1a hash of all of them.
std::string encode_checkpoint(const Checkpoint& c);
// ConfigError naming `path` and what is wrong (not a checkpoint, another
// version, a checksum that does not match, truncated, a memory larger than
// `memory_limit` bytes, corrupt or repeated pages), found before any page is
// decoded where it can be: what it allocates is bounded by memory_limit.
Checkpoint decode_checkpoint(const std::string& bytes, const std::string& path,
                             uint64_t memory_limit = uint64_t{1} << 32);
// Reads a regular file only (not a device, FIFO or directory).
Checkpoint read_checkpoint(const std::string& path, uint64_t memory_limit = uint64_t{1} << 32);

}  // namespace tessera::cpu
