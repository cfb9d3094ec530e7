// The cluster's memory side on the chip's global memory: lines are read and
// written in sim::BackingMemory (where the SMs' L2 path also ends) behind a
// fixed read latency that stands for the L2 path. The L2 is not coherent
// with the cluster; the control cores write back and invalidate their caches
// at kernel-launch coherence points instead (docs/coherence.md).
#pragma once

#include <stdexcept>

#include <fmt/format.h>

#include "mem/memory_side.h"
#include "sim/backing_memory.h"

namespace tessera::mem {

class BackingMemorySide final : public MemorySide {
 public:
  BackingMemorySide(sim::BackingMemory& memory, uint32_t read_latency) : memory_(memory), latency_(read_latency) {}

  bool contains(uint64_t addr, uint64_t bytes) const override {
    return addr <= 0xFFFFFFFFu && memory_.contains(static_cast<uint32_t>(addr), bytes);
  }
  void read_line(uint64_t addr, uint8_t* out, uint32_t bytes) override {
    if (!contains(addr, bytes) || !memory_.read(static_cast<uint32_t>(addr), out, bytes))
      throw std::out_of_range(fmt::format("cluster line read at {:#x} is outside global memory", addr));
  }
  void write_line(uint64_t addr, const uint8_t* data, uint32_t bytes) override {
    if (!contains(addr, bytes) || !memory_.write(static_cast<uint32_t>(addr), data, bytes))
      throw std::out_of_range(fmt::format("cluster line write at {:#x} is outside global memory", addr));
  }
  uint32_t read_latency() const override { return latency_; }

 private:
  sim::BackingMemory& memory_;
  uint32_t latency_;
};

}  // namespace tessera::mem
