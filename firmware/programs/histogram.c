/* histogram: 2^16 pseudo-random bytes (fixed-seed LCG) counted into 256
 * bins. Each block builds a private histogram in __shared__ memory with
 * shared atomicAdd (grid-stride over the input), then, after
 * __syncthreads(), adds its non-zero bins into the global histogram with
 * global atomicAdd. The host counts the same values and the check is exact;
 * the bin counts must also sum to the number of values. */
#include <tessera.h>

#define VALUES (1u << 16)
#define BINS 256
#define BLOCKS 32
#define BLOCK 256

struct histogram_args {
  const unsigned char* values;
  unsigned n;
  unsigned* bins;
};

static unsigned char values[VALUES];
static unsigned bins[BINS], want[BINS];

TESSERA_KERNEL void histogram(void* argp) {
  const struct histogram_args* args = argp;
  __shared__ unsigned block_bins[BINS];

  unsigned t = threadIdx.x;
  for (unsigned b = t; b < BINS; b += blockDim.x) block_bins[b] = 0;
  __syncthreads();

  unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < args->n; i += stride) atomicAdd(&block_bins[args->values[i]], 1u);
  __syncthreads();

  for (unsigned b = t; b < BINS; b += blockDim.x)
    if (block_bins[b] != 0) atomicAdd(&args->bins[b], block_bins[b]);
}

int main(void) {
  /* Numerical Recipes' LCG; the top byte is the best-mixed one. */
  unsigned state = 2024u;
  for (unsigned b = 0; b < BINS; b++) {
    bins[b] = 0;
    want[b] = 0;
  }
  for (unsigned i = 0; i < VALUES; i++) {
    state = state * 1664525u + 1013904223u;
    values[i] = (unsigned char)(state >> 24);
    want[values[i]]++;
  }

  struct histogram_args args = {values, VALUES, bins};
  tessera_roi_begin();
  tessera_launch(histogram, BLOCKS, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0, total = 0;
  for (unsigned b = 0; b < BINS; b++) {
    total += bins[b];
    if (bins[b] != want[b]) {
      if (errors < 8) printf("FAIL histogram: bin %u = %u, want %u\n", b, bins[b], want[b]);
      errors++;
    }
  }
  if (total != VALUES) {
    printf("FAIL histogram: bins sum to %u, want %u\n", total, VALUES);
    errors++;
  }
  if (errors) {
    printf("FAIL histogram: %u errors\n", errors);
    return 1;
  }
  printf("PASS histogram (%u values, %u bins, %u blocks of %u)\n", VALUES, BINS, BLOCKS, BLOCK);
  return 0;
}
