/* reduction: the sum of N pseudo-random integers in [-1000, 1000] by a tree
 * reduction in __shared__ memory. Each thread first adds its elements
 * (grid-stride), then the block halves the number of active threads each
 * step with __syncthreads() between steps, and thread 0 writes the block's
 * partial sum. A second launch of the same kernel, one block, reduces the
 * partial sums to the total. Integers make every order of summation exact;
 * the host checks every partial sum and the total. */
#include <tessera.h>

#define N (1u << 14)
#define BLOCK 256 /* a power of two: the tree halves it */
#define BLOCKS 32

struct reduce_args {
  const int* in;
  unsigned n;
  int* out; /* one sum per block */
};

static int data[N], partial[BLOCKS], total;

TESSERA_KERNEL void reduce_sum(void* argp) {
  const struct reduce_args* args = argp;
  __shared__ int sums[BLOCK];

  unsigned t = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < args->n; i += gridDim.x * blockDim.x) sum += args->in[i];
  sums[t] = sum;
  __syncthreads();

  for (unsigned active = blockDim.x / 2; active > 0; active /= 2) {
    if (t < active) sums[t] += sums[t + active];
    __syncthreads();
  }
  if (t == 0) args->out[blockIdx.x] = sums[0];
}

int main(void) {
  unsigned state = 7u;
  for (unsigned i = 0; i < N; i++) {
    state = state * 1664525u + 1013904223u;
    data[i] = (int)((state >> 16) % 2001u) - 1000;
  }
  for (unsigned b = 0; b < BLOCKS; b++) partial[b] = 0x7fffffff;
  total = 0x7fffffff;

  struct reduce_args first = {data, N, partial};
  struct reduce_args second = {partial, BLOCKS, &total};
  tessera_roi_begin();
  /* Kernels run one at a time in launch order, so the second sees every
   * partial sum of the first. */
  tessera_launch(reduce_sum, BLOCKS, BLOCK, 0, &first);
  tessera_launch(reduce_sum, 1, BLOCK, 0, &second);
  tessera_wait();
  tessera_roi_end();

  /* Block b's threads cover the grid-stride indices i with
   * (i / BLOCK) % BLOCKS == b. */
  unsigned errors = 0;
  int want_total = 0;
  for (unsigned b = 0; b < BLOCKS; b++) {
    int want = 0;
    for (unsigned i = b * BLOCK; i < N; i += BLOCKS * BLOCK)
      for (unsigned t = 0; t < BLOCK && i + t < N; t++) want += data[i + t];
    want_total += want;
    if (partial[b] != want) {
      if (errors < 8) printf("FAIL reduction: block %u sum %d, want %d\n", b, partial[b], want);
      errors++;
    }
  }
  if (total != want_total) {
    printf("FAIL reduction: total %d, want %d\n", total, want_total);
    errors++;
  }
  if (errors) {
    printf("FAIL reduction: %u errors\n", errors);
    return 1;
  }
  printf("PASS reduction (%u integers, sum %d, %u blocks of %u)\n", N, total, BLOCKS, BLOCK);
  return 0;
}
