// ELF loader harness: the input is an ELF file. load_elf either refuses it
// with an ElfError naming the file, or returns an image that the platform
// can load as platforms/platform.cpp does (segments inside global memory,
// entry point, stack top) and whose decoded program (what the cores fetch)
// agrees word for word with the bytes in guest memory.
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "isa/decoded_program.h"
#include "isa/elf_loader.h"
#include "sim/backing_memory.h"

namespace {

using namespace tessera;
using fuzz::check;

constexpr uint32_t kGlobalBase = 0x80000000u;    // docs/firmware-abi.md "Memory map"
constexpr uint64_t kGlobalBytes = 256ull << 20;  // memory.size_mb default

void check_image(const isa::ElfImage& image, size_t file_size) {
  check(!image.segments.empty(), "an image without segments was accepted");
  uint64_t file_bytes = 0;
  for (size_t i = 0; i < image.segments.size(); ++i) {
    const isa::ElfSegment& s = image.segments[i];
    check(s.bytes.size() <= s.mem_size, "segment holds more file bytes than its memory size");
    check(uint64_t{s.addr} + s.mem_size <= (uint64_t{1} << 32), "segment wraps around the 32-bit address space");
    check(!s.executable || s.addr % 4 == 0, "executable segment at an address that is not 4-byte aligned");
    file_bytes += s.bytes.size();
    for (size_t j = 0; j < i; ++j) {
      const isa::ElfSegment& o = image.segments[j];
      const bool disjoint = uint64_t{s.addr} + s.mem_size <= o.addr || uint64_t{o.addr} + o.mem_size <= s.addr;
      check(disjoint, "two loadable segments overlap in guest memory");
    }
  }
  // Copies of file bytes are bounded by the file: no input makes the loader
  // allocate more than it read.
  check(file_bytes <= file_size, "segments copy more bytes than the file holds");
  uint64_t name_bytes = 0;
  for (const auto& [name, value] : image.symbols) name_bytes += name.size();
  check(name_bytes <= file_size, "symbol names total more bytes than the file holds");
}

// What Platform::load_program does with the image, then the decoded program
// the cores fetch from.
void load_like_platform(const isa::ElfImage& image) {
  sim::BackingMemory global(kGlobalBase, kGlobalBytes);
  for (const isa::ElfSegment& s : image.segments) {
    if (!global.contains(s.addr, s.mem_size)) return;  // refused with a ConfigError
    check(global.write(s.addr, s.bytes.data(), s.bytes.size()), "write of a contained segment failed");
  }
  if (!global.contains(image.entry, 4)) return;
  if (const auto top = image.symbol("__stack_top"); top && !global.contains(*top - 4, 4)) return;

  const isa::DecodedProgram program(image);
  for (const isa::ElfSegment& s : image.segments) {
    if (!s.executable) continue;
    for (uint32_t off = 0; off + 4 <= s.bytes.size(); off += 4) {
      const uint32_t pc = s.addr + off;
      const isa::Inst* inst = program.find(pc);
      if (pc % 4 != 0) {
        check(inst == nullptr, "fetch at a misaligned pc returned an instruction");
        continue;
      }
      check(inst != nullptr, "no instruction at a pc inside an executable segment");
      uint32_t word = 0;
      check(global.read(pc, &word, 4), "read of loaded code failed");
      check(inst->raw == word, "the decoded instruction differs from the word in guest memory");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::MemFile file("fuzz.elf");
  file.assign(data, size);
  isa::ElfImage image;
  try {
    image = isa::load_elf(file.path());
  } catch (const isa::ElfError& e) {
    check(std::string(e.what()).find(file.path()) != std::string::npos, "ElfError does not name the file");
    return 0;
  }
  check_image(image, size);
  load_like_platform(image);
  return 0;
}
