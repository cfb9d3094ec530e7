#include "sm/warp_schedulers/lrr.h"

#include <algorithm>

namespace tessera::sm {

void LrrScheduler::order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) {
  // Slot order, starting after the warp that issued last.
  out = warps;
  std::sort(out.begin(), out.end());
  const auto next =
      std::upper_bound(out.begin(), out.end(), last_, [](int v, uint16_t w) { return v < static_cast<int>(w); });
  std::rotate(out.begin(), next, out.end());
}

}  // namespace tessera::sm
