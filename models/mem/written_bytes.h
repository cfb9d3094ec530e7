// The bytes of each line the control cores have written since that line
// last reached memory. The cluster's write-backs carry whole lines, but the
// SMs write global memory behind the cluster's back between kernel-launch
// coherence points (docs/coherence.md, "Write-backs write only written
// bytes"): a line a core holds may have bytes a running kernel wrote since
// the core read it. A write-back therefore writes only the bytes a core
// wrote, so it never overwrites another agent's bytes with a stale copy.
//
// The record is kept for the cluster as a whole, not per cache: a dirty
// line moves between caches (cache-to-cache transfers, O and Sm owners),
// but exactly one copy is written back, and the record goes with it.
// Pure logic, no SystemC.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace tessera::mem {

class WrittenBytes {
 public:
  static constexpr uint32_t kMaxLineBytes = 1024;  // cluster.l1d.line_bytes' limit
  using Mask = std::array<uint64_t, kMaxLineBytes / 64>;

  // line_bytes: a power of two from 4 to kMaxLineBytes.
  explicit WrittenBytes(uint32_t line_bytes);

  // A store of `size` bytes at `addr` (inside one line) was performed.
  void mark(uint64_t addr, uint32_t size);
  // Whether byte `offset` of `line` has been written since the line last
  // reached memory.
  bool written(uint64_t line, uint32_t offset) const;
  // Lines with at least one written byte.
  size_t lines() const { return masks_.size(); }

  // The line reaches memory: its written bytes into `mask`, forgotten here;
  // false (mask unchanged) when none was written.
  bool take(uint64_t line, Mask& mask);
  // How many bytes `mask` names; whether that is the whole line.
  static uint32_t count(const Mask& mask);
  bool whole_line(const Mask& mask) const { return count(mask) == line_bytes_; }
  // Copies the bytes of `data` that `mask` names into `memory_line` (both
  // a line long).
  void merge(const Mask& mask, const uint8_t* data, uint8_t* memory_line) const;

 private:
  uint32_t line_bytes_;
  std::unordered_map<uint64_t, Mask> masks_;
  // The line stores hit last: runs of stores to one line skip the lookup
  // (a map's element stays where it is until it is erased).
  uint64_t last_line_ = ~uint64_t{0};
  Mask* last_mask_ = nullptr;
};

}  // namespace tessera::mem
