/* saxpy: y[i] = a * x[i] + y[i] over 4096 floats. The inputs make every
 * product and sum exact, so a fused multiply-add and a separate multiply
 * and add agree and the check can be exact. */
#include <tessera.h>

#define N 4096
#define BLOCK 128

struct saxpy_args {
  float a;
  const float* x;
  float* y;
  unsigned n;
};

static float x[N], y[N], want[N];

TESSERA_KERNEL void saxpy(void* argp) {
  const struct saxpy_args* args = argp;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args->n) args->y[i] = args->a * __ldgf(&args->x[i]) + args->y[i];
}

int main(void) {
  const float a = 2.5f;
  for (unsigned i = 0; i < N; i++) {
    x[i] = (float)(i % 100) * 0.25f;
    y[i] = (float)i - 2000.0f;
    want[i] = a * x[i] + y[i];
  }

  struct saxpy_args args = {a, x, y, N};
  tessera_roi_begin();
  tessera_launch(saxpy, (N + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned i = 0; i < N; i++) {
    if (y[i] != want[i]) {
      if (errors < 8) printf("FAIL saxpy: y[%u] = %f, want %f\n", i, (double)y[i], (double)want[i]);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL saxpy: %u of %u wrong\n", errors, N);
    return 1;
  }
  printf("PASS saxpy (%u elements)\n", N);
  return 0;
}
