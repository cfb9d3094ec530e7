// Loads a 32-bit RISC-V executable (the firmware ELF) with libelf.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/kernel_record.h"
#include "isa/symbolizer.h"

namespace tessera::isa {

// A PT_LOAD segment: bytes holds the file contents (p_filesz); the rest up to
// mem_size (p_memsz) is zero (.bss).
struct ElfSegment {
  uint32_t addr = 0;
  std::vector<uint8_t> bytes;
  uint32_t mem_size = 0;
  bool executable = false;
};

struct ElfImage {
  uint32_t entry = 0;
  std::vector<ElfSegment> segments;
  // Function, object and untyped global symbols of .symtab, by name.
  std::map<std::string, uint32_t> symbols;
  // The kernel record (section .tessera.kernels), when the ELF has one.
  bool has_kernel_record = false;
  KernelTable kernels;

  // The NUL-terminated string at addr in the loaded image (as the ELF file
  // has it: for constant data such as string literals), at most max_bytes
  // long; nullopt when addr is outside the segments or no NUL ends it.
  std::optional<std::string> string_at(uint32_t addr, size_t max_bytes = 1024) const;

  // Functions and source lines of code addresses (load_elf sets it).
  std::shared_ptr<const Symbolizer> symbolizer;
  const Symbolizer& code_names() const {
    static const Symbolizer none;
    return symbolizer ? *symbolizer : none;
  }
  // "0x8000011c in main+0x1c (lock.c:42)", or the bare address.
  std::string format_pc(uint32_t pc) const { return code_names().format_pc(pc); }

  std::optional<uint32_t> symbol(const std::string& name) const {
    const auto it = symbols.find(name);
    if (it == symbols.end()) return std::nullopt;
    return it->second;
  }
};

// Thrown with a message naming the file and what is wrong with it.
class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ElfImage load_elf(const std::string& path);

}  // namespace tessera::isa
