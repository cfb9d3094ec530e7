/* Mixed-unit kernel for the dual-issue scheduling pass (firmware/tessera-sched):
 * each loop iteration is 10 SP instructions (8 FMAs, the pointer increment and
 * the branch), 2 shared-memory loads and 2 SFU instructions (sin, cos), at full
 * occupancy (blocks of 256 threads, 8 resident per SM). Every thread reads the
 * same table, so every thread's result equals the control core's reference
 * (libm sinf/cosf) to within the SFU's accuracy. */
#include <math.h>
#include <stdio.h>
#include <tessera.h>

#define BLOCKS 32
#define THREADS 256
#define ITERS 128

static float out[BLOCKS * THREADS];

TESSERA_KERNEL void mix_loop(void* argp) {
  (void)argp;
  __shared__ float tab[2 * ITERS];
  for (unsigned k = threadIdx.x; k < 2 * ITERS; k += blockDim.x) tab[k] = (float)k * (1.0f / 256.0f);
  __syncthreads();
  float a = 1.5f, b = 2.0f, c = 3.0f, d = 4.0f, e = 0.0f, f = 0.0f, g = 5.0f, h = 6.0f;
  const float x = 0.999f, y = 0.001f;
  for (const float* q = tab; q != tab + 2 * ITERS; q += 2) {
    const float s = __sinf(q[0]), t = __cosf(q[1]);
    a = a * x + y;
    b = b * x + y;
    c = c * x + y;
    d = d * x + y;
    g = g * x + y;
    h = h * x + y;
    e = e * x + s;
    f = f * x + t;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d + e + f + g + h;
}

static float reference(void) {
  float a = 1.5f, b = 2.0f, c = 3.0f, d = 4.0f, e = 0.0f, f = 0.0f, g = 5.0f, h = 6.0f;
  for (unsigned k = 0; k < 2 * ITERS; k += 2) {
    const float s = sinf((float)k * (1.0f / 256.0f)), t = cosf((float)(k + 1) * (1.0f / 256.0f));
    a = a * 0.999f + 0.001f;
    b = b * 0.999f + 0.001f;
    c = c * 0.999f + 0.001f;
    d = d * 0.999f + 0.001f;
    g = g * 0.999f + 0.001f;
    h = h * 0.999f + 0.001f;
    e = e * 0.999f + s;
    f = f * 0.999f + t;
  }
  return a + b + c + d + e + f + g + h;
}

int main(void) {
  tessera_roi_begin();
  tessera_launch(mix_loop, BLOCKS, THREADS, 0, 0);
  tessera_wait();
  tessera_roi_end();
  const float want = reference();
  unsigned wrong = 0;
  for (unsigned i = 0; i < BLOCKS * THREADS; i++)
    if (!(fabsf(out[i] - want) <= 1e-3f * fabsf(want))) wrong++;
  if (wrong) {
    printf("FAIL mix_bench: %u of %u results differ from %f (out[0] = %f)\n", wrong, BLOCKS * THREADS, (double)want,
           (double)out[0]);
    return 1;
  }
  printf("PASS mix_bench (%u threads, each %u iterations of 8 FMA, 2 shared loads, 2 SFU = %f)\n", BLOCKS * THREADS,
         ITERS, (double)want);
  return 0;
}
