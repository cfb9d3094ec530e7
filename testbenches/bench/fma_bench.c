/* FMA-bound kernel for the simulation-speed benchmark: 128 blocks of 256
 * threads, each thread 1024 FMAs on four independent accumulators. */
#include <tessera.h>

#define BLOCKS 128
#define THREADS 256

static float out[BLOCKS * THREADS];

TESSERA_KERNEL void fma_loop(void* argp) {
  (void)argp;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = (float)i, b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
  const float x = 0.999f, y = 0.001f;
  for (int k = 0; k < 256; k++) {
    a = a * x + y;
    b = b * x + y;
    c = c * x + y;
    d = d * x + y;
  }
  out[i] = a + b + c + d;
}

int main(void) {
  tessera_launch(fma_loop, BLOCKS, THREADS, 0, 0);
  tessera_wait();
  return out[0] > 0.0f ? 0 : 1;
}
