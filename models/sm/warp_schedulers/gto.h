// Greedy-then-oldest (Rogers, O'Connor and Aamodt, "Cache-Conscious
// Wavefront Scheduling", MICRO 2012): keep issuing from the same warp until
// it stalls, then try the others oldest first.
#pragma once

#include "sm/warp_scheduler.h"

namespace tessera::sm {

class GtoScheduler : public LastIssuedScheduler {
 public:
  void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) override;
};

}  // namespace tessera::sm
