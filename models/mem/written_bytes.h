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

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tessera::mem {

class WrittenBytes {
 public:
  // line_bytes: a power of two of at least 4 (mem::CacheGeometry's rule).
  explicit WrittenBytes(uint32_t line_bytes);

  // A store of `size` bytes at `addr` (inside one line) was performed.
  void mark(uint64_t addr, uint32_t size);
  // Whether byte `offset` of `line` has been written since the line last
  // reached memory.
  bool written(uint64_t line, uint32_t offset) const;
  // Lines with at least one written byte.
  size_t lines() const { return masks_.size(); }

  // The line reaches memory: copies into `memory_line` (the line as memory
  // holds it, line_bytes long) the written bytes of `data`, forgets them,
  // and returns how many bytes were copied (0: memory_line is unchanged,
  // line_bytes: all of data).
  uint32_t merge_and_forget(uint64_t line, const uint8_t* data, uint8_t* memory_line);

 private:
  uint32_t line_bytes_;
  uint32_t words_;  // 64-bit mask words per line
  std::unordered_map<uint64_t, std::vector<uint64_t>> masks_;
};

}  // namespace tessera::mem
