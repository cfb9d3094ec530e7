/* Occupancy from the kernel record: blocks count themselves in `live` when
 * they start and keep the largest count in `peak`; the blocks of one launch
 * are placed together, so peak is how many were resident at once.
 *
 *   big_shared  40 KiB static shared: floor(65536 / 40960) = 1 block per SM
 *   no_shared   no shared memory: 8 blocks of 32 threads all resident
 *   via_pointer an indirect call: 64 registers x 128 threads = 8192 per block,
 *               65536 / 8192 = 8 blocks per SM
 *   bounded     the same code with __launch_bounds__(128, 16): charged
 *               65536 / (16 * 128) = 32 registers, 16 blocks per SM
 */
#include <tessera.h>

static volatile unsigned live, peak;
static volatile unsigned work[256];

__shared__ float big[10240]; /* 40 KiB */

static void enter(void) {
  if (threadIdx.x == 0) atomicMax(&peak, atomicAdd(&live, 1u) + 1u);
}

static void leave(void) {
  __syncthreads();
  if (threadIdx.x == 0) atomicSub(&live, 1u);
}

/* Enough global loads that the first block is still running when the last
 * one of the launch starts. */
static unsigned busy(void) {
  unsigned s = 0;
  for (unsigned i = 0; i < 64; ++i) s += work[(i * 7 + threadIdx.x) & 255];
  return s;
}

__global__ void big_shared(void* out) {
  enter();
  big[threadIdx.x] = (float)busy();
  __syncthreads();
  ((float*)out)[threadIdx.x] = big[31 - threadIdx.x];
  leave();
}

__global__ void no_shared(void* out) {
  enter();
  ((unsigned*)out)[threadIdx.x] = busy();
  leave();
}

typedef unsigned (*fn_t)(void);
static fn_t volatile target = busy;

__global__ void via_pointer(void* out) {
  enter();
  ((unsigned*)out)[threadIdx.x] = target();
  leave();
}

__global__ void __launch_bounds__(128, 16) bounded(void* out) {
  enter();
  ((unsigned*)out)[threadIdx.x] = target();
  leave();
}

static unsigned out[1024];

static unsigned run(tessera_kernel_fn k, unsigned blocks, unsigned threads, const char* name) {
  live = 0;
  peak = 0;
  tessera_launch_ref(k, blocks, threads, 0, out);
  tessera_wait();
  printf("RESULT %s %u\n", name, peak);
  return peak;
}

int main(void) {
  for (unsigned i = 0; i < 256; ++i) work[i] = i;
  run(big_shared, 4, 32, "big_shared");
  run(no_shared, 8, 32, "no_shared");
  run(via_pointer, 16, 128, "via_pointer");
  run(bounded, 16, 128, "bounded");
  return live != 0;
}
