// Function and source-line lookup for code addresses (symbolizer.h). The
// line table comes from libdw (elfutils), one pass over the compilation
// units' line programs.
#include "isa/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <unordered_map>

namespace tessera::isa {

std::string SourceLine::base_name() const {
  const size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

namespace {

// Rows by address, one per address and kind. Of the rows a compiler leaves
// at one address (location views: the entries of inlined calls that take
// no code, then the instruction's own), the last names the instruction, as
// binutils' addr2line reads it (gdb prefers the last is_stmt row, which can
// be an empty inlined entry); an end row there sorts before it, so the last
// row at or below a PC is the one that describes it.
void normalise_rows(std::vector<LineRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const LineRow& a, const LineRow& b) {
    return std::tie(a.addr, b.end) < std::tie(b.addr, a.end);
  });
  std::vector<LineRow> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    const LineRow* chosen = nullptr;
    bool ended = false;
    for (; j < rows.size() && rows[j].addr == rows[i].addr; ++j) {
      if (rows[j].end) {
        if (!ended) out.push_back(rows[j]);
        ended = true;
      } else {
        chosen = &rows[j];
      }
    }
    if (chosen != nullptr) out.push_back(*chosen);
    i = j;
  }
  rows = std::move(out);
}

}  // namespace

Symbolizer::Symbolizer(std::vector<FunctionSymbol> functions, std::string elf_path, std::vector<CodeRange> code)
    : functions_(std::move(functions)), elf_path_(std::move(elf_path)), code_(std::move(code)) {
  // Aliases at one address: the sized symbol first, then by name, kept once.
  std::sort(functions_.begin(), functions_.end(), [](const FunctionSymbol& a, const FunctionSymbol& b) {
    return std::make_tuple(a.addr, b.size, a.name) < std::make_tuple(b.addr, a.size, b.name);
  });
  functions_.erase(std::unique(functions_.begin(), functions_.end(),
                               [](const FunctionSymbol& a, const FunctionSymbol& b) { return a.addr == b.addr; }),
                   functions_.end());
  for (size_t i = 0; i + 1 < functions_.size(); ++i) {
    if (functions_[i].size == 0) functions_[i].size = functions_[i + 1].addr - functions_[i].addr;
  }
  for (FunctionSymbol& f : functions_) f.display = demangle(f.name);
}

Symbolizer::Symbolizer(std::vector<FunctionSymbol> functions, std::vector<std::string> files, std::vector<LineRow> rows,
                       std::vector<InlineRange> inlined)
    : Symbolizer(std::move(functions), "", {}) {
  normalise_rows(rows);
  std::call_once(lines_once_, [&] { set_lines(std::move(files), std::move(rows), std::move(inlined)); });
}

void Symbolizer::set_lines(std::vector<std::string> files, std::vector<LineRow> rows,
                           std::vector<InlineRange> inlined) const {
  files_ = std::move(files);
  rows_ = std::move(rows);
  std::sort(inlined.begin(), inlined.end(), [](const InlineRange& a, const InlineRange& b) {
    return std::tie(a.begin, a.depth) < std::tie(b.begin, b.depth);
  });
  inlined_ = std::move(inlined);
}

void Symbolizer::load_lines() const {
  std::call_once(lines_once_, [this] {
    if (elf_path_.empty()) return;
    std::vector<std::string> files;
    std::vector<LineRow> rows;
    std::vector<InlineRange> inlined;
    if (read_line_table(elf_path_, code_, files, rows, inlined).empty())
      set_lines(std::move(files), std::move(rows), std::move(inlined));
  });
}

const FunctionSymbol* Symbolizer::function_at(uint32_t pc) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), pc,
                             [](uint32_t a, const FunctionSymbol& f) { return a < f.addr; });
  if (it == functions_.begin()) return nullptr;
  --it;
  return pc - it->addr < it->size ? &*it : nullptr;
}

std::optional<SourceLine> Symbolizer::line_at(uint32_t pc) const {
  load_lines();
  auto it = std::upper_bound(rows_.begin(), rows_.end(), pc, [](uint32_t a, const LineRow& r) { return a < r.addr; });
  if (it == rows_.begin()) return std::nullopt;
  --it;
  if (it->end || it->line == 0) return std::nullopt;
  return SourceLine{files_[it->file], it->line};
}

std::optional<Symbolizer::InlinedAt> Symbolizer::inlined_at(uint32_t pc) const {
  load_lines();
  // The ranges are few (one per inlined call); the outermost holding pc wins.
  const InlineRange* best = nullptr;
  for (const InlineRange& r : inlined_) {
    if (r.begin > pc) break;
    if (pc < r.end && (best == nullptr || r.depth < best->depth)) best = &r;
  }
  if (best == nullptr || best->call_line == 0 || best->call_file >= files_.size()) return std::nullopt;
  return InlinedAt{best->name, SourceLine{files_[best->call_file], best->call_line}};
}

std::optional<uint32_t> Symbolizer::address_of(const std::string& function) const {
  for (const FunctionSymbol& f : functions_)
    if (f.name == function) return f.addr;
  return std::nullopt;
}

bool Symbolizer::has_lines() const {
  load_lines();
  return !rows_.empty();
}

std::string Symbolizer::describe(uint32_t pc) const {
  std::string out;
  if (const FunctionSymbol* f = function_at(pc)) {
    out = pc == f->addr ? f->display : fmt::format("{}+0x{:x}", f->display, pc - f->addr);
  }
  if (const auto line = line_at(pc)) {
    std::string where = fmt::format("{}:{}", line->base_name(), line->line);
    if (const auto in = inlined_at(pc))
      where = fmt::format("{}:{}; {} at {}", in->call.base_name(), in->call.line, in->name, where);
    out = out.empty() ? where : out + " (" + where + ")";
  }
  return out;
}

std::string Symbolizer::format_pc(uint32_t pc) const {
  const std::string name = describe(pc);
  return name.empty() ? fmt::format("0x{:08x}", pc) : fmt::format("0x{:08x} in {}", pc, name);
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string text = status == 0 && out != nullptr ? out : name;
  std::free(out);
  return text;
}

namespace {

// Whether addr is in the code (an end row also at its end): rows and
// ranges of code the linker discarded sit at address 0 and up.
bool in_code(const std::vector<CodeRange>& code, Dwarf_Addr addr, bool end) {
  return std::any_of(code.begin(), code.end(),
                     [&](const CodeRange& r) { return addr >= r.begin && (addr < r.end || (end && addr == r.end)); });
}

// The inlined subroutines below `die` in `code`, at `depth` and deeper;
// their call files are indices into the CU's file table, mapped to
// `file_of`.
void collect_inlined(Dwarf_Die* die, uint32_t depth, const std::vector<CodeRange>& code,
                     const std::vector<uint32_t>& file_of, std::vector<InlineRange>& out) {
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Attribute attr;
      Dwarf_Word call_file = 0, call_line = 0;
      if (dwarf_attr(&child, DW_AT_call_file, &attr) != nullptr) dwarf_formudata(&attr, &call_file);
      if (dwarf_attr(&child, DW_AT_call_line, &attr) != nullptr) dwarf_formudata(&attr, &call_line);
      const char* name = dwarf_diename(&child);
      Dwarf_Addr base = 0, begin = 0, end = 0;
      ptrdiff_t at = 0;
      while ((at = dwarf_ranges(&child, at, &base, &begin, &end)) > 0) {
        if (in_code(code, begin, false) && call_file < file_of.size())
          out.push_back(InlineRange{static_cast<uint32_t>(begin), static_cast<uint32_t>(end), depth, file_of[call_file],
                                    static_cast<uint32_t>(call_line), demangle(name ? name : "??")});
      }
      collect_inlined(&child, depth + 1, code, file_of, out);
    } else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) {
      collect_inlined(&child, tag == DW_TAG_subprogram ? 1 : depth, code, file_of, out);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

std::string read_line_table(const std::string& path, const std::vector<CodeRange>& code,
                            std::vector<std::string>& files, std::vector<LineRow>& rows,
                            std::vector<InlineRange>& inlined) {
  files.clear();
  rows.clear();
  inlined.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path;
  Dwarf* dw = dwarf_begin(fd, DWARF_C_READ);
  if (dw == nullptr) {
    ::close(fd);
    return std::string("no DWARF: ") + dwarf_errmsg(-1);
  }
  std::unordered_map<std::string, uint32_t> file_index;
  std::string error;
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dw, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_offdie(dw, offset + header, &cu) != nullptr && dwarf_getsrclines(&cu, &lines, &count) == 0) {
      for (size_t i = 0; i < count; ++i) {
        Dwarf_Line* line = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr = 0;
        int number = 0;
        bool end = false;
        if (line == nullptr || dwarf_lineaddr(line, &addr) != 0 || dwarf_lineno(line, &number) != 0 ||
            dwarf_lineendsequence(line, &end) != 0) {
          error = std::string("bad line row: ") + dwarf_errmsg(-1);
          break;
        }
        if (!in_code(code, addr, end)) continue;
        const char* file = dwarf_linesrc(line, nullptr, nullptr);
        const std::string name = file != nullptr ? file : "??";
        const auto [at, added] = file_index.try_emplace(name, static_cast<uint32_t>(files.size()));
        if (added) files.push_back(name);
        rows.push_back(
            LineRow{static_cast<uint32_t>(addr), at->second, static_cast<uint32_t>(std::max(number, 0)), end});
      }
      // The CU's file table, for the inlined calls' DW_AT_call_file.
      Dwarf_Files* cu_files = nullptr;
      size_t file_count = 0;
      std::vector<uint32_t> file_of;
      if (dwarf_getsrcfiles(&cu, &cu_files, &file_count) == 0) {
        for (size_t k = 0; k < file_count; ++k) {
          const char* file = dwarf_filesrc(cu_files, k, nullptr, nullptr);
          const auto [at, added] = file_index.try_emplace(file ? file : "??", static_cast<uint32_t>(files.size()));
          if (added) files.push_back(at->first);
          file_of.push_back(at->second);
        }
      }
      collect_inlined(&cu, 1, code, file_of, inlined);
    }
    offset = next;
  }
  dwarf_end(dw);
  ::close(fd);
  if (!error.empty()) {
    files.clear();
    rows.clear();
    return error;
  }
  normalise_rows(rows);
  return rows.empty() ? "no line table" : "";
}

}  // namespace tessera::isa
