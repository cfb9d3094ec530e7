// ELF loader rules that keep a loaded image consistent and bounded by its
// file: executable segments at multiples of 4 (no C extension), segments
// that do not overlap in memory nor wrap past 4 GiB, and no more bytes copied
// (segment contents, symbol names) than the file holds. Each case edits the
// tiny RV32 executable built from tiny.S (program headers: 0 RISCV_ATTRIBUTES,
// 1 LOAD R+X at 0x7ffff000 from file offset 0, 2 LOAD RW holding `answer`).
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "isa/decoded_program.h"
#include "isa/elf_loader.h"

namespace tessera::isa::elf_segment_rules_test {
namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_bytes(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = std::string(ISA_TEST_TMP_DIR) + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

template <class T>
T get(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, &b[off], sizeof v);
  return v;
}
template <class T>
void put(std::vector<uint8_t>& b, size_t off, const T& v) {
  std::memcpy(&b[off], &v, sizeof v);
}

// The tiny executable with accessors for its program and section headers.
struct TinyElf {
  std::vector<uint8_t> bytes = read_bytes(ISA_TINY_RV32_ELF);

  Elf32_Ehdr ehdr() const { return get<Elf32_Ehdr>(bytes, 0); }
  size_t phdr_offset(unsigned n) const { return ehdr().e_phoff + n * sizeof(Elf32_Phdr); }
  Elf32_Phdr phdr(unsigned n) const { return get<Elf32_Phdr>(bytes, phdr_offset(n)); }
  void set_phdr(unsigned n, const Elf32_Phdr& p) { put(bytes, phdr_offset(n), p); }
  // Program header number of the PT_LOAD segment with (or without) PF_X.
  unsigned load(bool executable) const {
    for (unsigned n = 0; n < ehdr().e_phnum; ++n) {
      const Elf32_Phdr p = phdr(n);
      if (p.p_type == PT_LOAD && ((p.p_flags & PF_X) != 0) == executable) return n;
    }
    ADD_FAILURE() << "tiny_rv32.elf has no such PT_LOAD segment";
    return 0;
  }
  size_t shdr_offset(unsigned n) const { return ehdr().e_shoff + n * sizeof(Elf32_Shdr); }
  Elf32_Shdr shdr(unsigned n) const { return get<Elf32_Shdr>(bytes, shdr_offset(n)); }
  void set_shdr(unsigned n, const Elf32_Shdr& s) { put(bytes, shdr_offset(n), s); }
  unsigned section(uint32_t type) const {
    for (unsigned n = 0; n < ehdr().e_shnum; ++n)
      if (shdr(n).sh_type == type) return n;
    ADD_FAILURE() << "tiny_rv32.elf has no section of type " << type;
    return 0;
  }
};

std::string error_of(const std::string& path) {
  try {
    load_elf(path);
  } catch (const ElfError& e) {
    return e.what();
  }
  return "";
}

TEST(ElfSegmentRules, UnalignedExecutableSegmentIsRefusedNamingFileSegmentAndAddress) {
  // Before this rule the image loaded, and the decoded program (indexed from
  // the segment's base) disagreed with memory: control cores stopped with
  // "instruction was changed in memory".
  TinyElf elf;
  const unsigned text = elf.load(true);
  Elf32_Phdr p = elf.phdr(text);
  ASSERT_EQ(p.p_vaddr, 0x7ffff000u);
  p.p_vaddr += 2;
  p.p_paddr += 2;
  elf.set_phdr(text, p);
  const std::string path = write_bytes("unaligned_text.elf", elf.bytes);
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find("'" + path + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("segment " + std::to_string(text) + " (at 0x7ffff002"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is executable but its address is not a multiple of 4"), std::string::npos) << msg;
}

TEST(ElfSegmentRules, UnalignedDataSegmentStillLoads) {
  TinyElf elf;
  const unsigned data = elf.load(false);
  Elf32_Phdr p = elf.phdr(data);
  p.p_vaddr += 1;
  elf.set_phdr(data, p);
  const ElfImage image = load_elf(write_bytes("unaligned_data.elf", elf.bytes));
  ASSERT_EQ(image.segments.size(), 2u);
  EXPECT_EQ(image.segments[1].addr, p.p_vaddr);
}

TEST(ElfSegmentRules, LoadedCodeMatchesTheDecodedProgramWordForWord) {
  const ElfImage image = load_elf(ISA_TINY_RV32_ELF);
  const DecodedProgram program(image);
  for (const ElfSegment& s : image.segments) {
    if (!s.executable) continue;
    for (uint32_t off = 0; off + 4 <= s.bytes.size(); off += 4) {
      const Inst* inst = program.find(s.addr + off);
      ASSERT_NE(inst, nullptr);
      uint32_t word;
      std::memcpy(&word, &s.bytes[off], 4);
      EXPECT_EQ(inst->raw, word) << "at 0x" << std::hex << s.addr + off;
    }
  }
}

TEST(ElfSegmentRules, OverlappingSegmentsAreRefused) {
  TinyElf elf;
  const unsigned text = elf.load(true), data = elf.load(false);
  Elf32_Phdr p = elf.phdr(data);
  p.p_vaddr = elf.phdr(text).p_vaddr + 0x100;  // inside the code
  elf.set_phdr(data, p);
  const std::string path = write_bytes("overlap.elf", elf.bytes);
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("segments " + std::to_string(text) + " (0x7ffff000..0x8000000c) and " + std::to_string(data) +
                     " (0x7ffff100.."),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("overlap in memory"), std::string::npos) << msg;
}

TEST(ElfSegmentRules, SegmentPastFourGibibytesIsRefused) {
  TinyElf elf;
  const unsigned data = elf.load(false);
  Elf32_Phdr p = elf.phdr(data);
  p.p_vaddr = 0xffffff00u;
  p.p_memsz = 0x200;
  elf.set_phdr(data, p);
  const std::string msg = error_of(write_bytes("wrap.elf", elf.bytes));
  EXPECT_NE(msg.find("segment " + std::to_string(data) +
                     " (at 0xffffff00, 512 bytes) extends past the 32-bit address "
                     "space"),
            std::string::npos)
      << msg;
}

TEST(ElfSegmentRules, SegmentsCopyingMoreThanTheFileAreRefused) {
  // The data segment re-reads the whole file from offset 0: every byte of it
  // lies in the file, but together with the code they copy more bytes than
  // the file has (the pattern that lets a small file request N copies).
  TinyElf elf;
  const unsigned data = elf.load(false);
  Elf32_Phdr p = elf.phdr(data);
  const auto size = static_cast<uint32_t>(elf.bytes.size());
  p.p_offset = 0;
  p.p_filesz = p.p_memsz = size;
  elf.set_phdr(data, p);
  const std::string path = write_bytes("copies.elf", elf.bytes);
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than the file's " + std::to_string(size) + ": the segments overlap in the file"),
            std::string::npos)
      << msg;
}

// Points .symtab at `count` global function symbols appended to the file,
// all named by one appended string of `name_length` bytes.
std::vector<uint8_t> symbols_sharing_one_name(unsigned count, size_t name_length) {
  TinyElf elf;
  const unsigned symtab = elf.section(SHT_SYMTAB);
  Elf32_Shdr sym = elf.shdr(symtab);
  Elf32_Shdr str = elf.shdr(sym.sh_link);

  const auto name_offset = static_cast<uint32_t>(elf.bytes.size());
  elf.bytes.push_back('\0');
  elf.bytes.insert(elf.bytes.end(), name_length, 'n');
  elf.bytes.push_back('\0');
  str.sh_offset = name_offset;
  str.sh_size = static_cast<uint32_t>(name_length + 2);
  elf.set_shdr(sym.sh_link, str);

  while (elf.bytes.size() % 4 != 0) elf.bytes.push_back(0);
  const auto table_offset = static_cast<uint32_t>(elf.bytes.size());
  elf.bytes.resize(elf.bytes.size() + (count + 1) * sizeof(Elf32_Sym), 0);  // entry 0 is the null symbol
  for (unsigned k = 1; k <= count; ++k) {
    Elf32_Sym s{};
    s.st_name = 1;
    s.st_value = 0x80000000u + 4 * k;
    s.st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
    s.st_shndx = 1;
    put(elf.bytes, table_offset + k * sizeof(Elf32_Sym), s);
  }
  sym.sh_offset = table_offset;
  sym.sh_size = (count + 1) * sizeof(Elf32_Sym);
  sym.sh_info = 1;
  elf.set_shdr(symtab, sym);
  return elf.bytes;
}

TEST(ElfSegmentRules, SymbolNamesBeyondTheFileSizeAreRefused) {
  // 64 symbols naming the same 4000-byte string would store 256000 bytes of
  // names from a file of about 9 KB.
  const std::vector<uint8_t> bytes = symbols_sharing_one_name(64, 4000);
  const std::string path = write_bytes("shared_names.elf", bytes);
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("total more than the file's " + std::to_string(bytes.size()) +
                     " bytes: they overlap in the string table"),
            std::string::npos)
      << msg;
}

TEST(ElfSegmentRules, SymbolNamesWithinTheFileSizeLoad) {
  const std::vector<uint8_t> bytes = symbols_sharing_one_name(2, 4000);
  const ElfImage image = load_elf(write_bytes("two_long_names.elf", bytes));
  EXPECT_EQ(image.symbols.size(), 1u);  // both symbols have the one name
  EXPECT_TRUE(image.symbol(std::string(4000, 'n')).has_value());
}

}  // namespace
}  // namespace tessera::isa::elf_segment_rules_test
