/* conv1d: out[i] = sum_k w[k] * in[i + k - R] with zero padding, N = 2048,
 * R = 3. Each block stages its input tile plus a halo of R elements on each
 * side in __shared__ memory, waits at __syncthreads(), then computes from
 * shared memory. Inputs and weights are small integers, so every order of
 * summation gives the same float result and the check is exact. */
#include <tessera.h>

#define N 2048
#define R 3
#define TAPS (2 * R + 1)
#define BLOCK 128

struct conv1d_args {
  const float* in;
  const float* w;
  float* out;
  unsigned n;
};

static float in[N], out[N], want[N];
static const float w[TAPS] = {1.0f, -2.0f, 3.0f, 4.0f, 3.0f, -2.0f, 1.0f};

TESSERA_KERNEL void conv1d(void* argp) {
  const struct conv1d_args* args = argp;
  __shared__ float tile[BLOCK + 2 * R];

  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * blockDim.x;
  int n = (int)args->n;

  /* tile[j] holds in[base - R + j]; threads 0..2R-1 also load the halo
   * element BLOCK positions further on. */
  for (unsigned j = t; j < BLOCK + 2 * R; j += BLOCK) {
    int g = (int)(base + j) - R;
    tile[j] = (g >= 0 && g < n) ? args->in[g] : 0.0f;
  }
  __syncthreads();

  unsigned i = base + t;
  if (i < args->n) {
    float sum = 0.0f;
    for (int k = 0; k < TAPS; k++) sum += __ldgf(&args->w[k]) * tile[t + k];
    args->out[i] = sum;
  }
}

int main(void) {
  for (unsigned i = 0; i < N; i++) {
    in[i] = (float)((int)((i * 7) % 13) - 6);
    out[i] = -99999.0f;
  }
  for (int i = 0; i < N; i++) {
    float sum = 0.0f;
    for (int k = 0; k < TAPS; k++) {
      int g = i + k - R;
      sum += w[k] * ((g >= 0 && g < N) ? in[g] : 0.0f);
    }
    want[i] = sum;
  }

  struct conv1d_args args = {in, w, out, N};
  tessera_roi_begin();
  tessera_launch(conv1d, (N + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned i = 0; i < N; i++) {
    if (out[i] != want[i]) {
      if (errors < 8) printf("FAIL conv1d: out[%u] = %f, want %f\n", i, (double)out[i], (double)want[i]);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL conv1d: %u of %u wrong\n", errors, N);
    return 1;
  }
  printf("PASS conv1d (%u elements, %d taps, %u-thread blocks)\n", N, TAPS, BLOCK);
  return 0;
}
