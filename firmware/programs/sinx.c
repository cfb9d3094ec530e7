/* sinx: sin(x) by its Taylor series (7 terms after x) over 1024 values in
 * [-pi, pi], as in the classic SIMT teaching example. The control core runs
 * the same series (same float operations in the same order) as reference;
 * the result must also be within 1e-5 of sinf(). */
#include <math.h>
#include <tessera.h>

#define N 1024
#define BLOCK 128
#define TERMS 7

struct sinx_args {
  const float* x;
  float* result;
  unsigned n;
  int terms;
};

static float x[N], result[N];

/* value = x - x^3/3! + x^5/5! - ... */
static inline float sinx_series(float v, int terms) {
  float value = v;
  float numer = v * v * v;
  float denom = 6.0f; /* 3! */
  float sign = -1.0f;
  for (int j = 1; j <= terms; j++) {
    value += sign * numer / denom;
    numer *= v * v;
    denom *= (float)((2 * j + 2) * (2 * j + 3));
    sign = -sign;
  }
  return value;
}

TESSERA_KERNEL void sinx(void* argp) {
  const struct sinx_args* args = argp;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args->n) args->result[i] = sinx_series(args->x[i], args->terms);
}

int main(void) {
  const float pi = 3.14159265f;
  for (unsigned i = 0; i < N; i++) {
    x[i] = -pi + 2.0f * pi * (float)i / (float)(N - 1);
    result[i] = 100.0f;
  }

  struct sinx_args args = {x, result, N, TERMS};
  tessera_roi_begin();
  tessera_launch(sinx, (N + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned i = 0; i < N; i++) {
    float host = sinx_series(x[i], TERMS);
    float ref = sinf(x[i]);
    /* Bitwise equality is expected; allow for the compiler contracting
     * differently in the two copies of the series. */
    if (fabsf(result[i] - host) > 1e-6f || fabsf(result[i] - ref) > 1e-5f) {
      if (errors < 8)
        printf("FAIL sinx: x[%u] = %f: got %.9f, series %.9f, sinf %.9f\n", i, (double)x[i], (double)result[i],
               (double)host, (double)ref);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL sinx: %u of %u wrong\n", errors, N);
    return 1;
  }
  printf("PASS sinx (%u elements, %d terms)\n", N, TERMS);
  return 0;
}
