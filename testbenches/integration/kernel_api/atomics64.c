/* 64-bit atomics through CUDA's generic names (atomicAdd, atomicSub,
 * atomicExch, atomicCAS, atomicMax on uint64_t and int64_t), on global and
 * shared memory, with values past 2^32 so a carry or a high word that a
 * 32-bit operation would lose shows. Prints what it checked; exits non-zero
 * on a wrong result. */
#include <tessera.h>

#define BLOCKS 4
#define THREADS 128

static uint64_t sum;       /* += 0xFFFFFFFF + global thread id */
static int64_t down;       /* -= 0x100000000 + global thread id */
static uint64_t biggest;   /* max of (tid << 33) */
static uint64_t cas_sum;   /* += tid << 32, by a CAS loop */
static uint64_t exch_seen; /* the sum of every value swapped out */
static uint64_t exch_last;
static uint64_t block_sums[BLOCKS];

__global__ void atomics64(void* unused) {
  (void)unused;
  __shared__ uint64_t block_sum;
  const unsigned t = threadIdx.x, g = blockIdx.x * THREADS + t;
  if (t == 0) block_sum = 0;
  __syncthreads();
  atomicAdd(&sum, 0xFFFFFFFFull + g);
  atomicSub(&down, (int64_t)0x100000000ll + g);
  atomicMax(&biggest, (uint64_t)g << 33);
  uint64_t seen = cas_sum, assumed;
  do {
    assumed = seen;
    seen = atomicCAS(&cas_sum, assumed, assumed + ((uint64_t)g << 32));
  } while (seen != assumed);
  atomicAdd(&exch_seen, atomicExch(&exch_last, ((uint64_t)g << 32) | g));
  atomicAdd(&block_sum, (uint64_t)t << 32);
  __syncthreads();
  if (t == 0) block_sums[blockIdx.x] = block_sum;
}

int main(void) {
  exch_last = 0;
  tessera_launch(atomics64, BLOCKS, THREADS, 0, NULL);
  tessera_wait();
  const uint64_t n = BLOCKS * THREADS, ids = n * (n - 1) / 2;
  int bad = 0;
  const uint64_t want_sum = n * 0xFFFFFFFFull + ids;
  const int64_t want_down = -(int64_t)(n * 0x100000000ull + ids);
  const uint64_t want_max = (n - 1) << 33, want_cas = ids << 32;
  /* Every value written by atomicExch is swapped out once, but the last. */
  const uint64_t want_exch = ((ids << 32) | ids) - exch_last;
  const uint64_t want_block = ((uint64_t)THREADS * (THREADS - 1) / 2) << 32;
  bad |= sum != want_sum;
  bad |= down != want_down;
  bad |= biggest != want_max;
  bad |= cas_sum != want_cas;
  bad |= exch_seen != want_exch;
  for (unsigned b = 0; b < BLOCKS; ++b) bad |= block_sums[b] != want_block;
  printf("atomicAdd u64 0x%llx (want 0x%llx)\n", (unsigned long long)sum, (unsigned long long)want_sum);
  printf("atomicSub i64 %lld (want %lld)\n", (long long)down, (long long)want_down);
  printf("atomicMax u64 0x%llx, atomicCAS u64 0x%llx, atomicExch u64 0x%llx, shared 0x%llx\n",
         (unsigned long long)biggest, (unsigned long long)cas_sum, (unsigned long long)exch_seen,
         (unsigned long long)block_sums[0]);
  printf("atomics64: %s\n", bad ? "FAIL" : "ok");
  return bad;
}
