// Loose round robin: every resident warp in slot order, starting after the
// warp that issued last (GPGPU-Sim's "lrr").
#pragma once

#include "sm/warp_scheduler.h"

namespace tessera::sm {

class LrrScheduler : public LastIssuedScheduler {
 public:
  void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) override;
};

}  // namespace tessera::sm
