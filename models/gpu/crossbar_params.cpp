#include "gpu/crossbar_params.h"

namespace tessera::gpu {

CrossbarParams CrossbarParams::from_config(sim::Config& cfg) {
  CrossbarParams p;
  p.input_queue = static_cast<unsigned>(cfg.get_int(
      "xbar.input_queue", 4, 1, 1024, "Requests an SM port of the crossbar holds before END_REQ is withheld"));
  p.bytes_per_cycle =
      cfg.get_float("xbar.bytes_per_cycle", 32.0, 1.0, 4096.0, "Crossbar bandwidth per port, bytes/cycle");
  p.latency = static_cast<unsigned>(
      cfg.get_int("xbar.latency", 48, 0, 10000, "Crossbar traversal latency per direction, cycles"));
  return p;
}

}  // namespace tessera::gpu
