#include "sm/coalescer.h"

#include <algorithm>

namespace tessera::sm {

void Coalescer::add(uint32_t addr, unsigned bytes) {
  const uint32_t line = addr & ~(kLineBytes - 1);
  const unsigned first = (addr % kLineBytes) / kSectorBytes;
  const unsigned last = ((addr + bytes - 1) % kLineBytes) / kSectorBytes;
  uint8_t mask = 0;
  for (unsigned s = first; s <= last; ++s) mask = static_cast<uint8_t>(mask | (1u << s));
  // A warp touches few lines: a linear search beats a map.
  for (auto it = lines_.rbegin(); it != lines_.rend(); ++it) {
    if (it->line == line) {
      it->sectors = static_cast<uint8_t>(it->sectors | mask);
      ++it->lanes;
      return;
    }
  }
  if (!lines_.empty() && lines_.back().line > line) sorted_ = false;
  lines_.push_back(LineRequest{line, mask, 1});
}

const std::vector<LineRequest>& Coalescer::lines() {
  if (!sorted_) {
    std::sort(lines_.begin(), lines_.end(), [](const LineRequest& a, const LineRequest& b) { return a.line < b.line; });
    sorted_ = true;
  }
  return lines_;
}

unsigned Coalescer::sector_count() const {
  unsigned n = 0;
  for (const LineRequest& l : lines_) n += static_cast<unsigned>(__builtin_popcount(l.sectors));
  return n;
}

}  // namespace tessera::sm
