// The symbolizer: function and line lookup on hand-made tables (size-0
// symbols, aliases, sequence ends), and on a program tessera-cc built with
// -g, where every code address must name the line binutils' addr2line
// names (gdb's where addr2line knows none) and each marked source line
// must be found in its function.
#include "isa/symbolizer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "isa/elf_loader.h"

namespace tessera::isa {
namespace {

Symbolizer hand_made() {
  std::vector<FunctionSymbol> functions = {
      {"helper", 0x1000, 0x20},
      {"_start", 0x0f00, 0},  // size 0: up to the next symbol
      {"main", 0x1020, 0x40},
      {"main_alias", 0x1020, 0},  // an alias without size: main is kept
  };
  std::vector<LineRow> rows = {
      {0x1000, 0, 3, false}, {0x1008, 0, 4, false},  {0x1020, 1, 10, false},
      {0x1030, 1, 0, false}, {0x1034, 1, 12, false}, {0x1060, 1, 12, true},
  };
  return Symbolizer(functions, {"/src/helper.c", "/src/main.c"}, rows);
}

TEST(Symbolizer, NamesFunctionAndOffsetAndLine) {
  const Symbolizer s = hand_made();
  EXPECT_EQ(s.describe(0x1000), "helper (helper.c:3)");
  EXPECT_EQ(s.describe(0x100c), "helper+0xc (helper.c:4)");
  EXPECT_EQ(s.describe(0x1024), "main+0x4 (main.c:10)");
  EXPECT_EQ(s.format_pc(0x1024), "0x00001024 in main+0x4 (main.c:10)");
  EXPECT_EQ(s.line_at(0x1024)->file, "/src/main.c");
  // Line 0 (code of no line) and past a sequence's end: the function alone.
  EXPECT_EQ(s.describe(0x1030), "main+0x10");
  EXPECT_EQ(s.describe(0x1038), "main+0x18 (main.c:12)");
  EXPECT_EQ(s.describe(0x105c), "main+0x3c (main.c:12)");
}

TEST(Symbolizer, SizeZeroSymbolsReachTheNextAndUnknownAddressesStayBare) {
  const Symbolizer s = hand_made();
  EXPECT_EQ(s.describe(0x0f04), "_start+0x4");
  EXPECT_EQ(s.function_at(0x0ffc)->name, "_start");
  EXPECT_EQ(s.describe(0x1060), "");  // past main's 0x40 bytes and the sequence
  EXPECT_EQ(s.format_pc(0x1060), "0x00001060");
  EXPECT_EQ(s.format_pc(0x0100), "0x00000100");
  EXPECT_EQ(*s.address_of("main"), 0x1020u);
  EXPECT_FALSE(s.address_of("main_alias"));
  EXPECT_EQ(Symbolizer().format_pc(0x80000000), "0x80000000");
}

// Runs a command and returns what it printed.
std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// The source line whose text contains "LINE: what".
uint32_t marked_line(const std::string& what) {
  std::ifstream in(SYMBOLIZER_SAMPLE_C);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find("LINE: " + what) != std::string::npos) return n;
  return 0;
}

// What describe() must say for offset bytes into function at the sample's line.
std::string fmt_describe(const std::string& function, uint32_t offset, uint32_t line) {
  std::ostringstream out;
  out << function;
  if (offset != 0) out << "+0x" << std::hex << offset << std::dec;
  out << " (symbolizer_sample.c:" << line << ")";
  return out.str();
}

class SymbolizerSample : public ::testing::Test {
 protected:
  void SetUp() override { image_ = load_elf(SYMBOLIZER_SAMPLE_ELF); }
  ElfImage image_;
};

// "FILE:LINE" as binutils' addr2line answers each of `pcs` ("" for none),
// and where it knows none (it misses code in .text.startup), "gdb
// FILE:LINE" as gdb's `info line` does.
std::vector<std::string> reference_lines(const std::vector<uint32_t>& pcs) {
  std::ostringstream list;
  for (const uint32_t pc : pcs) list << std::hex << "0x" << pc << "\n";
  const std::string list_file = std::string(ISA_TEST_TMP_DIR) + "/symbolizer-addresses.txt";
  std::ofstream(list_file) << list.str();
  std::istringstream a2l(output_of(std::string(RISCV_ADDR2LINE) + " -e " + SYMBOLIZER_SAMPLE_ELF + " < " + list_file));
  std::vector<std::string> out;
  std::ostringstream script;
  for (const uint32_t pc : pcs) {
    std::string answer;
    std::getline(a2l, answer);
    answer = answer.substr(0, answer.find(' '));  // "FILE:LINE (discriminator N)"
    const bool none = answer.empty() || answer.rfind("??", 0) == 0 || answer.back() == '?';
    out.push_back(none ? "" : base_name(answer));
    if (none) script << "info line *0x" << std::hex << pc << "\n";
  }
  const std::string commands = std::string(ISA_TEST_TMP_DIR) + "/symbolizer-gdb.txt";
  std::ofstream(commands) << script.str();
  std::istringstream gdb(
      output_of(std::string(GDB_MULTIARCH) + " -nx -batch -x " + commands + " " + SYMBOLIZER_SAMPLE_ELF + " 2>&1"));
  for (std::string& line : out) {
    if (!line.empty()) continue;
    std::string answer;
    std::getline(gdb, answer);
    // 'Line N of "FILE" starts at address ...', or 'No line number information ...'.
    const size_t of = answer.find(" of \""), quote = answer.find('"', of + 5);
    if (answer.rfind("Line ", 0) == 0 && quote != std::string::npos)
      line = "gdb " + base_name(answer.substr(of + 5, quote - of - 5)) + ":" + answer.substr(5, of - 5);
  }
  return out;
}

TEST_F(SymbolizerSample, EveryCodeAddressNamesTheLineBinutilsAndGdbName) {
  const Symbolizer& s = image_.code_names();
  ASSERT_TRUE(s.has_lines());
  std::vector<uint32_t> pcs;
  for (const ElfSegment& seg : image_.segments)
    if (seg.executable)
      for (uint32_t pc = seg.addr; pc < seg.addr + seg.bytes.size(); pc += 4) pcs.push_back(pc);
  ASSERT_GT(pcs.size(), 100u);
  const std::vector<std::string> want = reference_lines(pcs);
  size_t with_lines = 0;
  for (size_t i = 0; i < pcs.size(); ++i) {
    const auto line = s.line_at(pcs[i]);
    const std::string got = line ? line->base_name() + ":" + std::to_string(line->line) : "";
    if (want[i].rfind("gdb ", 0) == 0) {
      // gdb takes the last is_stmt row at an address where the last row
      // names the instruction: the same file, perhaps another line.
      EXPECT_EQ(got.substr(0, got.find(':')), want[i].substr(4, want[i].find(':') - 4)) << std::hex << "0x" << pcs[i];
    } else {
      EXPECT_EQ(got, want[i]) << std::hex << "0x" << pcs[i];
    }
    with_lines += got.empty() ? 0 : 1;
  }
  // The runtime (start-up code, printf) is compiled with -g too.
  EXPECT_GT(with_lines, pcs.size() / 2);
}

// The first address of `function` whose line is `line` (and, unless
// `inlined`, outside inlined code); 0 when there is none.
uint32_t first_pc_of_line(const Symbolizer& s, const std::string& function, uint32_t line, bool inlined) {
  const auto start = s.address_of(function);
  if (!start) return 0;
  const FunctionSymbol* f = s.function_at(*start);
  for (uint32_t pc = f->addr; pc < f->addr + f->size; pc += 4) {
    const auto at = s.line_at(pc);
    if (at && at->line == line && at->base_name() == "symbolizer_sample.c" && s.inlined_at(pc).has_value() == inlined)
      return pc;
  }
  return 0;
}

TEST_F(SymbolizerSample, TheMarkedLinesAreFoundInTheirFunctions) {
  const Symbolizer& s = image_.code_names();
  for (const auto& [mark, function] :
       std::map<std::string, std::string>{{"loop body", "count_down"}, {"call", "main"}}) {
    const uint32_t want = marked_line(mark);
    ASSERT_NE(want, 0u) << mark;
    const uint32_t pc = first_pc_of_line(s, function, want, false);
    ASSERT_NE(pc, 0u) << "no code of " << function << " at symbolizer_sample.c:" << want << " (" << mark << ")";
    EXPECT_EQ(s.describe(pc), fmt_describe(function, pc - *s.address_of(function), want));
  }
}

TEST_F(SymbolizerSample, InlinedCodeNamesTheCallersLineFirst) {
  // square() is inlined into count_down's loop: its code names the loop's
  // line, then square's own.
  const Symbolizer& s = image_.code_names();
  const uint32_t loop = marked_line("loop body"), square = marked_line("square");
  const uint32_t pc = first_pc_of_line(s, "count_down", square, true);
  ASSERT_NE(pc, 0u) << "square's line has no inlined code in count_down";
  const auto in = s.inlined_at(pc);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->name, "square");
  EXPECT_EQ(in->call.base_name(), "symbolizer_sample.c");
  EXPECT_EQ(in->call.line, loop);
  std::ostringstream want;
  want << "count_down+0x" << std::hex << pc - *s.address_of("count_down") << std::dec
       << " (symbolizer_sample.c:" << loop << "; square at symbolizer_sample.c:" << square << ")";
  EXPECT_EQ(s.describe(pc), want.str());
}

TEST(Symbolizer, CxxNamesAreDemangled) {
  EXPECT_EQ(demangle("_Z3badPi"), "bad(int*)");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("_Znot_a_name"), "_Znot_a_name");
  const Symbolizer s({{"_Z6kernelPfi", 0x100, 0x40}}, std::vector<std::string>{}, std::vector<LineRow>{});
  EXPECT_EQ(s.describe(0x104), "kernel(float*, int)+0x4");
  EXPECT_EQ(*s.address_of("_Z6kernelPfi"), 0x100u);
}

}  // namespace
}  // namespace tessera::isa
