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
  explicit DecodedProgram(const ElfImage& image);
  const Inst* find(uint32_t pc) const {
    for (const Range& r : ranges_) {
      if (pc - r.base < r.bytes) return (pc & 3) ? nullptr : &r.insts[(pc - r.base) >> 2];
    }
    return nullptr;
  }

 private:
  struct Range {
    uint32_t base;
    uint32_t bytes;
    std::vector<Inst> insts;
  };
  std::vector<Range> ranges_;
};

}  // namespace tessera::isa
