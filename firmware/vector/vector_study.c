/*
 * One routine of tessera_rvv.h, timed as the run's region of interest, for
 * the vector studies (studies/vector_lanes, studies/vector_stride):
 *
 *   vector_study.elf -- ROUTINE N [STRIDE]
 *
 *   saxpy N            y = a * x + y over N floats
 *   vadd N             c = a + b over N 32-bit integers
 *   dot N              sum of x[i] * y[i] over N 32-bit integers (vredsum)
 *   column N STRIDE    sum of column 0 of an N x STRIDE matrix of 32-bit
 *                      integers: a strided load of N elements, STRIDE words apart
 *   masked N           if (a[i] != 0) a[i] -= b[i] over N 32-bit integers
 *   sparse N           a[k[i]] += c[m[i]] over N elements (gather and scatter)
 *   matmul N           c = a x b, N x N floats
 *
 * The data are set up before the region and the result is checked against
 * scalar C on the same core after it; the program returns 0 when they agree,
 * 1 when they do not (printing the first difference) and 2 for bad arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "tessera_rvv.h"

#define MAX_N 4096u
#define MAX_MATRIX_WORDS 16384u /* column: N x STRIDE; matmul: N x N */

static uint32_t seed = 2024u;
static uint32_t next(void) {
  seed = seed * 1664525u + 1013904223u; /* Numerical Recipes' LCG */
  return seed >> 8;
}

static uint32_t a[MAX_N], b[MAX_N], c[MAX_N], k[MAX_N], m[MAX_N], want[MAX_N];
static float x[MAX_N], y[MAX_N], wantf[MAX_N];
static uint32_t matrix[MAX_MATRIX_WORDS];
static float ma[MAX_MATRIX_WORDS], mb[MAX_MATRIX_WORDS], mc[MAX_MATRIX_WORDS], mr[MAX_MATRIX_WORDS];

static int usage(const char* why) {
  printf("vector_study: %s\n", why);
  printf("usage: vector_study -- saxpy|vadd|dot|masked|sparse N | column N STRIDE | matmul N\n");
  return 2;
}

static int differs_u32(const char* routine, const uint32_t* got, const uint32_t* expected, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    if (got[i] != expected[i]) {
      printf("FAIL vector_study %s: element %u is %u, expected %u\n", routine, i, (unsigned)got[i],
             (unsigned)expected[i]);
      return 1;
    }
  return 0;
}

/* Small integers in floats, so the fused and the scalar results are exact. */
static int differs_f32(const char* routine, const float* got, const float* expected, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    if (got[i] != expected[i]) {
      printf("FAIL vector_study %s: element %u is %d, expected %d\n", routine, i, (int)got[i], (int)expected[i]);
      return 1;
    }
  return 0;
}

static int saxpy(unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    x[i] = (float)(next() % 64u);
    y[i] = (float)(next() % 64u);
    wantf[i] = 3.0f * x[i] + y[i];
  }
  tessera_roi_begin();
  tessera_saxpy_f32(n, 3.0f, x, y);
  tessera_roi_end();
  return differs_f32("saxpy", y, wantf, n);
}

static int vadd(unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    a[i] = next();
    b[i] = next();
    want[i] = a[i] + b[i];
  }
  tessera_roi_begin();
  tessera_vadd_u32(n, a, b, c);
  tessera_roi_end();
  return differs_u32("vadd", c, want, n);
}

static int dot(unsigned n) {
  uint32_t expected = 0;
  for (unsigned i = 0; i < n; ++i) {
    a[i] = next();
    b[i] = next();
    expected += a[i] * b[i];
  }
  tessera_roi_begin();
  const uint32_t got = tessera_dot_u32(n, a, b);
  tessera_roi_end();
  return differs_u32("dot", &got, &expected, 1);
}

static int column(unsigned n, unsigned stride) {
  if (stride == 0 || (unsigned long long)n * stride > MAX_MATRIX_WORDS)
    return usage("column: N x STRIDE must be between 1 and 16384 words");
  uint32_t expected = 0;
  for (unsigned i = 0; i < n * stride; ++i) matrix[i] = next();
  for (unsigned r = 0; r < n; ++r) expected += matrix[r * stride];
  tessera_roi_begin();
  const uint32_t got = tessera_column_sum_u32(n, stride, matrix, 0);
  tessera_roi_end();
  return differs_u32("column", &got, &expected, 1);
}

static int masked(unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    a[i] = next() % 2u ? next() : 0u; /* half of the elements masked off */
    b[i] = next();
    want[i] = a[i] != 0 ? a[i] - b[i] : 0u;
  }
  tessera_roi_begin();
  tessera_masked_sub_u32(n, a, b);
  tessera_roi_end();
  return differs_u32("masked", a, want, n);
}

static int sparse(unsigned n) {
  /* k: a permutation of 0..n-1 (the k[i] of one call are distinct); m: any. */
  for (unsigned i = 0; i < n; ++i) {
    k[i] = i;
    m[i] = next() % n;
    a[i] = next();
    c[i] = next();
  }
  for (unsigned i = n; i > 1; --i) {
    const unsigned j = next() % i;
    const uint32_t t = k[i - 1];
    k[i - 1] = k[j];
    k[j] = t;
  }
  memcpy(want, a, n * sizeof want[0]);
  for (unsigned i = 0; i < n; ++i) want[k[i]] += c[m[i]];
  tessera_roi_begin();
  tessera_sparse_add_u32(n, a, k, c, m);
  tessera_roi_end();
  return differs_u32("sparse", a, want, n);
}

static int matmul(unsigned n) {
  if ((unsigned long long)n * n > MAX_MATRIX_WORDS) return usage("matmul: N x N must be at most 16384");
  for (unsigned i = 0; i < n * n; ++i) {
    ma[i] = (float)(next() % 8u);
    mb[i] = (float)(next() % 8u);
  }
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      float s = 0.0f;
      for (unsigned q = 0; q < n; ++q) s += ma[i * n + q] * mb[q * n + j];
      mr[i * n + j] = s;
    }
  tessera_roi_begin();
  tessera_matmul_f32(n, ma, mb, mc);
  tessera_roi_end();
  return differs_f32("matmul", mc, mr, n * n);
}

static int run(int argc, char** argv) {
  if (argc < 3) return usage("needs a routine and N");
  const char* routine = argv[1];
  const unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
  if (n > MAX_N) return usage("N is at most 4096");
  if (strcmp(routine, "column") == 0) {
    if (argc < 4) return usage("column needs STRIDE");
    return column(n, (unsigned)strtoul(argv[3], NULL, 10));
  }
  if (strcmp(routine, "saxpy") == 0) return saxpy(n);
  if (strcmp(routine, "vadd") == 0) return vadd(n);
  if (strcmp(routine, "dot") == 0) return dot(n);
  if (strcmp(routine, "masked") == 0) return masked(n);
  if (strcmp(routine, "sparse") == 0) return sparse(n);
  if (strcmp(routine, "matmul") == 0) return matmul(n);
  return usage("unknown routine");
}

int main(int argc, char** argv) {
  const int status = run(argc, argv);
  if (status == 0) printf("PASS vector_study %s %s\n", argv[1], argv[2]);
  return status;
}
