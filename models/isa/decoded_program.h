// The program's code, decoded once at load: fetch is an array lookup on the
// simulation's hot path. Code is not self-modifying; a PC outside the
// executable segments is a fetch fault (nullptr).
#pragma once

#include <cstdint>
#include <vector>

#include "isa/elf_loader.h"
#include "isa/isa.h"

namespace tessera::isa {

class DecodedProgram {
 public:
  // image must outlive the program.
  explicit DecodedProgram(const ElfImage& image);
  const ElfImage& image() const { return *image_; }
  const Inst* find(uint32_t pc) const {
    for (const Range& r : ranges_) {
      if (pc - r.base < r.bytes) return (pc & 3) ? nullptr : &r.insts[(pc - r.base) >> 2];
    }
    return nullptr;
  }
  // Whether any byte of [addr, addr + bytes) is in an executable segment.
  bool overlaps(uint32_t addr, uint32_t bytes) const {
    for (const Range& r : ranges_)
      if (addr < uint64_t{r.base} + r.bytes && r.base < uint64_t{addr} + bytes) return true;
    return false;
  }

 private:
  struct Range {
    uint32_t base;
    uint32_t bytes;
    std::vector<Inst> insts;
  };
  std::vector<Range> ranges_;
  const ElfImage* image_;
};

}  // namespace tessera::isa
