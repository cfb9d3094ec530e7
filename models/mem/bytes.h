// Little-endian values of 1 to 4 bytes in a line's bytes: the cluster's
// caches, write buffers and functional accesses hold lines as bytes, and
// RISC-V is little-endian.
#pragma once

#include <cstdint>

namespace tessera::mem {

inline uint32_t read_le(const uint8_t* p, uint32_t size) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < size; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

inline void write_le(uint8_t* p, uint32_t size, uint32_t value) {
  for (uint32_t i = 0; i < size; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace tessera::mem
