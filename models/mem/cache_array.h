// A set-associative array of cache lines holding real data, with LRU
// replacement. Pure logic: the coherence controller decides what the states
// mean; the array only stores them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mem/coherence_protocol.h"

namespace tessera::mem {

struct CacheGeometry {
  uint32_t size_bytes = 0;
  uint32_t ways = 0;
  uint32_t line_bytes = 0;
  uint32_t sets = 0;

  // Validates that size / (ways * line) is a whole power-of-two number of
  // sets and the line a power of two of at least 4 bytes; throws
  // sim::ConfigError naming `key_prefix`.size_kb / .ways / .line_bytes.
  static CacheGeometry make(const std::string& key_prefix, uint32_t size_bytes, uint32_t ways, uint32_t line_bytes);
};

class CacheArray {
 public:
  struct Line {
    State state = State::kI;
    uint64_t line_addr = 0;  // address of the line's first byte
    uint64_t last_use = 0;   // LRU stamp
    bool reserved = false;   // way held for an outstanding fill of line_addr
    bool pinned = false;     // in a running transaction's read or write set: never a victim
  };

  explicit CacheArray(const CacheGeometry& geometry);

  const CacheGeometry& geometry() const { return geometry_; }
  uint64_t line_of(uint64_t addr) const { return addr & ~static_cast<uint64_t>(geometry_.line_bytes - 1); }
  uint32_t set_of(uint64_t addr) const {
    return static_cast<uint32_t>((addr / geometry_.line_bytes) & (geometry_.sets - 1));
  }

  // The way holding (or reserved for) the line, or -1.
  int find(uint64_t line_addr) const;
  // State of the line, kI when absent.
  State state_of(uint64_t line_addr) const;
  // A way of the line's set to refill: an unused one, else the least
  // recently used one neither reserved nor pinned; -1 when there is none.
  // pinned_set(): every way of the set is pinned (a transaction's capacity).
  int victim(uint64_t line_addr) const;
  bool pinned_set(uint64_t line_addr) const;

  Line& line(int way_index) { return lines_[static_cast<size_t>(way_index)]; }
  const Line& line(int way_index) const { return lines_[static_cast<size_t>(way_index)]; }
  uint8_t* data(int way_index) { return &data_[static_cast<size_t>(way_index) * geometry_.line_bytes]; }
  const uint8_t* data(int way_index) const { return &data_[static_cast<size_t>(way_index) * geometry_.line_bytes]; }
  size_t num_lines() const { return lines_.size(); }

 private:
  CacheGeometry geometry_;
  std::vector<Line> lines_;
  std::vector<uint8_t> data_;
};

}  // namespace tessera::mem
