/*
 * tessera_warp.h - CUDA warp-level primitives for Tessera kernels (C11),
 * included by tessera.h. The instructions behind them are custom-0 funct3 2
 * and 3 (docs/firmware-abi.md, "Warp-level instructions").
 *
 *   __shfl_sync(mask, var, srcLane[, width])   __shfl_up_sync(mask, var, delta[, width])
 *   __shfl_down_sync(mask, var, delta[, width]) __shfl_xor_sync(mask, var, laneMask[, width])
 *     var: int, unsigned, long, unsigned long, float (one shuffle), long long,
 *     unsigned long long, double (two); width a power of two up to 32
 *     (default 32). A source outside the caller's width segment, inactive,
 *     or not in the caller's mask gives the caller's own var.
 *   __ballot_sync(mask, pred) __any_sync(mask, pred) __all_sync(mask, pred)
 *   __activemask()  __syncwarp([mask])
 *   __syncthreads_count(pred) __syncthreads_and(pred) __syncthreads_or(pred)
 *   __threadfence_block()
 *
 * As in CUDA, each calling lane must be in its mask and every lane the mask
 * names (that has not exited) must execute the same call; the simulator
 * stops with an error naming the lanes otherwise.
 */
#ifndef TESSERA_WARP_H
#define TESSERA_WARP_H

#define TESSERA_WARP_INLINE static inline __attribute__((always_inline))

/* ---- shuffles: .insn r4 0x0B, 2, mode, rd, var, c, mask ---------------- */
/* c: bits 4:0 the lane, delta or xor mask; bits 12:8 the segment mask
 * 32 - width (PTX shfl.sync's c operand, moved beside b). */

#define TESSERA_SHFL_IDX 0
#define TESSERA_SHFL_UP 1
#define TESSERA_SHFL_DOWN 2
#define TESSERA_SHFL_XOR 3

#define TESSERA_SHFL_ASM_(mode, d, v, c, m) \
  __asm__ volatile(".insn r4 0x0B, 2, " #mode ", %0, %1, %2, %3" : "=r"(d) : "r"(v), "r"(c), "r"(m))

TESSERA_WARP_INLINE unsigned tessera_shfl_(int mode, unsigned mask, unsigned var, int lane, int width) {
  const unsigned c = ((unsigned)lane & 31u) | (((32u - (unsigned)width) & 31u) << 8);
  unsigned d;
  switch (mode) {
    case TESSERA_SHFL_IDX:
      TESSERA_SHFL_ASM_(0, d, var, c, mask);
      break;
    case TESSERA_SHFL_UP:
      TESSERA_SHFL_ASM_(1, d, var, c, mask);
      break;
    case TESSERA_SHFL_DOWN:
      TESSERA_SHFL_ASM_(2, d, var, c, mask);
      break;
    default:
      TESSERA_SHFL_ASM_(3, d, var, c, mask);
      break;
  }
  return d;
}

TESSERA_WARP_INLINE int tessera_shfl_i_(int mode, unsigned mask, int var, int lane, int width) {
  return (int)tessera_shfl_(mode, mask, (unsigned)var, lane, width);
}
TESSERA_WARP_INLINE unsigned tessera_shfl_u_(int mode, unsigned mask, unsigned var, int lane, int width) {
  return tessera_shfl_(mode, mask, var, lane, width);
}
TESSERA_WARP_INLINE long tessera_shfl_l_(int mode, unsigned mask, long var, int lane, int width) {
  return (long)tessera_shfl_(mode, mask, (unsigned)var, lane, width);
}
TESSERA_WARP_INLINE unsigned long tessera_shfl_ul_(int mode, unsigned mask, unsigned long var, int lane, int width) {
  return tessera_shfl_(mode, mask, (unsigned)var, lane, width);
}
TESSERA_WARP_INLINE float tessera_shfl_f_(int mode, unsigned mask, float var, int lane, int width) {
  union {
    float f;
    unsigned u;
  } c = {.f = var};
  c.u = tessera_shfl_(mode, mask, c.u, lane, width);
  return c.f;
}
/* 64-bit values: two shuffles of the halves, as CUDA does. */
TESSERA_WARP_INLINE unsigned long long tessera_shfl_ull_(int mode, unsigned mask, unsigned long long var, int lane,
                                                         int width) {
  const unsigned lo = tessera_shfl_(mode, mask, (unsigned)var, lane, width);
  const unsigned hi = tessera_shfl_(mode, mask, (unsigned)(var >> 32), lane, width);
  return (unsigned long long)hi << 32 | lo;
}
TESSERA_WARP_INLINE long long tessera_shfl_ll_(int mode, unsigned mask, long long var, int lane, int width) {
  return (long long)tessera_shfl_ull_(mode, mask, (unsigned long long)var, lane, width);
}
TESSERA_WARP_INLINE double tessera_shfl_d_(int mode, unsigned mask, double var, int lane, int width) {
  union {
    double d;
    unsigned long long u;
  } c = {.d = var};
  c.u = tessera_shfl_ull_(mode, mask, c.u, lane, width);
  return c.d;
}

#ifndef __cplusplus /* C++: overloads in tessera_cxx.h */
/* The function for var's type (char and short promote to int). */
#define TESSERA_SHFL_T_(var)                      \
  _Generic((var) + 0, float                       \
           : tessera_shfl_f_, double              \
           : tessera_shfl_d_, unsigned            \
           : tessera_shfl_u_, long                \
           : tessera_shfl_l_, unsigned long       \
           : tessera_shfl_ul_, long long          \
           : tessera_shfl_ll_, unsigned long long \
           : tessera_shfl_ull_, default           \
           : tessera_shfl_i_)
/* width is optional: the first extra argument after the lane, else 32. */
#define TESSERA_SHFL_PICK_(mode, mask, var, lane, width, ...) \
  TESSERA_SHFL_T_(var)(mode, (unsigned)(mask), (var), (int)(lane), (int)(width))

#define __shfl_sync(mask, var, ...) TESSERA_SHFL_PICK_(TESSERA_SHFL_IDX, mask, var, __VA_ARGS__, 32, 0)
#define __shfl_up_sync(mask, var, ...) TESSERA_SHFL_PICK_(TESSERA_SHFL_UP, mask, var, __VA_ARGS__, 32, 0)
#define __shfl_down_sync(mask, var, ...) TESSERA_SHFL_PICK_(TESSERA_SHFL_DOWN, mask, var, __VA_ARGS__, 32, 0)
#define __shfl_xor_sync(mask, var, ...) TESSERA_SHFL_PICK_(TESSERA_SHFL_XOR, mask, var, __VA_ARGS__, 32, 0)
#endif

/* ---- votes: .insn r 0x0B, 3, funct7, rd, pred, mask --------------------- */

/* Bit j set for each active lane j in mask whose pred is non-zero. */
TESSERA_WARP_INLINE unsigned __ballot_sync(unsigned mask, int pred) {
  unsigned d;
  __asm__ volatile(".insn r 0x0B, 3, 0, %0, %1, %2" : "=r"(d) : "r"(pred), "r"(mask));
  return d;
}
/* Non-zero when pred is non-zero for any active lane of mask. */
TESSERA_WARP_INLINE int __any_sync(unsigned mask, int pred) {
  int d;
  __asm__ volatile(".insn r 0x0B, 3, 1, %0, %1, %2" : "=r"(d) : "r"(pred), "r"(mask));
  return d;
}
/* Non-zero when pred is non-zero for every active lane of mask. */
TESSERA_WARP_INLINE int __all_sync(unsigned mask, int pred) {
  int d;
  __asm__ volatile(".insn r 0x0B, 3, 2, %0, %1, %2" : "=r"(d) : "r"(pred), "r"(mask));
  return d;
}
/* The lanes of the warp executing this call together. */
TESSERA_WARP_INLINE unsigned __activemask(void) {
  unsigned d;
  __asm__ volatile(".insn r 0x0B, 3, 3, %0, x0, x0" : "=r"(d));
  return d;
}

/* ---- synchronization ---------------------------------------------------- */

TESSERA_WARP_INLINE void tessera_syncwarp_(unsigned mask) {
  __asm__ volatile(".insn r 0x0B, 3, 4, x0, %0, x0" ::"r"(mask) : "memory");
}
/* The calling lane waits until every lane of mask (default all 32) that has
 * not exited reaches a __syncwarp; also orders their memory accesses. */
#ifndef __cplusplus /* C++: a default argument in tessera_cxx.h */
#define __syncwarp(...) \
  tessera_syncwarp_(    \
      (unsigned[]){0xffffffffu, __VA_ARGS__}[sizeof((unsigned[]){0xffffffffu, __VA_ARGS__}) / sizeof(unsigned) - 1])
#endif

/* __syncthreads() that also returns, to every thread of the block, the
 * number of threads whose pred is non-zero / whether all / any are. */
TESSERA_WARP_INLINE int __syncthreads_count(int pred) {
  int d;
  __asm__ volatile(".insn r 0x0B, 3, 5, %0, %1, x0" : "=r"(d) : "r"(pred) : "memory");
  return d;
}
TESSERA_WARP_INLINE int __syncthreads_and(int pred) {
  int d;
  __asm__ volatile(".insn r 0x0B, 3, 6, %0, %1, x0" : "=r"(d) : "r"(pred) : "memory");
  return d;
}
TESSERA_WARP_INLINE int __syncthreads_or(int pred) {
  int d;
  __asm__ volatile(".insn r 0x0B, 3, 7, %0, %1, x0" : "=r"(d) : "r"(pred) : "memory");
  return d;
}

/* Orders this thread's memory accesses as seen by its block (membar.cta). */
TESSERA_WARP_INLINE void __threadfence_block(void) { __asm__ volatile(".insn r 0x0B, 3, 8, x0, x0, x0" ::: "memory"); }

#endif /* TESSERA_WARP_H */
