// The crossbar's parameters (`xbar.*`), read by the crossbar's own code so
// that no other model reads them: the SM-port input queue depth (requests
// held before END_REQ is withheld), the bandwidth per port and the traversal
// latency per direction (gpu/crossbar.h has the timing they feed).
#pragma once

#include "sim/config.h"

namespace tessera::gpu {

struct CrossbarParams {
  unsigned input_queue = 4;
  double bytes_per_cycle = 32.0;
  unsigned latency = 48;

  static CrossbarParams from_config(sim::Config& cfg);
};

}  // namespace tessera::gpu
