/*
 * Every routine of tessera_rvv.h against plain scalar C on the same core,
 * for n = 0, 1, MVL-1, MVL, MVL+1 and 1000 (strip-mined), at SEW 8, 16 and
 * 32 where the routine has those widths; MVL (elements per register at the
 * routine's SEW) comes from the vlenb CSR, so the program fits any VLEN.
 * Prints "PASS vector <routine>" or "FAIL ..." (with the first mismatching
 * index) per routine and width, then "PASS vector_routines" if all passed.
 */
#include <math.h>

#include "tessera.h"
#include "tessera_rvv.h"

#define MAX_N 1000u

static uint32_t seed = 12345u;
static uint32_t next(void) {
  seed = seed * 1664525u + 1013904223u; /* Numerical Recipes' LCG */
  return seed >> 8;
}

static uint8_t a8[MAX_N], b8[MAX_N], c8[MAX_N], r8[MAX_N];
static uint16_t a16[MAX_N], b16[MAX_N], c16[MAX_N], r16[MAX_N];
static uint32_t a32[MAX_N], b32[MAX_N], c32[MAX_N], r32[MAX_N], k32[MAX_N], m32[MAX_N];
static float xf[MAX_N], yf[MAX_N], rf[MAX_N];
static float ma[24 * 24], mb[24 * 24], mc[24 * 24], mr[24 * 24];
static int failures;

static void report(const char* what, int bad_index, unsigned n, unsigned got, unsigned want) {
  if (bad_index < 0) return;
  printf("FAIL vector %s: n %u, element %d is %u, expected %u\n", what, n, bad_index, got, want);
  ++failures;
}

/* The lengths of one routine at `sew`. */
static unsigned lengths(unsigned sew, unsigned* out) {
  const unsigned mvl = tessera_rvv_vlmax(sew);
  out[0] = 0;
  out[1] = 1;
  out[2] = mvl - 1;
  out[3] = mvl;
  out[4] = mvl + 1;
  out[5] = MAX_N;
  return 6;
}

#define CHECK_INT(T, S, a, b, c, r)                                                          \
  static void check_u##S(void) {                                                             \
    unsigned ns[6];                                                                          \
    const unsigned count = lengths(S, ns);                                                   \
    const int before = failures;                                                             \
    for (unsigned t = 0; t < count; ++t) {                                                   \
      const unsigned n = ns[t];                                                              \
      for (unsigned i = 0; i < MAX_N; ++i) {                                                 \
        a[i] = (T)next();                                                                    \
        b[i] = (T)next();                                                                    \
        c[i] = r[i] = (T)0x5a;                                                               \
        if (i % 3 == 0) a[i] = 0; /* masked-off elements for masked_sub */                   \
      }                                                                                      \
      tessera_vadd_u##S(n, a, b, c);                                                         \
      int bad = -1;                                                                          \
      for (unsigned i = 0; i < MAX_N && bad < 0; ++i)                                        \
        if (c[i] != (i < n ? (T)(a[i] + b[i]) : (T)0x5a)) bad = (int)i;                      \
      report("vadd_u" #S, bad, n, bad < 0 ? 0 : c[bad], bad < 0 ? 0 : (T)(a[bad] + b[bad])); \
      for (unsigned i = 0; i < MAX_N; ++i) r[i] = a[i];                                      \
      tessera_masked_sub_u##S(n, a, b);                                                      \
      bad = -1;                                                                              \
      for (unsigned i = 0; i < MAX_N && bad < 0; ++i) {                                      \
        const T want = i < n && r[i] != 0 ? (T)(r[i] - b[i]) : r[i];                         \
        if (a[i] != want) bad = (int)i;                                                      \
      }                                                                                      \
      report("masked_sub_u" #S, bad, n, bad < 0 ? 0 : a[bad], 0);                            \
      /* Column j of an n x 5 matrix held in a (rows = n / 5 + 1, at most 200). */           \
      const unsigned cols = 5, rows = n / cols + (n > 0), j = n % cols;                      \
      T want = 0;                                                                            \
      for (unsigned i = 0; i < rows; ++i) want = (T)(want + a[i * cols + j]);                \
      const T got = tessera_column_sum_u##S(rows, cols, a, j);                               \
      report("column_sum_u" #S, got == want ? -1 : 0, rows, got, want);                      \
    }                                                                                        \
    if (failures == before) printf("PASS vector vadd, masked_sub, column_sum e" #S "\n");    \
  }

CHECK_INT(uint8_t, 8, a8, b8, c8, r8)
CHECK_INT(uint16_t, 16, a16, b16, c16, r16)
CHECK_INT(uint32_t, 32, a32, b32, c32, r32)

static void check_f32(void) {
  unsigned ns[6];
  const unsigned count = lengths(32, ns);
  const int before = failures;
  for (unsigned t = 0; t < count; ++t) {
    const unsigned n = ns[t];
    /* Small integer values: every product and partial sum below is exact in
     * single precision, so the reduction's order cannot change the dot product. */
    for (unsigned i = 0; i < MAX_N; ++i) {
      xf[i] = (float)(next() % 64) - 32.0f;
      yf[i] = (float)(next() % 64) - 32.0f;
      rf[i] = yf[i];
    }
    const float a = 1.5f;
    tessera_saxpy_f32(n, a, xf, yf);
    int bad = -1;
    for (unsigned i = 0; i < MAX_N && bad < 0; ++i)
      if (yf[i] != (i < n ? fmaf(a, xf[i], rf[i]) : rf[i])) bad = (int)i;
    report("saxpy_f32", bad, n, bad < 0 ? 0 : (uint32_t)yf[bad], 0);
    for (unsigned i = 0; i < MAX_N; ++i) yf[i] = rf[i];
    float want = 0.0f;
    for (unsigned i = 0; i < n; ++i) want += xf[i] * yf[i];
    const float got = tessera_dot_f32(n, xf, yf);
    report("dot_f32", got == want ? -1 : 0, n, (uint32_t)(int32_t)got, (uint32_t)(int32_t)want);
    uint32_t wantu = 0;
    for (unsigned i = 0; i < n; ++i) wantu += a32[i] * b32[i];
    const uint32_t gotu = tessera_dot_u32(n, a32, b32);
    report("dot_u32", gotu == wantu ? -1 : 0, n, gotu, wantu);
    /* Sparse: k a permutation of 0..n-1 (distinct targets), m random. */
    for (unsigned i = 0; i < n; ++i) k32[i] = i;
    for (unsigned i = n; i > 1; --i) {
      const unsigned s = next() % i;
      const uint32_t tmp = k32[i - 1];
      k32[i - 1] = k32[s];
      k32[s] = tmp;
    }
    for (unsigned i = 0; i < n; ++i) m32[i] = next() % MAX_N;
    for (unsigned i = 0; i < MAX_N; ++i) r32[i] = a32[i];
    tessera_sparse_add_u32(n, a32, k32, b32, m32);
    for (unsigned i = 0; i < n; ++i) r32[k32[i]] += b32[m32[i]];
    bad = -1;
    for (unsigned i = 0; i < MAX_N && bad < 0; ++i)
      if (a32[i] != r32[i]) bad = (int)i;
    report("sparse_add_u32", bad, n, bad < 0 ? 0 : a32[bad], bad < 0 ? 0 : r32[bad]);
  }
  /* Matrix multiply, n = 0, 1, 7 and 24 (more than one strip at VLEN 512 and below). */
  const unsigned sizes[] = {0, 1, 7, 24};
  for (unsigned s = 0; s < 4; ++s) {
    const unsigned n = sizes[s];
    for (unsigned i = 0; i < n * n; ++i) {
      ma[i] = (float)(next() % 16) - 8.0f;
      mb[i] = (float)(next() % 16) - 8.0f;
    }
    tessera_matmul_f32(n, ma, mb, mc);
    int bad = -1;
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        float want = 0.0f;
        for (unsigned k = 0; k < n; ++k) want = fmaf(ma[i * n + k], mb[k * n + j], want);
        mr[i * n + j] = want;
        if (bad < 0 && mc[i * n + j] != want) bad = (int)(i * n + j);
      }
    report("matmul_f32", bad, n, bad < 0 ? 0 : (uint32_t)(int32_t)mc[bad], bad < 0 ? 0 : (uint32_t)(int32_t)mr[bad]);
  }
  if (failures == before) printf("PASS vector saxpy, dot, sparse_add, matmul e32\n");
}

int main(void) {
  printf("RESULT vector vlenb %u\n", tessera_rvv_vlenb());
  check_u8();
  check_u16();
  check_u32();
  check_f32();
  if (failures) return 1;
  printf("PASS vector_routines\n");
  return 0;
}
