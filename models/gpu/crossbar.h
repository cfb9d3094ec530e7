// The SM <-> L2 crossbar's timing (until the network-on-chip replaces it): a
// transfer from input port i to output port o occupies both ports for
// ceil(bytes / bytes_per_cycle) cycles, starting when both are free, and
// arrives `latency` cycles after its last byte left. Each direction
// (requests, answers) is its own Crossbar. No SystemC here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tessera::gpu {

class Crossbar {
 public:
  Crossbar(unsigned inputs, unsigned outputs, double bytes_per_cycle, unsigned latency)
      : in_free_(inputs, 0), out_free_(outputs, 0), bytes_per_cycle_(bytes_per_cycle), latency_(latency) {}

  bool input_free(unsigned in, uint64_t now) const { return in_free_[in] <= now; }
  bool output_free(unsigned out, uint64_t now) const { return out_free_[out] <= now; }
  uint64_t input_free_at(unsigned in) const { return in_free_[in]; }
  uint64_t output_free_at(unsigned out) const { return out_free_[out]; }

  // Sends `bytes` from `in` to `out` no earlier than `now`; returns the cycle
  // the transfer arrives.
  uint64_t send(unsigned in, unsigned out, unsigned bytes, uint64_t now) {
    const uint64_t start = std::max({now, in_free_[in], out_free_[out]});
    const auto cycles = static_cast<uint64_t>(std::ceil(bytes / bytes_per_cycle_));
    in_free_[in] = out_free_[out] = start + cycles;
    bytes_ += bytes;
    return start + cycles + latency_;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  std::vector<uint64_t> in_free_, out_free_;
  double bytes_per_cycle_;
  unsigned latency_;
  uint64_t bytes_ = 0;
};

}  // namespace tessera::gpu
