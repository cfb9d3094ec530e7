/* vecadd: c[i] = a[i] + b[i] over 4096 floats, blocks of 256 threads. */
#include <tessera.h>

#define N 4096
#define BLOCK 256

struct vecadd_args {
  const float* a;
  const float* b;
  float* c;
  unsigned n;
};

static float a[N], b[N], c[N];

TESSERA_KERNEL void vecadd(void* argp) {
  const struct vecadd_args* args = argp;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args->n) args->c[i] = args->a[i] + args->b[i];
}

int main(void) {
  for (unsigned i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f;
    b[i] = 1000.0f - (float)i;
    c[i] = -1.0f;
  }

  struct vecadd_args args = {a, b, c, N};
  tessera_roi_begin();
  tessera_launch(vecadd, (N + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned i = 0; i < N; i++) {
    float want = a[i] + b[i];
    if (c[i] != want) {
      if (errors < 8) printf("FAIL vecadd: c[%u] = %f, want %f\n", i, (double)c[i], (double)want);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL vecadd: %u of %u wrong\n", errors, N);
    return 1;
  }
  printf("PASS vecadd (%u elements)\n", N);
  return 0;
}
