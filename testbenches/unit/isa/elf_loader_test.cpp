// ELF loader: a tiny RV32 executable built by riscv64-unknown-elf-gcc at
// build time, and every error case with the message it must give.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "isa/elf_loader.h"
#include "isa/isa.h"

namespace tessera::isa {
namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
std::string write_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = std::string(ISA_TEST_TMP_DIR) + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}
uint32_t le32(const std::vector<uint8_t>& b, size_t off) {
  uint32_t v;
  std::memcpy(&v, &b[off], 4);
  return v;
}
uint16_t le16(const std::vector<uint8_t>& b, size_t off) {
  uint16_t v;
  std::memcpy(&v, &b[off], 2);
  return v;
}

// The ElfError message for path, or "" if load_elf did not throw.
std::string error_of(const std::string& path) {
  try {
    load_elf(path);
  } catch (const ElfError& e) {
    return e.what();
  }
  return "";
}

const ElfSegment* segment_containing(const ElfImage& image, uint32_t addr) {
  for (const ElfSegment& s : image.segments) {
    if (addr >= s.addr && addr - s.addr < s.mem_size) return &s;
  }
  return nullptr;
}

TEST(ElfLoader, LoadsTinyProgram) {
  const ElfImage image = load_elf(ISA_TINY_RV32_ELF);
  EXPECT_EQ(image.entry, 0x80000000u);  // -Ttext=0x80000000, _start first
  EXPECT_EQ(image.symbol("_start"), 0x80000000u);
  ASSERT_TRUE(image.symbol("answer").has_value());
  ASSERT_TRUE(image.symbol("buffer").has_value());
  EXPECT_FALSE(image.symbol("no_such_symbol").has_value());

  // Code: the segment holding the entry point is executable and holds
  // "lui a0,%hi(answer)", "lw a0,%lo(answer)(a0)", "exit" (tiny.S).
  const ElfSegment* text = segment_containing(image, image.entry);
  ASSERT_NE(text, nullptr);
  EXPECT_TRUE(text->executable);
  const uint32_t off = image.entry - text->addr;
  ASSERT_GE(text->bytes.size(), off + 12);
  const Inst lui = decode(le32(text->bytes, off));
  EXPECT_EQ(lui.op, Op::kLui);
  EXPECT_EQ(lui.rd, 10);
  EXPECT_EQ(decode(le32(text->bytes, off + 4)).op, Op::kLw);
  EXPECT_EQ(decode(le32(text->bytes, off + 8)).op, Op::kExit);

  // Data: answer = 0x2a2a2a2a in a non-executable segment that also covers
  // the 256-byte .bss buffer beyond its file bytes.
  const uint32_t answer = *image.symbol("answer");
  const ElfSegment* data = segment_containing(image, answer);
  ASSERT_NE(data, nullptr);
  EXPECT_FALSE(data->executable);
  ASSERT_GE(data->bytes.size(), answer - data->addr + 4);
  EXPECT_EQ(le32(data->bytes, answer - data->addr), 0x2a2a2a2au);
  const uint32_t buffer = *image.symbol("buffer");
  EXPECT_EQ(segment_containing(image, buffer), data);
  EXPECT_EQ(segment_containing(image, buffer + 255), data);
  EXPECT_LE(data->bytes.size(), buffer - data->addr);  // .bss is not in the file
  EXPECT_GE(data->mem_size, buffer - data->addr + 256);
}

TEST(ElfLoader, MissingFile) {
  const std::string path = std::string(ISA_TEST_TMP_DIR) + "/does_not_exist.elf";
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}

TEST(ElfLoader, Directory) {
  const std::string msg = error_of(ISA_TEST_TMP_DIR);
  EXPECT_NE(msg.find(ISA_TEST_TMP_DIR), std::string::npos) << msg;
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
}

TEST(ElfLoader, TextFile) {
  const std::string msg = error_of(ISA_TEXT_FILE);
  EXPECT_NE(msg.find(ISA_TEXT_FILE), std::string::npos) << msg;
  EXPECT_NE(msg.find("not an ELF file"), std::string::npos) << msg;
}

TEST(ElfLoader, EmptyFile) {
  const std::string path = write_file("empty.elf", {});
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find("not an ELF file"), std::string::npos) << msg;
}

TEST(ElfLoader, SixtyFourBitElf) {
  const std::string msg = error_of(ISA_TINY_RV64_ELF);
  EXPECT_NE(msg.find(ISA_TINY_RV64_ELF), std::string::npos) << msg;
  EXPECT_NE(msg.find("is a 64-bit ELF; Tessera runs 32-bit RV32 programs, build with -march=rv32imafd -mabi=ilp32d"),
            std::string::npos)
      << msg;
}

TEST(ElfLoader, WrongMachine) {
  // The RV32 executable with e_machine (offset 18) set to EM_386 (3).
  std::vector<uint8_t> bytes = read_file(ISA_TINY_RV32_ELF);
  ASSERT_GT(bytes.size(), 52u);
  bytes[18] = 3;
  bytes[19] = 0;
  const std::string path = write_file("wrong_machine.elf", bytes);
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("not RISC-V"), std::string::npos) << msg;
  EXPECT_NE(msg.find("machine 3"), std::string::npos) << msg;
}

TEST(ElfLoader, NotAnExecutable) {
  // all_forms.o, the assembler's relocatable output for the golden test.
  std::string object = ISA_ALL_FORMS_OBJDUMP;
  object.replace(object.rfind(".objdump"), 8, ".o");
  const std::string msg = error_of(object);
  EXPECT_NE(msg.find(object), std::string::npos) << msg;
  EXPECT_NE(msg.find("not an executable (ET_EXEC)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ET_REL"), std::string::npos) << msg;
}

TEST(ElfLoader, NoLoadableSegments) {
  // Turn every program header (e_phoff at 28, e_phentsize at 42, e_phnum at
  // 44) into PT_NULL.
  std::vector<uint8_t> bytes = read_file(ISA_TINY_RV32_ELF);
  ASSERT_GT(bytes.size(), 52u);
  const uint32_t phoff = le32(bytes, 28);
  const uint16_t phentsize = le16(bytes, 42), phnum = le16(bytes, 44);
  ASSERT_GT(phnum, 0);
  for (uint16_t n = 0; n < phnum; ++n) std::memset(&bytes[phoff + n * phentsize], 0, 4);
  const std::string path = write_file("no_load.elf", bytes);
  const std::string msg = error_of(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("no loadable (PT_LOAD) segments"), std::string::npos) << msg;
}

TEST(ElfLoader, BigEndian) {
  std::vector<uint8_t> bytes = read_file(ISA_TINY_RV32_ELF);
  ASSERT_GT(bytes.size(), 52u);
  bytes[5] = 2;  // EI_DATA = ELFDATA2MSB
  const std::string path = write_file("big_endian.elf", bytes);
  EXPECT_NE(error_of(path), "");
}

}  // namespace
}  // namespace tessera::isa
