/* Threads past the end of the data return before __syncthreads(), as CUDA
 * samples do (shfl_scan's uniform_add: `if (id >= len) return;`): exited
 * threads drop out of the block barrier (docs/firmware-abi.md). N = 300 over
 * blocks of 256: block 1 has 44 live threads, one whole warp, twelve lanes
 * of the next and six warps that all exit. Each thread adds up its block's
 * values from shared memory after the barrier. */
#include <tessera.h>

#define N 300u
#define BLOCK 256u

struct args {
  const unsigned* in;
  unsigned* out;
  unsigned n;
};

static unsigned in[N], out[N];

__global__ void block_sums(void* p) {
  const struct args* a = p;
  __shared__ unsigned vals[BLOCK];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a->n) return;
  vals[threadIdx.x] = a->in[i];
  __syncthreads();
  const unsigned first = blockIdx.x * blockDim.x;
  const unsigned live = a->n - first < blockDim.x ? a->n - first : blockDim.x;
  unsigned sum = 0;
  for (unsigned t = 0; t < live; ++t) sum += vals[t];
  a->out[i] = sum;
}

int main(void) {
  for (unsigned i = 0; i < N; ++i) in[i] = i + 1u;
  struct args a = {in, out, N};
  tessera_launch(block_sums, (N + BLOCK - 1u) / BLOCK, BLOCK, 0u, &a);
  tessera_wait();
  /* Block 0 sums 1..256, block 1 sums 257..300. */
  const unsigned want0 = 256u * 257u / 2u, want1 = 300u * 301u / 2u - want0;
  unsigned wrong = 0;
  for (unsigned i = 0; i < N; ++i) wrong += out[i] != (i < BLOCK ? want0 : want1);
  printf("RESULT early_return_wrong %u\n", wrong);
  printf("RESULT early_return_sums %u %u\n", out[0], out[N - 1]);
  return wrong != 0;
}
