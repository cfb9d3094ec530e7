/* Tessera vector types and wide loads and stores for SM kernels (C11).
 *
 *   float2 float4 int2 int4 uint2 uint4     CUDA's vector types: members x, y
 *                                          (z, w), aligned to their size (8, 16)
 *   make_float2(x, y) ... make_uint4(x, y, z, w)
 *   tessera_ld_float4(p)  tessera_st_float4(p, v)   and the same for float2,
 *   int2, int4, uint2, uint4: one ld.v2/ld.v4/fld.v2/fld.v4 (st, fst) each
 *
 * A wide load or store moves the whole element in one instruction: a warp's
 * 16-byte loads of consecutive elements are 512 bytes in 4 full lines, and
 * in shared memory a 64-bit access takes one pass per half-warp, a 128-bit
 * one per quarter-warp (docs/firmware-abi.md, "Wide memory instructions").
 * The address must be aligned to the element's size (a misaligned one
 * faults). They are SM instructions: a control core that runs one stops with
 * an illegal instruction.
 *
 * Register groups: the 2-wide integer forms use a uint64_t operand (GCC puts
 * it in two consecutive registers, low word first); the 4-wide integer forms
 * use t3..t6 (x28..x31) and the float forms ft8..ft11 (f28..f31). */
#ifndef TESSERA_VEC_H
#define TESSERA_VEC_H

#include <stdint.h>

typedef struct __attribute__((aligned(8))) {
  float x, y;
} float2;
typedef struct __attribute__((aligned(16))) {
  float x, y, z, w;
} float4;
typedef struct __attribute__((aligned(8))) {
  int x, y;
} int2;
typedef struct __attribute__((aligned(16))) {
  int x, y, z, w;
} int4;
typedef struct __attribute__((aligned(8))) {
  unsigned x, y;
} uint2;
typedef struct __attribute__((aligned(16))) {
  unsigned x, y, z, w;
} uint4;

#define TESSERA_VEC_INLINE static inline __attribute__((always_inline))

TESSERA_VEC_INLINE float2 make_float2(float x, float y) { return (float2){x, y}; }
TESSERA_VEC_INLINE float4 make_float4(float x, float y, float z, float w) { return (float4){x, y, z, w}; }
TESSERA_VEC_INLINE int2 make_int2(int x, int y) { return (int2){x, y}; }
TESSERA_VEC_INLINE int4 make_int4(int x, int y, int z, int w) { return (int4){x, y, z, w}; }
TESSERA_VEC_INLINE uint2 make_uint2(unsigned x, unsigned y) { return (uint2){x, y}; }
TESSERA_VEC_INLINE uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return (uint4){x, y, z, w}; }

/* ---- the instructions, on raw register groups ---- */

/* ld.v2 / st.v2: a register pair as one uint64_t. */
TESSERA_VEC_INLINE uint64_t tessera_ld_v2(const void* p) {
  uint64_t v;
  __asm__ volatile(".insn i 0x5B, 0, %0, 0(%1)" : "=r"(v) : "r"(p), "m"(*(const uint64_t*)p));
  return v;
}
TESSERA_VEC_INLINE void tessera_st_v2(void* p, uint64_t v) {
  __asm__ volatile(".insn s 0x5B, 4, %1, 0(%2)" : "=m"(*(uint64_t*)p) : "r"(v), "r"(p));
}

/* ld.v4 / st.v4 through x28..x31. */
TESSERA_VEC_INLINE uint4 tessera_ld_v4(const void* p) {
  register uint32_t a __asm__("x28");
  register uint32_t b __asm__("x29");
  register uint32_t c __asm__("x30");
  register uint32_t d __asm__("x31");
  __asm__ volatile(".insn i 0x5B, 1, x28, 0(%4)" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(p), "m"(*(const uint4*)p));
  return (uint4){a, b, c, d};
}
TESSERA_VEC_INLINE void tessera_st_v4(void* p, uint4 v) {
  register uint32_t a __asm__("x28") = v.x;
  register uint32_t b __asm__("x29") = v.y;
  register uint32_t c __asm__("x30") = v.z;
  register uint32_t d __asm__("x31") = v.w;
  __asm__ volatile(".insn s 0x5B, 5, x28, 0(%5)" : "=m"(*(uint4*)p) : "r"(a), "r"(b), "r"(c), "r"(d), "r"(p));
}

/* ---- typed helpers ---- */

TESSERA_VEC_INLINE uint2 tessera_ld_uint2(const uint2* p) {
  const uint64_t v = tessera_ld_v2(p);
  return (uint2){(unsigned)v, (unsigned)(v >> 32)};
}
TESSERA_VEC_INLINE void tessera_st_uint2(uint2* p, uint2 v) { tessera_st_v2(p, (uint64_t)v.y << 32 | v.x); }
TESSERA_VEC_INLINE int2 tessera_ld_int2(const int2* p) {
  const uint64_t v = tessera_ld_v2(p);
  return (int2){(int)(uint32_t)v, (int)(uint32_t)(v >> 32)};
}
TESSERA_VEC_INLINE void tessera_st_int2(int2* p, int2 v) {
  tessera_st_v2(p, (uint64_t)(uint32_t)v.y << 32 | (uint32_t)v.x);
}

TESSERA_VEC_INLINE uint4 tessera_ld_uint4(const uint4* p) { return tessera_ld_v4(p); }
TESSERA_VEC_INLINE void tessera_st_uint4(uint4* p, uint4 v) { tessera_st_v4(p, v); }
TESSERA_VEC_INLINE int4 tessera_ld_int4(const int4* p) {
  const uint4 v = tessera_ld_v4(p);
  return (int4){(int)v.x, (int)v.y, (int)v.z, (int)v.w};
}
TESSERA_VEC_INLINE void tessera_st_int4(int4* p, int4 v) {
  tessera_st_v4(p, (uint4){(unsigned)v.x, (unsigned)v.y, (unsigned)v.z, (unsigned)v.w});
}

/* fld.v2 / fst.v2 through f28, f29; fld.v4 / fst.v4 through f28..f31. */
TESSERA_VEC_INLINE float2 tessera_ld_float2(const float2* p) {
  register float a __asm__("f28");
  register float b __asm__("f29");
  __asm__ volatile(".insn i 0x5B, 2, f28, 0(%2)" : "=f"(a), "=f"(b) : "r"(p), "m"(*p));
  return (float2){a, b};
}
TESSERA_VEC_INLINE void tessera_st_float2(float2* p, float2 v) {
  register float a __asm__("f28") = v.x;
  register float b __asm__("f29") = v.y;
  __asm__ volatile(".insn s 0x5B, 6, f28, 0(%3)" : "=m"(*p) : "f"(a), "f"(b), "r"(p));
}
TESSERA_VEC_INLINE float4 tessera_ld_float4(const float4* p) {
  register float a __asm__("f28");
  register float b __asm__("f29");
  register float c __asm__("f30");
  register float d __asm__("f31");
  __asm__ volatile(".insn i 0x5B, 3, f28, 0(%4)" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "r"(p), "m"(*p));
  return (float4){a, b, c, d};
}
TESSERA_VEC_INLINE void tessera_st_float4(float4* p, float4 v) {
  register float a __asm__("f28") = v.x;
  register float b __asm__("f29") = v.y;
  register float c __asm__("f30") = v.z;
  register float d __asm__("f31") = v.w;
  __asm__ volatile(".insn s 0x5B, 7, f28, 0(%5)" : "=m"(*p) : "f"(a), "f"(b), "f"(c), "f"(d), "r"(p));
}

#endif /* TESSERA_VEC_H */
