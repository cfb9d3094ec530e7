// The coalescer (docs/architecture.md, "The SM"): a warp's global addresses become the
// minimal set of 32-byte sector requests, grouped by 128-byte line (one
// request per line carries a mask of its four sectors). No SystemC here.
#pragma once

#include <cstdint>
#include <vector>

#include "mem/sector_cache.h"

namespace tessera::sm {

// The memory system's line and sector (mem/sector_cache.h), which the SM's
// coalescer, L1 and requests are cut to.
using mem::kLineBytes;
using mem::kSectorBytes;
using mem::kSectorsPerLine;

struct LineRequest {
  uint32_t line = 0;    // line address (multiple of 128)
  uint8_t sectors = 0;  // bit i: sector i of the line
  uint8_t lanes = 0;    // lanes whose access falls in this line
};

class Coalescer {
 public:
  void clear() {
    lines_.clear();
    sorted_ = true;
  }
  // One lane's access of `bytes` at `addr` (aligned, so within one sector).
  void add(uint32_t addr, unsigned bytes);
  // The requests in ascending address order.
  const std::vector<LineRequest>& lines();
  unsigned sector_count() const;

 private:
  std::vector<LineRequest> lines_;
  bool sorted_ = true;
};

}  // namespace tessera::sm
