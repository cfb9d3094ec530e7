// Two-level warp scheduling (Narasiman et al., "Improving GPU Performance
// via Large Warps and Two-Level Warp Scheduling", MICRO 2011): a small
// active set scheduled round robin; a warp that waits on memory drops to
// the pending set, and the oldest pending warp takes its place.
#pragma once

#include "sm/warp_scheduler.h"

namespace tessera::sm {

class TwoLevelScheduler : public LastIssuedScheduler {
 public:
  explicit TwoLevelScheduler(unsigned active_size) : active_size_(active_size) {}
  void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) override;
  void long_latency_wait(uint16_t warp) override;

 private:
  unsigned active_size_;
  std::vector<uint16_t> active_;   // in round-robin order
  std::vector<uint16_t> demoted_;  // left the active set to wait on memory
};

}  // namespace tessera::sm
