/* extern __shared__ (CUDA's dynamic shared array), at file scope and at
 * block scope, beside a static __shared__ array: each kernel fills both,
 * synchronises and reads a neighbour's elements back. */
#include <tessera.h>

extern __shared__ float dyn[];
__shared__ unsigned stat[64];

__global__ void file_scope(void* arg) {
  unsigned* out = arg;
  const unsigned t = threadIdx.x, n = blockDim.x, b = blockIdx.x;
  dyn[t] = (float)(t + 1000 * b);
  stat[t] = t * 3 + b;
  __syncthreads();
  out[b * n + t] = (unsigned)dyn[(t + 1) % n] + stat[(n - 1) - t];
}

__global__ void block_scope(void* arg) {
  extern __shared__ unsigned words[];
  unsigned* out = arg;
  const unsigned t = threadIdx.x, n = blockDim.x, b = blockIdx.x;
  words[t] = t ^ b;
  words[n + t] = 7 * t;
  __syncthreads();
  out[b * n + t] = words[(t + 5) % n] + words[n + ((t + 1) % n)];
}

static unsigned out[4 * 64];

int main(void) {
  int bad = 0;
  const uintptr_t at = (uintptr_t)dyn;
  printf("dynamic area at 0x%08lx, static stat at 0x%08lx\n", (unsigned long)at, (unsigned long)(uintptr_t)stat);
  if (at != (uintptr_t)tessera_dynamic_shared() || at % 128 != 0 || at < (uintptr_t)&stat[64]) {
    printf("FAIL the dynamic area is not tessera_dynamic_shared(), 128-aligned, after the static variables\n");
    bad = 1;
  }
  tessera_launch_ref(file_scope, 4, 64, 64 * sizeof(float), out);
  tessera_wait();
  for (unsigned b = 0; b < 4; ++b)
    for (unsigned t = 0; t < 64; ++t) {
      const unsigned want = ((t + 1) % 64 + 1000 * b) + ((63 - t) * 3 + b);
      if (out[b * 64 + t] != want) {
        printf("FAIL file_scope block %u thread %u: %u, expected %u\n", b, t, out[b * 64 + t], want);
        bad = 1;
      }
    }
  tessera_launch_ref(block_scope, 4, 64, 2 * 64 * sizeof(unsigned), out);
  tessera_wait();
  for (unsigned b = 0; b < 4; ++b)
    for (unsigned t = 0; t < 64; ++t) {
      const unsigned want = (((t + 5) % 64) ^ b) + 7 * ((t + 1) % 64);
      if (out[b * 64 + t] != want) {
        printf("FAIL block_scope block %u thread %u: %u, expected %u\n", b, t, out[b * 64 + t], want);
        bad = 1;
      }
    }
  printf("%s dynamic shared: 2 kernels x 4 blocks x 64 threads checked\n", bad ? "FAIL" : "PASS");
  return bad;
}
