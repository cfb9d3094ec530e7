#include "isa/decoded_program.h"

#include <cstring>

namespace tessera::isa {

DecodedProgram::DecodedProgram(const ElfImage& image) : image_(&image) {
  for (const ElfSegment& seg : image.segments) {
    if (!seg.executable) continue;
    Range r{seg.addr, static_cast<uint32_t>(seg.bytes.size() & ~size_t{3}), {}};
    r.insts.reserve(r.bytes / 4);
    for (uint32_t off = 0; off < r.bytes; off += 4) {
      uint32_t word;
      std::memcpy(&word, &seg.bytes[off], 4);
      r.insts.push_back(decode(word));
    }
    ranges_.push_back(std::move(r));
  }
}

}  // namespace tessera::isa
