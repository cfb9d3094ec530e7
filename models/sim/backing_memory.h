// Guest memory: a sparse array of 64 KiB pages covering [base, base + size),
// allocated on first touch and zero-filled. Every access is bounds-checked, so
// guest addresses can never reach host memory. Also holds the LR/SC
// reservations, because any store to a reserved word must break them.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace tessera::sim {

class BackingMemory {
 public:
  static constexpr unsigned kPageBits = 16;
  static constexpr uint32_t kPageSize = 1u << kPageBits;

  BackingMemory(uint32_t base, uint64_t size_bytes);

  uint32_t base() const { return base_; }
  uint64_t size() const { return size_; }
  bool contains(uint32_t addr, uint64_t bytes) const {
    return addr >= base_ && static_cast<uint64_t>(addr - base_) + bytes <= size_;
  }

  // Both return false (and touch nothing) when any byte is outside.
  bool read(uint32_t addr, void* dst, uint64_t bytes);
  bool write(uint32_t addr, const void* src, uint64_t bytes);

  // Aligned word/half/byte access for the executors (caller checked contains).
  uint32_t load(uint32_t addr, unsigned bytes) {
    const uint8_t* p = page(addr) + ((addr - base_) & (kPageSize - 1));
    uint32_t v = 0;
    std::memcpy(&v, p, bytes);
    return v;
  }
  void store(uint32_t addr, unsigned bytes, uint32_t value) {
    if (!reservations_.empty()) break_reservations(addr);
    uint8_t* p = page(addr) + ((addr - base_) & (kPageSize - 1));
    std::memcpy(p, &value, bytes);
  }

  // LR/SC: a reservation per owner (a core, or an SM thread's global id).
  void reserve(uint32_t owner, uint32_t addr);
  // True when owner still holds a reservation on addr; clears owner's.
  bool take_reservation(uint32_t owner, uint32_t addr);

  uint64_t pages_allocated() const;
  // Checkpoints: the pages (kPageSize bytes each, index 0 at base), null for
  // one never touched; clear() forgets every page and reservation.
  uint64_t page_count() const { return pages_.size(); }
  const uint8_t* page_data(uint64_t index) const { return pages_[index].get(); }
  void clear();

 private:
  uint8_t* page(uint32_t addr) {
    auto& p = pages_[(addr - base_) >> kPageBits];
    if (!p) p = std::make_unique<uint8_t[]>(kPageSize);  // value-initialised: zero
    return p.get();
  }
  void break_reservations(uint32_t addr);

  uint32_t base_;
  uint64_t size_;
  std::vector<std::unique_ptr<uint8_t[]>> pages_;
  struct Reservation {
    uint32_t owner;
    uint32_t addr;
  };
  std::vector<Reservation> reservations_;
};

}  // namespace tessera::sim
