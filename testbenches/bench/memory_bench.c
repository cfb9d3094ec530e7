/* Memory-bound kernels for the simulation-speed benchmark, little host work:
 * the kernels make their own inputs, so the run measures the SMs and the
 * memory system rather than the control core.
 * - sgemm: C = A * B, 256 x 256 x 256, 16 x 16 tiles staged in shared
 *   memory (global loads, shared stores and loads, barriers, FMAs);
 * - histogram: 2^20 hashed values into 256 bins, shared-memory atomics per
 *   block merged with global atomics. */
#include <tessera.h>

#define N 256
#define TILE 16
#define VALUES (1u << 20)
#define BINS 256

static float a[N * N], b[N * N], c[N * N];
static unsigned bins[BINS];

static unsigned hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

TESSERA_KERNEL void init(void* argp) {
  (void)argp;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = (float)(hash(i) & 255) / 256.0f;
  b[i] = (float)(hash(i + N * N) & 255) / 256.0f;
}

TESSERA_KERNEL void sgemm(void* argp) {
  (void)argp;
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (unsigned t = 0; t < N / TILE; t++) {
    as[ty][tx] = a[row * N + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * N + col];
    __syncthreads();
    for (unsigned k = 0; k < TILE; k++) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * N + col] = sum;
}

TESSERA_KERNEL void histogram(void* argp) {
  (void)argp;
  __shared__ unsigned local[BINS];
  unsigned t = threadIdx.x;
  local[t] = 0;
  __syncthreads();
  unsigned per_block = VALUES / gridDim.x;
  for (unsigned i = t; i < per_block; i += blockDim.x) atomicAdd(&local[hash(blockIdx.x * per_block + i) % BINS], 1u);
  __syncthreads();
  atomicAdd(&bins[t], local[t]);
}

/* Built twice: -DBENCH_SGEMM and -DBENCH_HISTOGRAM. */
int main(void) {
#ifdef BENCH_SGEMM
  tessera_launch(init, N * N / 256, 256, 0, 0);
  tessera_wait();
  tessera_launch(sgemm, DIM3(N / TILE, N / TILE, 1), DIM3(TILE, TILE, 1), 0, 0);
  tessera_wait();
  printf("sgemm_bench: c[0] = %f\n", (double)c[0]);
  return c[0] > 0.0f ? 0 : 1;
#else
  tessera_launch(histogram, 64, BINS, 0, 0);
  tessera_wait();
  unsigned total = 0;
  for (unsigned i = 0; i < BINS; i++) total += bins[i];
  printf("histogram_bench: %u values binned\n", total);
  return total == VALUES ? 0 : 1;
#endif
}
