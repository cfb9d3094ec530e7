/* ballot_compact: stream compaction with warp votes, as CUDA code writes it.
 * Every warp takes 32 consecutive elements; __ballot_sync says which of them
 * are kept (multiples of 3), the popcount of the ballot is the warp's count,
 * lane 0 reserves that many output slots with one atomicAdd, __shfl_sync
 * broadcasts the base to the warp, and each kept element goes to base + the
 * popcount of the ballot bits below its lane. N is not a multiple of 32: the
 * loop runs whole warps and lanes past the end vote 0, so every lane of the
 * mask takes part. The host checks that the output holds exactly the kept
 * elements, each warp's in input order and contiguous, and the count. */
#include <tessera.h>

#define N 20007u
#define BLOCK 128
#define BLOCKS 16
#define FULL 0xffffffffu

struct compact_args {
  const int* in;
  unsigned n;
  int* out;
  int* pos; /* where each input element went, or -1 */
  unsigned* count;
};

static int data[N], out[N], pos[N];
static unsigned count;

static inline int keep(int v) { return v % 3 == 0; }

TESSERA_KERNEL void compact(void* argp) {
  const struct compact_args* a = argp;
  const unsigned lane = threadIdx.x % 32;
  const unsigned stride = gridDim.x * blockDim.x;
  const unsigned rounded = (a->n + 31u) & ~31u;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < rounded; i += stride) {
    const int in_range = i < a->n;
    const int v = in_range ? a->in[i] : 0;
    const int k = in_range && keep(v);
    const unsigned ballot = __ballot_sync(FULL, k);
    unsigned base = 0;
    if (lane == 0 && ballot) base = atomicAdd(a->count, (unsigned)__builtin_popcount(ballot));
    base = __shfl_sync(FULL, base, 0);
    const unsigned rank = (unsigned)__builtin_popcount(ballot & ((1u << lane) - 1u));
    if (k) {
      a->out[base + rank] = v;
      a->pos[i] = (int)(base + rank);
    } else if (in_range) {
      a->pos[i] = -1;
    }
  }
}

int main(void) {
  unsigned state = 5u;
  for (unsigned i = 0; i < N; i++) {
    state = state * 1664525u + 1013904223u;
    data[i] = (int)(state >> 8);
    pos[i] = -2;
    out[i] = -1;
  }
  struct compact_args args = {data, N, out, pos, &count};
  tessera_roi_begin();
  tessera_launch(compact, BLOCKS, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0, want = 0;
  static unsigned char used[N];
  for (unsigned i = 0; i < N; i++) {
    if (!keep(data[i])) {
      if (pos[i] != -1) {
        if (errors < 8) printf("FAIL ballot_compact: element %u (%d) dropped has pos %d\n", i, data[i], pos[i]);
        errors++;
      }
      continue;
    }
    want++;
    const int p = pos[i];
    if (p < 0 || (unsigned)p >= N || out[p] != data[i] || used[p]) {
      if (errors < 8) printf("FAIL ballot_compact: element %u (%d) kept at %d\n", i, data[i], p);
      errors++;
      continue;
    }
    used[p] = 1;
  }
  /* Within each warp's 32 elements the kept ones are contiguous, in order. */
  for (unsigned w = 0; w < N; w += 32) {
    int prev = -1;
    for (unsigned i = w; i < w + 32 && i < N; i++) {
      if (pos[i] < 0) continue;
      if (prev >= 0 && pos[i] != prev + 1) {
        if (errors < 8) printf("FAIL ballot_compact: warp of %u: element %u at %d after %d\n", w, i, pos[i], prev);
        errors++;
      }
      prev = pos[i];
    }
  }
  if (count != want) {
    printf("FAIL ballot_compact: count %u, want %u\n", count, want);
    errors++;
  }
  if (errors) {
    printf("FAIL ballot_compact: %u errors\n", errors);
    return 1;
  }
  printf("PASS ballot_compact (%u elements, %u kept, %u blocks of %u)\n", N, count, BLOCKS, BLOCK);
  return 0;
}
