#include "sm/warp_schedulers/two_level.h"

#include <algorithm>

namespace tessera::sm {

void TwoLevelScheduler::order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) {
  // Drop retired warps, refill the active set with the oldest pending ones.
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](uint16_t w) { return std::find(warps.begin(), warps.end(), w) == warps.end(); }),
                active_.end());
  demoted_.erase(std::remove_if(demoted_.begin(), demoted_.end(),
                                [&](uint16_t w) { return std::find(warps.begin(), warps.end(), w) == warps.end(); }),
                 demoted_.end());
  // Warps demoted for a memory wait come back last, so others get a turn.
  for (bool demoted_pass : {false, true}) {
    for (uint16_t w : warps) {
      if (active_.size() >= active_size_) break;
      const bool is_demoted = std::find(demoted_.begin(), demoted_.end(), w) != demoted_.end();
      if (is_demoted != demoted_pass || std::find(active_.begin(), active_.end(), w) != active_.end()) continue;
      active_.push_back(w);
      if (is_demoted) demoted_.erase(std::find(demoted_.begin(), demoted_.end(), w));
    }
  }
  out = active_;
  const auto it = std::find(out.begin(), out.end(), last_);
  if (it != out.end()) std::rotate(out.begin(), it + 1, out.end());
}

void TwoLevelScheduler::long_latency_wait(uint16_t warp) {
  // Demote to the back of the pending set; the oldest pending warp takes
  // its place at the next order().
  const auto it = std::find(active_.begin(), active_.end(), warp);
  if (it == active_.end()) return;
  active_.erase(it);
  demoted_.push_back(warp);
}

}  // namespace tessera::sm
