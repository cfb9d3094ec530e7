// The cluster's path to the rest of the chip: whole lines read and written
// behind a latency. The random tester uses SimpleMemory; the platform
// implements it on the L2 path.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::mem {

class MemorySide {
 public:
  virtual ~MemorySide() = default;
  // Whether [addr, addr+bytes) is backed; accesses outside are refused at
  // issue with an error naming the address.
  virtual bool contains(uint64_t addr, uint64_t bytes) const = 0;
  virtual void read_line(uint64_t addr, uint8_t* out, uint32_t bytes) = 0;
  virtual void write_line(uint64_t addr, const uint8_t* data, uint32_t bytes) = 0;
  // Cycles from a read being accepted to its data being ready to send.
  virtual uint32_t read_latency() const = 0;
};

// A byte array at [base, base+size) with a fixed read latency.
class SimpleMemory final : public MemorySide {
 public:
  SimpleMemory(uint64_t base, uint64_t size, uint32_t read_latency)
      : base_(base), bytes_(size, 0), latency_(read_latency) {}
  bool contains(uint64_t addr, uint64_t bytes) const override {
    return addr >= base_ && addr - base_ + bytes <= bytes_.size();
  }
  void read_line(uint64_t addr, uint8_t* out, uint32_t bytes) override {
    std::memcpy(out, &bytes_.at(addr - base_), bytes);
  }
  void write_line(uint64_t addr, const uint8_t* data, uint32_t bytes) override {
    std::memcpy(&bytes_.at(addr - base_), data, bytes);
  }
  uint32_t read_latency() const override { return latency_; }

 private:
  uint64_t base_;
  std::vector<uint8_t> bytes_;
  uint32_t latency_;
};

}  // namespace tessera::mem
