#include "sim/backing_memory.h"

#include <algorithm>
#include <stdexcept>

namespace tessera::sim {

BackingMemory::BackingMemory(uint32_t base, uint64_t size_bytes) : base_(base), size_(size_bytes) {
  if (static_cast<uint64_t>(base) + size_bytes > (1ull << 32))
    throw std::invalid_argument("memory region extends beyond the 32-bit address space");
  pages_.resize((size_bytes + kPageSize - 1) >> kPageBits);
}

bool BackingMemory::read(uint32_t addr, void* dst, uint64_t bytes) {
  if (!contains(addr, bytes)) return false;
  auto* out = static_cast<uint8_t*>(dst);
  while (bytes) {
    const uint32_t offset = (addr - base_) & (kPageSize - 1);
    const uint64_t chunk = std::min<uint64_t>(bytes, kPageSize - offset);
    std::memcpy(out, page(addr) + offset, chunk);
    out += chunk;
    addr += static_cast<uint32_t>(chunk);
    bytes -= chunk;
  }
  return true;
}

bool BackingMemory::write(uint32_t addr, const void* src, uint64_t bytes) {
  if (!contains(addr, bytes)) return false;
  const auto* in = static_cast<const uint8_t*>(src);
  if (!reservations_.empty() && bytes) {
    const uint64_t last = (uint64_t{addr} + bytes - 1) & ~uint64_t{3};
    for (uint64_t word = addr & ~3u; word <= last && !reservations_.empty(); word += 4)
      break_reservations(static_cast<uint32_t>(word));
  }
  while (bytes) {
    const uint32_t offset = (addr - base_) & (kPageSize - 1);
    const uint64_t chunk = std::min<uint64_t>(bytes, kPageSize - offset);
    std::memcpy(page(addr) + offset, in, chunk);
    in += chunk;
    addr += static_cast<uint32_t>(chunk);
    bytes -= chunk;
  }
  return true;
}

void BackingMemory::reserve(uint32_t owner, uint32_t addr) {
  for (auto& r : reservations_) {
    if (r.owner == owner) {
      r.addr = addr;
      return;
    }
  }
  reservations_.push_back(Reservation{owner, addr});
}

bool BackingMemory::take_reservation(uint32_t owner, uint32_t addr) {
  for (size_t i = 0; i < reservations_.size(); ++i) {
    if (reservations_[i].owner != owner) continue;
    const bool held = reservations_[i].addr == addr;
    reservations_.erase(reservations_.begin() + static_cast<std::ptrdiff_t>(i));
    return held;
  }
  return false;
}

void BackingMemory::break_reservations(uint32_t addr) {
  const uint32_t word = addr & ~3u;
  reservations_.erase(std::remove_if(reservations_.begin(), reservations_.end(),
                                     [word](const Reservation& r) { return (r.addr & ~3u) == word; }),
                      reservations_.end());
}

uint64_t BackingMemory::pages_allocated() const {
  return static_cast<uint64_t>(std::count_if(pages_.begin(), pages_.end(), [](const auto& p) { return p != nullptr; }));
}

void BackingMemory::clear() {
  for (auto& p : pages_) p.reset();
  reservations_.clear();
}

}  // namespace tessera::sim
