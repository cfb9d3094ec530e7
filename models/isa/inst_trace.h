// The instruction trace (`tessera run --trace-insts FILE`): one line per
// retired instruction of a control core, one per warp instruction of an SM
// (with its active mask):
//
//   CYCLE UNIT PC FUNCTION+OFFSET (FILE:LINE) | DISASSEMBLY [| REG=VALUE] [| addr=ADDRESS]
//
// CYCLE counts the unit's own clock. The register and address of a warp
// instruction are its lowest active lane's. Filters (all must hold): unit
// name globs, a cycle window, a kernel name (SM units only, which then
// leave the control cores out) and a PC range. A unit the globs leave out
// is decided once, when it registers; the rest costs two compares per
// instruction (docs/debugging.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "isa/elf_loader.h"
#include "isa/isa.h"

namespace tessera::isa {

struct InstTraceFilter {
  std::vector<std::string> units;  // fnmatch globs on unit names; empty: every unit
  uint64_t first_cycle = 0, last_cycle = std::numeric_limits<uint64_t>::max();
  std::string kernel;  // a kernel's name (as the ELF or demangled); empty: any
  uint32_t pc_lo = 0, pc_hi = std::numeric_limits<uint32_t>::max();  // inclusive

  // Parses "A:B" cycle windows and "LO:HI" PC ranges (either end may be
  // empty; PCs in hex with 0x, or a function name for its whole extent).
  // Throws std::invalid_argument naming the option and what is wrong.
  void set_cycles(const std::string& text);
  void set_pcs(const std::string& text, const Symbolizer& names);
  // Whether a kernel's name (as the ELF has it) is the one `kernel` names:
  // the same, demangled, or demangled without its parameters.
  bool kernel_matches(const std::string& name) const;
};

class InstTrace {
 public:
  // Writes to `out` (the caller's, open while this lives; fully buffered
  // from here on).
  InstTrace(std::FILE* out, InstTraceFilter filter, const ElfImage& image);

  // A unit's handle; kOff when the globs leave it out. `sm` units obey the
  // kernel filter.
  static constexpr int kOff = -1;
  int add_unit(const std::string& name, bool sm);
  // The kernel now running (its name): the kernel filter's state.
  void set_kernel(const std::string& name);

  // Whether an instruction of `unit` at pc and cycle is traced.
  bool wants(int unit, uint64_t cycle, uint32_t pc) const {
    return unit != kOff && cycle >= filter_.first_cycle && cycle <= filter_.last_cycle && pc >= filter_.pc_lo &&
           pc <= filter_.pc_hi && (!units_[static_cast<size_t>(unit)].sm || kernel_on_);
  }
  // One line. reg: the value the instruction left in its destination
  // (ignored when it has none); addr: its memory address (loads, stores,
  // atomics); mask: a warp instruction's active lanes (0 on a core);
  // disassembly: the text of an instruction the scalar decoder does not
  // know (a vector instruction), else null.
  void record(int unit, uint64_t cycle, uint32_t pc, const Inst& inst, uint64_t reg, uint32_t addr, uint32_t mask = 0,
              const std::string* disassembly = nullptr);

  uint64_t lines() const { return lines_; }

 private:
  struct Unit {
    std::string name;
    bool sm;
  };
  const std::string& text_of(uint32_t pc, const Inst& inst, const std::string* disassembly);

  InstTraceFilter filter_;
  const ElfImage& image_;
  std::FILE* out_ = nullptr;
  std::vector<Unit> units_;
  bool kernel_on_ = true;
  uint64_t lines_ = 0;
  std::unordered_map<uint32_t, std::string> text_;  // "pc name | disassembly", by pc
};

}  // namespace tessera::isa
