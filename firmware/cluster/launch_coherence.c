/*
 * Kernel-launch coherence points (docs/coherence.md): what the control
 * cores wrote before tessera_launch() is what the kernel reads, and what the
 * kernel wrote is what they read after tessera_wait() - even for lines they
 * held in their caches before and during the kernel.
 *
 * Cores 0 and 1 each write half of `in` (dirty lines in their L1Ds) and
 * fill `out` with a marker; the kernel computes out[i] = 2 in[i] + 1 and
 * in[i] += 7. Core 0 reads `out` while the kernel runs (caching the lines
 * again); after tessera_wait() cores 0 and 1 check both arrays.
 */
#include "cluster.h"

#define N 2048u
#define MARKER 0xDEADBEEFu

static unsigned in[N], out[N];
static volatile unsigned errors;

TESSERA_KERNEL void twice_plus_one(void* args) {
  (void)args;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2u * in[i] + 1u;
  in[i] = in[i] + 7u;
}

static void fill_half(void* arg) {
  const unsigned half = (unsigned)(uintptr_t)arg;
  for (unsigned i = half * (N / 2); i < (half + 1) * (N / 2); ++i) {
    in[i] = 3u * i;
    out[i] = MARKER;
  }
}

static void check_half(void* arg) {
  const unsigned half = (unsigned)(uintptr_t)arg;
  unsigned bad = 0;
  for (unsigned i = half * (N / 2); i < (half + 1) * (N / 2); ++i)
    if (out[i] != 6u * i + 1u || in[i] != 3u * i + 7u) ++bad;
  __atomic_fetch_add(&errors, bad, __ATOMIC_RELAXED);
}

int main(void) {
  if (tessera_num_cores() < 2) {
    printf("FAIL launch_coherence: needs 2 control cores\n");
    return 1;
  }
  tessera_core_start(1, fill_half, (void*)1);
  fill_half((void*)0);
  tessera_core_join(1);

  tessera_launch(twice_plus_one, N / 128u, 128u, 0, 0);
  unsigned seen = 0; /* cache out[] while the kernel runs */
  for (unsigned i = 0; i < N; ++i) seen += out[i] == MARKER;
  tessera_wait();

  tessera_core_start(1, check_half, (void*)1);
  check_half((void*)0);
  tessera_core_join(1);
  printf("RESULT launch_coherence errors %u (markers seen during the kernel: %u)\n", errors, seen);
  if (errors != 0) {
    printf("FAIL launch_coherence: %u wrong values\n", errors);
    return 1;
  }
  printf("PASS launch_coherence (%u words)\n", N);
  return 0;
}
