#include "sm/warp_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace tessera::sm {

void LrrScheduler::order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) {
  // Slot order, starting after the warp that issued last.
  out = warps;
  std::sort(out.begin(), out.end());
  const auto next =
      std::upper_bound(out.begin(), out.end(), last_, [](int v, uint16_t w) { return v < static_cast<int>(w); });
  std::rotate(out.begin(), next, out.end());
}

void GtoScheduler::order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) {
  // Keep issuing from the same warp until it stalls, then the oldest.
  out.clear();
  if (last_ >= 0 && std::find(warps.begin(), warps.end(), last_) != warps.end())
    out.push_back(static_cast<uint16_t>(last_));
  for (uint16_t w : warps)
    if (w != last_) out.push_back(w);
}

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

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names{"lrr", "gto", "two_level"};
  return names;
}

std::unique_ptr<WarpScheduler> make_scheduler(const std::string& name, unsigned two_level_active) {
  if (name == "lrr") return std::make_unique<LrrScheduler>();
  if (name == "gto") return std::make_unique<GtoScheduler>();
  if (name == "two_level") return std::make_unique<TwoLevelScheduler>(two_level_active);
  throw std::invalid_argument("unknown warp scheduler '" + name + "'");
}

}  // namespace tessera::sm
