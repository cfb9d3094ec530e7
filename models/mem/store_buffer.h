// A FIFO of committed stores waiting to be written to the L1 (TSO, as in
// x86 and RVTSO): stores leave in program order; a later load to the same
// bytes reads the youngest buffered value.
#pragma once

#include <cstdint>
#include <deque>

namespace tessera::mem {

struct BufferedStore {
  uint64_t addr;
  uint32_t size;  // 1, 2 or 4 bytes
  uint32_t value;
};

class StoreBuffer {
 public:
  explicit StoreBuffer(uint32_t capacity) : capacity_(capacity) {}

  enum class Forward { kMiss, kHit, kPartial };
  struct ForwardResult {
    Forward kind = Forward::kMiss;
    uint32_t value = 0;
  };
  // kHit when the youngest store touching [addr, addr+size) covers it all
  // (value extracted from it); kPartial when a buffered store overlaps but
  // does not cover it: the load waits until the buffer drains past it.
  ForwardResult forward(uint64_t addr, uint32_t size) const;

  bool full() const { return entries_.size() >= capacity_; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  uint32_t capacity() const { return capacity_; }
  void push(const BufferedStore& s) { entries_.push_back(s); }
  const BufferedStore& front() const { return entries_.front(); }
  void pop() { entries_.pop_front(); }
  const std::deque<BufferedStore>& entries() const { return entries_; }

 private:
  uint32_t capacity_;
  std::deque<BufferedStore> entries_;
};

inline StoreBuffer::ForwardResult StoreBuffer::forward(uint64_t addr, uint32_t size) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const bool overlaps = it->addr < addr + size && addr < it->addr + it->size;
    if (!overlaps) continue;
    if (it->addr <= addr && addr + size <= it->addr + it->size) {
      const uint32_t shift = static_cast<uint32_t>(addr - it->addr) * 8;
      const uint32_t mask = size == 4 ? 0xffffffffu : ((1u << (size * 8)) - 1);
      return {Forward::kHit, (it->value >> shift) & mask};
    }
    return {Forward::kPartial, 0};
  }
  return {};
}

}  // namespace tessera::mem
