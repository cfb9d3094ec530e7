// Names for code addresses: the function a PC is in (from the ELF's
// .symtab) and, when the ELF has DWARF line information (tessera-cc builds
// with -g), the source file and line (read with elfutils' libdw). Every
// message, trace and report that shows a PC goes through here, so a user
// reads `main+0x1c (lock.c:42)` instead of running addr2line.
//
// The line table is read on the first question about a line, not at load:
// a run that never reports a PC does not pay for it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tessera::isa {

// A function symbol: [addr, addr + size). Symbols of size 0 (assembly
// labels such as _start) extend to the next symbol.
struct FunctionSymbol {
  std::string name;  // as the ELF has it
  uint32_t addr = 0;
  uint32_t size = 0;
  std::string display = {};  // demangled (the Symbolizer fills it in)
};

// A row of the line table: the code from addr up to the next row's address
// came from file:line. An end row closes a sequence (no code after it).
struct LineRow {
  uint32_t addr = 0;
  uint32_t file = 0;  // index into files
  uint32_t line = 0;
  bool end = false;
};

// Addresses [begin, end) that hold code (the executable segments).
struct CodeRange {
  uint32_t begin = 0;
  uint64_t end = 0;
};

// Code a compiler inlined: [begin, end) came from `name` (demangled), whose call sits
// at call_file:call_line of the code around it; depth 1 is inlined straight
// into a function, 2 into an inlined function, and so on.
struct InlineRange {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t depth = 0;
  uint32_t call_file = 0;  // index into files
  uint32_t call_line = 0;
  std::string name;
};

struct SourceLine {
  std::string file;  // as the compiler recorded it (usually absolute)
  uint32_t line = 0;
  std::string base_name() const;  // file without its directories
};

class Symbolizer {
 public:
  // Knows nothing: describe() is empty, format_pc() the bare address.
  Symbolizer() = default;
  // functions: the ELF's function symbols (any order). elf_path: the file
  // whose DWARF line table is read on first use ("" for none), for the
  // code in `code`.
  Symbolizer(std::vector<FunctionSymbol> functions, std::string elf_path, std::vector<CodeRange> code);
  // For tests and tools with a line table at hand.
  Symbolizer(std::vector<FunctionSymbol> functions, std::vector<std::string> files, std::vector<LineRow> rows,
             std::vector<InlineRange> inlined = {});

  // The function pc is in, and pc's offset into it.
  const FunctionSymbol* function_at(uint32_t pc) const;
  std::optional<SourceLine> line_at(uint32_t pc) const;
  // When pc is in inlined code: the outermost inlined function and the line
  // of the function's own code that calls it (what the user wrote there).
  struct InlinedAt {
    std::string name;
    SourceLine call;
  };
  std::optional<InlinedAt> inlined_at(uint32_t pc) const;
  std::optional<uint32_t> address_of(const std::string& function) const;

  // "main+0x1c (lock.c:42)", "memcpy+0x8" without line information,
  // "" when nothing names pc. Names are demangled; in inlined code the
  // caller's line comes first: "k(int*)+0x1c (div.cu:5; __syncthreads at
  // tessera.h:233)".
  std::string describe(uint32_t pc) const;
  // "0x8000011c in main+0x1c (lock.c:42)", or "0x8000011c" alone.
  std::string format_pc(uint32_t pc) const;
  // Whether the ELF has line information (reads it if not yet read).
  bool has_lines() const;

 private:
  void load_lines() const;
  void set_lines(std::vector<std::string> files, std::vector<LineRow> rows, std::vector<InlineRange> inlined) const;

  std::vector<FunctionSymbol> functions_;  // by address; sizes resolved
  std::string elf_path_;
  std::vector<CodeRange> code_;
  mutable std::once_flag lines_once_;
  mutable std::vector<std::string> files_;
  mutable std::vector<LineRow> rows_;         // by address
  mutable std::vector<InlineRange> inlined_;  // by begin
};

// Reads the DWARF line table of the ELF file at path with libdw into files
// and rows (sorted by address; rows outside `code`, which the linker left
// for discarded code at address 0 and up, dropped), and the ranges of
// inlined code into `inlined`. Returns "" or, when
// the file has no readable line table, why: messages then name functions
// only.
std::string read_line_table(const std::string& path, const std::vector<CodeRange>& code,
                            std::vector<std::string>& files, std::vector<LineRow>& rows,
                            std::vector<InlineRange>& inlined);

// A C++ name demangled ("_Z3badPi" -> "bad(int*)"), other names unchanged.
std::string demangle(const std::string& name);

}  // namespace tessera::isa
