#include "sm/warp_schedulers/gto.h"

#include <algorithm>

namespace tessera::sm {

void GtoScheduler::order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) {
  // Keep issuing from the same warp until it stalls, then the oldest.
  out.clear();
  if (last_ >= 0 && std::find(warps.begin(), warps.end(), last_) != warps.end())
    out.push_back(static_cast<uint16_t>(last_));
  for (uint16_t w : warps)
    if (w != last_) out.push_back(w);
}

}  // namespace tessera::sm
