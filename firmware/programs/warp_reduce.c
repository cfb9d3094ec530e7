/* warp_reduce: the sum of N pseudo-random integers in [-1000, 1000], and of
 * the same values as floats, by warp shuffles as CUDA code writes it: each
 * thread adds its elements (grid-stride), each warp reduces its 32 partial
 * sums with __shfl_down_sync, lane 0 of every warp leaves its sum in shared
 * memory, and after __syncthreads the first warp reduces those with
 * __shfl_xor_sync (every lane ends with the block's sum) and lane 0 adds it
 * to the total with an atomic. A block-wide __syncthreads_count counts the
 * positive elements on the way. Integers make every order of summation
 * exact; the floats are whole numbers below 2^24, so theirs is exact too.
 * The host checks the block sums, the totals and the count. */
#include <tessera.h>

#define N (1u << 15)
#define BLOCK 256
#define BLOCKS 32
#define FULL 0xffffffffu

struct reduce_args {
  const int* in;
  unsigned n;
  int* block_sums;
  int* total;
  float* total_f;
  int* positives;
};

static int data[N], block_sums[BLOCKS], total, positives;
static float total_f;

static inline int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL, v, offset);
  return v; /* lane 0 holds the warp's sum */
}

static inline float warp_sum_all(float v) {
  for (int mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(FULL, v, mask);
  return v; /* every lane holds it */
}

TESSERA_KERNEL void reduce(void* argp) {
  const struct reduce_args* a = argp;
  __shared__ int warp_sums[BLOCK / 32];
  __shared__ float warp_sums_f[BLOCK / 32];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;

  int sum = 0, pos = 0;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < a->n; i += gridDim.x * blockDim.x) {
    sum += a->in[i];
    pos += a->in[i] > 0;
  }
  const float sum_f = (float)sum;
  sum = warp_sum(sum);
  const float warp_f = warp_sum_all(sum_f);
  if (lane == 0) {
    warp_sums[warp] = sum;
    warp_sums_f[warp] = warp_f;
  }
  __syncthreads();
  if (warp == 0) {
    int s = lane < BLOCK / 32 ? warp_sums[lane] : 0;
    float f = lane < BLOCK / 32 ? warp_sums_f[lane] : 0.0f;
    s = warp_sum(s);
    f = warp_sum_all(f);
    if (lane == 0) {
      a->block_sums[blockIdx.x] = s;
      atomicAdd(a->total, s);
      atomicAddf(a->total_f, f);
    }
  }
  /* The number of positive elements each thread saw, added over the block
   * by a barrier with a count: one __syncthreads_count per possible
   * per-thread count (each thread sees N / (BLOCK * BLOCKS) = 4 elements). */
  int block_positives = 0;
  for (int k = 1; k <= 4; k++) block_positives += k * __syncthreads_count(pos == k);
  if (t == 0) atomicAdd(a->positives, block_positives);
}

int main(void) {
  unsigned state = 11u;
  for (unsigned i = 0; i < N; i++) {
    state = state * 1664525u + 1013904223u;
    data[i] = (int)((state >> 16) % 2001u) - 1000;
  }
  for (unsigned b = 0; b < BLOCKS; b++) block_sums[b] = 0x7fffffff;

  struct reduce_args args = {data, N, block_sums, &total, &total_f, &positives};
  tessera_roi_begin();
  tessera_launch(reduce, BLOCKS, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  int want_total = 0, want_pos = 0;
  for (unsigned b = 0; b < BLOCKS; b++) {
    int want = 0;
    for (unsigned i = b * BLOCK; i < N; i += BLOCKS * BLOCK)
      for (unsigned t = 0; t < BLOCK && i + t < N; t++) want += data[i + t];
    want_total += want;
    if (block_sums[b] != want) {
      if (errors < 8) printf("FAIL warp_reduce: block %u sum %d, want %d\n", b, block_sums[b], want);
      errors++;
    }
  }
  for (unsigned i = 0; i < N; i++) want_pos += data[i] > 0;
  if (total != want_total) {
    printf("FAIL warp_reduce: total %d, want %d\n", total, want_total);
    errors++;
  }
  if (total_f != (float)want_total) {
    printf("FAIL warp_reduce: float total %d, want %d\n", (int)total_f, want_total);
    errors++;
  }
  if (positives != want_pos) {
    printf("FAIL warp_reduce: %d positive elements counted, want %d\n", positives, want_pos);
    errors++;
  }
  if (errors) {
    printf("FAIL warp_reduce: %u errors\n", errors);
    return 1;
  }
  printf("PASS warp_reduce (%u integers, sum %d, %d positive, %u blocks of %u)\n", N, total, positives, BLOCKS, BLOCK);
  return 0;
}
