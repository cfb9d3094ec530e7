/* Warp-level primitives under CUDA semantics, checked by the host against
 * values derived from the rules (not from the simulator): shuffle widths and
 * clamps for int, float and 64-bit values, sources that are inactive under
 * divergence, votes and __activemask inside a branch and in a partial warp,
 * __syncwarp around a shared-memory exchange, and __syncthreads_count/_and/_or
 * over three warps. Prints PASS or FAIL lines; returns non-zero on a FAIL. */
#include <tessera.h>

#define FULL 0xffffffffu
static const int kWidths[5] = {2, 4, 8, 16, 32};

/* [width][op][lane]: op 0 idx (srcLane 3 + width), 1 up 1, 2 down 1, 3 xor 1 */
static int shfl_int[5][4][32];
static float shfl_float[5][32];  /* down 1 */
static long long shfl_ll[5][32]; /* up 2 */

TESSERA_KERNEL void widths(void* argp) {
  (void)argp;
  const int lane = (int)tessera_lane_id();
  const int v = lane * 10 + 7;
  const float f = (float)lane * 0.5f;
  const long long ll = (long long)lane << 33 | lane;
  for (int w = 0; w < 5; w++) {
    const int width = kWidths[w];
    shfl_int[w][0][lane] = __shfl_sync(FULL, v, 3 + width, width);
    shfl_int[w][1][lane] = __shfl_up_sync(FULL, v, 1, width);
    shfl_int[w][2][lane] = __shfl_down_sync(FULL, v, 1, width);
    shfl_int[w][3][lane] = __shfl_xor_sync(FULL, v, 1, width);
    shfl_float[w][lane] = __shfl_down_sync(FULL, f, 1, width);
    shfl_ll[w][lane] = __shfl_up_sync(FULL, ll, 2, width);
  }
}

/* Even lanes only: [lane] results. */
static int div_odd_src[32], div_even_src[32];
static unsigned div_ballot[32], div_active[32];
static int div_any[32], div_all[32];

TESSERA_KERNEL void divergent(void* argp) {
  (void)argp;
  const int lane = (int)tessera_lane_id();
  const int v = 1000 + lane;
  if (lane % 2 == 0) {
    div_odd_src[lane] = __shfl_sync(0x55555555u, v, lane + 1);  /* inactive: own value */
    div_even_src[lane] = __shfl_sync(0x55555555u, v, lane ^ 2); /* active: its value */
    div_ballot[lane] = __ballot_sync(0x55555555u, lane % 4 == 0);
    div_active[lane] = __activemask();
    div_any[lane] = __any_sync(0x55555555u, lane == 6);
    div_all[lane] = __all_sync(0x55555555u, lane < 32);
  }
}

/* Block of 48 threads: warp 1 has 16 lanes. */
static unsigned partial_active[48], partial_ballot[48];
static int partial_sum[48];

TESSERA_KERNEL void partial_warp(void* argp) {
  (void)argp;
  const unsigned t = threadIdx.x;
  partial_active[t] = __activemask();
  partial_ballot[t] = __ballot_sync(FULL, 1);
  /* A reduction over the lanes that exist: a missing lane's value is the caller's own. */
  int s = 1;
  for (int off = 8; off > 0; off /= 2) s += __shfl_down_sync(FULL, s, off, 16);
  partial_sum[t] = s;
}

/* __syncwarp orders the shared-memory exchange within the warp. */
static int exchanged[32];
__shared__ int swap_buf[32];

TESSERA_KERNEL void warp_exchange(void* argp) {
  (void)argp;
  const int lane = (int)tessera_lane_id();
  swap_buf[lane] = lane * lane;
  __syncwarp();
  exchanged[lane] = swap_buf[31 - lane];
  __syncwarp(FULL);
}

/* Three warps: block reductions. */
static int red_count[96], red_and_true[96], red_and_false[96], red_or_true[96], red_or_false[96];

TESSERA_KERNEL void block_reductions(void* argp) {
  (void)argp;
  const unsigned t = threadIdx.x;
  red_count[t] = __syncthreads_count(t % 3 == 0);
  red_and_true[t] = __syncthreads_and(t < 96);
  red_and_false[t] = __syncthreads_and(t != 50);
  red_or_true[t] = __syncthreads_or(t == 95);
  red_or_false[t] = __syncthreads_or(0);
  __threadfence_block();
}

static unsigned errors;
static void check(int ok, const char* what, int i, long long got, long long want) {
  if (ok) return;
  if (errors < 12) printf("FAIL warp_semantics: %s [%d]: got %lld, want %lld\n", what, i, got, want);
  errors++;
}

int main(void) {
  tessera_launch(widths, 1, 32, 0, 0);
  tessera_launch(divergent, 1, 32, 0, 0);
  tessera_launch(partial_warp, 1, 48, 0, 0);
  tessera_launch(warp_exchange, 1, 32, 0, 0);
  tessera_launch(block_reductions, 1, 96, 0, 0);
  tessera_wait();

  for (int w = 0; w < 5; w++) {
    const int width = kWidths[w];
    for (int l = 0; l < 32; l++) {
      const int base = l - l % width, pos = l % width;
      check(shfl_int[w][0][l] == (base + 3 % width) * 10 + 7, "shfl idx", w * 32 + l, shfl_int[w][0][l],
            (base + 3 % width) * 10 + 7);
      const int up = pos >= 1 ? l - 1 : l, down = pos + 1 < width ? l + 1 : l, up2 = pos >= 2 ? l - 2 : l;
      check(shfl_int[w][1][l] == up * 10 + 7, "shfl up", w * 32 + l, shfl_int[w][1][l], up * 10 + 7);
      check(shfl_int[w][2][l] == down * 10 + 7, "shfl down", w * 32 + l, shfl_int[w][2][l], down * 10 + 7);
      check(shfl_int[w][3][l] == (l ^ 1) * 10 + 7, "shfl xor", w * 32 + l, shfl_int[w][3][l], (l ^ 1) * 10 + 7);
      check(shfl_float[w][l] == (float)down * 0.5f, "shfl down float", w * 32 + l, (long long)(shfl_float[w][l] * 2),
            down);
      check(shfl_ll[w][l] == ((long long)up2 << 33 | up2), "shfl up long long", w * 32 + l, shfl_ll[w][l],
            (long long)up2 << 33 | up2);
    }
  }
  for (int l = 0; l < 32; l += 2) {
    check(div_odd_src[l] == 1000 + l, "inactive source gives own value", l, div_odd_src[l], 1000 + l);
    check(div_even_src[l] == 1000 + (l ^ 2), "active source", l, div_even_src[l], 1000 + (l ^ 2));
    check(div_ballot[l] == 0x11111111u, "ballot in a branch", l, div_ballot[l], 0x11111111u);
    check(div_active[l] == 0x55555555u, "activemask in a branch", l, div_active[l], 0x55555555u);
    check(div_any[l] == 1, "any in a branch", l, div_any[l], 1);
    check(div_all[l] == 1, "all in a branch", l, div_all[l], 1);
  }
  for (int t = 0; t < 48; t++) {
    const unsigned want = t < 32 ? FULL : 0xffffu;
    check(partial_active[t] == want, "activemask of a partial warp", t, partial_active[t], want);
    check(partial_ballot[t] == want, "ballot of a partial warp", t, partial_ballot[t], want);
    /* Each 16-lane segment's lane 0 sums its 16 ones. */
    if (t % 16 == 0) check(partial_sum[t] == 16, "segment sum", t, partial_sum[t], 16);
  }
  for (int l = 0; l < 32; l++)
    check(exchanged[l] == (31 - l) * (31 - l), "syncwarp exchange", l, exchanged[l], (31 - l) * (31 - l));
  for (int t = 0; t < 96; t++) {
    check(red_count[t] == 32, "__syncthreads_count", t, red_count[t], 32);
    check(red_and_true[t] == 1, "__syncthreads_and true", t, red_and_true[t], 1);
    check(red_and_false[t] == 0, "__syncthreads_and false", t, red_and_false[t], 0);
    check(red_or_true[t] == 1, "__syncthreads_or true", t, red_or_true[t], 1);
    check(red_or_false[t] == 0, "__syncthreads_or false", t, red_or_false[t], 0);
  }
  if (errors) {
    printf("FAIL warp_semantics: %u errors\n", errors);
    return 1;
  }
  printf("PASS warp_semantics (shuffle widths, divergence, partial warps, syncwarp, block reductions)\n");
  return 0;
}
