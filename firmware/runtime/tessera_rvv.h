/* Vector routines for the control cores' vector units (RISC-V "V" 1.0,
 * docs/vector.md), in C11 with inline assembly: GCC 12 has no vector
 * intrinsics, and firmware is built for rv32imafd, so every block switches
 * the assembler to +v itself (TESSERA_RVV). GCC does not know the vector
 * registers, so no vector register is live between two asm statements:
 * each strip of a strip-mined loop is one block.
 *
 *   tessera_rvv_vlenb()             VLEN/8 (the vlenb CSR)
 *   tessera_rvv_vlmax(sew)          elements per register at SEW bits, LMUL 1
 *   tessera_saxpy_f32(n, a, x, y)   y[i] = a * x[i] + y[i] (fused, vfmacc.vf)
 *   tessera_vadd_u8/u16/u32(n, a, b, c)          c[i] = a[i] + b[i] (wrapping)
 *   tessera_dot_f32(n, x, y), tessera_dot_u32    sum of x[i] * y[i] (vfredusum / vredsum)
 *   tessera_column_sum_u8/u16/u32(rows, cols, m, j)  sum of column j of a row-major
 *                                   matrix: a strided load (vlse) per strip
 *   tessera_masked_sub_u8/u16/u32(n, a, b)       if (a[i] != 0) a[i] -= b[i] (v0.t)
 *   tessera_sparse_add_u32(n, a, k, c, m)        a[k[i]] += c[m[i]] with gather and
 *                                   scatter (vluxei32 / vsuxei32); the k[i] of one call distinct
 *   tessera_matmul_f32(n, a, b, c)  c = a x b (n x n, row-major): each strip of a row
 *                                   of c accumulates b's rows scaled by a[i][k] (vfmacc.vf)
 *
 * Every loop is strip-mined: vsetvli sets the vector-length register to
 * min(remaining, VLMAX) each strip. A core without a vector unit stops at
 * the first vector instruction with an illegal-instruction fault. */
#ifndef TESSERA_RVV_H
#define TESSERA_RVV_H

#include <stdint.h>

#define TESSERA_RVV(body) ".option push\n\t.option arch,+v\n\t" body "\n\t.option pop"

static inline unsigned tessera_rvv_vlenb(void) {
  unsigned r;
  __asm__ volatile(TESSERA_RVV("csrr %0, vlenb") : "=r"(r));
  return r;
}

static inline unsigned tessera_rvv_vlmax(unsigned sew) { return tessera_rvv_vlenb() * 8u / sew; }

static inline void tessera_saxpy_f32(unsigned n, float a, const float* x, float* y) {
  for (unsigned vl; n > 0; n -= vl, x += vl, y += vl)
    __asm__ volatile(TESSERA_RVV("vsetvli %0,%1,e32,m1,ta,ma\n\t"
                                 "vle32.v v1,(%2)\n\t"
                                 "vle32.v v2,(%3)\n\t"
                                 "vfmacc.vf v2,%4,v1\n\t"
                                 "vse32.v v2,(%3)")
                     : "=&r"(vl)
                     : "r"(n), "r"(x), "r"(y), "f"(a)
                     : "memory");
}

/* The integer routines at one SEW: T the element type, S the width in bits. */
#define TESSERA_RVV_INT_ROUTINES(T, S)                                                            \
  static inline void tessera_vadd_u##S(unsigned n, const T* a, const T* b, T* c) {                \
    for (unsigned vl; n > 0; n -= vl, a += vl, b += vl, c += vl)                                  \
      __asm__ volatile(TESSERA_RVV("vsetvli %0,%1,e" #S ",m1,ta,ma\n\t"                           \
                                   "vle" #S ".v v1,(%2)\n\t"                                      \
                                   "vle" #S ".v v2,(%3)\n\t"                                      \
                                   "vadd.vv v3,v1,v2\n\t"                                         \
                                   "vse" #S ".v v3,(%4)")                                         \
                       : "=&r"(vl)                                                                \
                       : "r"(n), "r"(a), "r"(b), "r"(c)                                           \
                       : "memory");                                                               \
  }                                                                                               \
  static inline T tessera_column_sum_u##S(unsigned rows, unsigned cols, const T* m, unsigned j) { \
    uint32_t sum = 0;                                                                             \
    const T* p = m + j;                                                                           \
    const unsigned stride = cols * sizeof(T);                                                     \
    for (unsigned vl; rows > 0; rows -= vl, p += (uint32_t)vl * cols)                             \
      __asm__ volatile(TESSERA_RVV("vsetvli %0,%2,e" #S ",m1,ta,ma\n\t"                           \
                                   "vlse" #S ".v v1,(%3),%4\n\t"                                  \
                                   "vmv.s.x v2,%1\n\t"                                            \
                                   "vredsum.vs v2,v1,v2\n\t"                                      \
                                   "vmv.x.s %1,v2")                                               \
                       : "=&r"(vl), "+r"(sum)                                                     \
                       : "r"(rows), "r"(p), "r"(stride)                                           \
                       : "memory");                                                               \
    return (T)sum;                                                                                \
  }                                                                                               \
  static inline void tessera_masked_sub_u##S(unsigned n, T* a, const T* b) {                      \
    for (unsigned vl; n > 0; n -= vl, a += vl, b += vl)                                           \
      __asm__ volatile(TESSERA_RVV("vsetvli %0,%1,e" #S ",m1,ta,mu\n\t"                           \
                                   "vle" #S ".v v1,(%2)\n\t"                                      \
                                   "vle" #S ".v v2,(%3)\n\t"                                      \
                                   "vmsne.vi v0,v1,0\n\t"                                         \
                                   "vsub.vv v1,v1,v2,v0.t\n\t"                                    \
                                   "vse" #S ".v v1,(%2)")                                         \
                       : "=&r"(vl)                                                                \
                       : "r"(n), "r"(a), "r"(b)                                                   \
                       : "memory");                                                               \
  }

TESSERA_RVV_INT_ROUTINES(uint8_t, 8)
TESSERA_RVV_INT_ROUTINES(uint16_t, 16)
TESSERA_RVV_INT_ROUTINES(uint32_t, 32)

static inline float tessera_dot_f32(unsigned n, const float* x, const float* y) {
  float sum = 0.0f;
  for (unsigned vl; n > 0; n -= vl, x += vl, y += vl)
    __asm__ volatile(TESSERA_RVV("vsetvli %0,%2,e32,m1,ta,ma\n\t"
                                 "vle32.v v1,(%3)\n\t"
                                 "vle32.v v2,(%4)\n\t"
                                 "vfmul.vv v3,v1,v2\n\t"
                                 "vfmv.s.f v4,%1\n\t"
                                 "vfredusum.vs v4,v3,v4\n\t"
                                 "vfmv.f.s %1,v4")
                     : "=&r"(vl), "+f"(sum)
                     : "r"(n), "r"(x), "r"(y)
                     : "memory");
  return sum;
}

static inline uint32_t tessera_dot_u32(unsigned n, const uint32_t* x, const uint32_t* y) {
  uint32_t sum = 0;
  for (unsigned vl; n > 0; n -= vl, x += vl, y += vl)
    __asm__ volatile(TESSERA_RVV("vsetvli %0,%2,e32,m1,ta,ma\n\t"
                                 "vle32.v v1,(%3)\n\t"
                                 "vle32.v v2,(%4)\n\t"
                                 "vmul.vv v3,v1,v2\n\t"
                                 "vmv.s.x v4,%1\n\t"
                                 "vredsum.vs v4,v3,v4\n\t"
                                 "vmv.x.s %1,v4")
                     : "=&r"(vl), "+r"(sum)
                     : "r"(n), "r"(x), "r"(y)
                     : "memory");
  return sum;
}

static inline void tessera_sparse_add_u32(unsigned n, uint32_t* a, const uint32_t* k, const uint32_t* c,
                                          const uint32_t* m) {
  for (unsigned vl; n > 0; n -= vl, k += vl, m += vl)
    __asm__ volatile(TESSERA_RVV("vsetvli %0,%1,e32,m1,ta,ma\n\t"
                                 "vle32.v v1,(%2)\n\t"
                                 "vle32.v v2,(%3)\n\t"
                                 "vsll.vi v1,v1,2\n\t"
                                 "vsll.vi v2,v2,2\n\t"
                                 "vluxei32.v v3,(%4),v1\n\t"
                                 "vluxei32.v v4,(%5),v2\n\t"
                                 "vadd.vv v3,v3,v4\n\t"
                                 "vsuxei32.v v3,(%4),v1")
                     : "=&r"(vl)
                     : "r"(n), "r"(k), "r"(m), "r"(a), "r"(c)
                     : "memory");
}

static inline void tessera_matmul_f32(unsigned n, const float* a, const float* b, float* c) {
  for (unsigned i = 0; i < n; ++i) {
    unsigned left = n;
    for (unsigned j = 0, vl; j < n; j += vl, left -= vl) {
      const float* arow = a + i * n;
      const float* bcol = b + j;
      unsigned count = n;
      /* One strip of row i: v1 accumulates a[i][k] * b[k][j..j+vl) over k. */
      __asm__ volatile(TESSERA_RVV("vsetvli %0,%4,e32,m1,ta,ma\n\t"
                                   "vmv.v.i v1,0\n"
                                   "1:\n\t"
                                   "flw ft0,0(%1)\n\t"
                                   "vle32.v v2,(%2)\n\t"
                                   "vfmacc.vf v1,ft0,v2\n\t"
                                   "addi %1,%1,4\n\t"
                                   "add %2,%2,%5\n\t"
                                   "addi %3,%3,-1\n\t"
                                   "bnez %3,1b\n\t"
                                   "vse32.v v1,(%6)")
                       : "=&r"(vl), "+r"(arow), "+r"(bcol), "+r"(count)
                       : "r"(left), "r"(n * 4u), "r"(c + i * n + j)
                       : "ft0", "memory");
    }
  }
}

#endif
