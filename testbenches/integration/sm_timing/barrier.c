/* Barrier semantics: warp 0 arrives late (it spins first); no thread may
 * leave __syncthreads() before the last one arrives, and shared-memory
 * stores made before the barrier are visible to every thread after it. */
#include <tessera.h>

#define THREADS 128

static volatile unsigned arrive[THREADS], leave[THREADS];
static volatile int seen[THREADS];
__shared__ int tile[THREADS];

TESSERA_KERNEL void late_warp(void* argp) {
  (void)argp;
  unsigned t = threadIdx.x;
  if (tessera_warp_id() == 0)
    for (volatile int i = 0; i < 300; i++)
      ;
  tile[t] = (int)(t * 3 + 1);
  arrive[t] = clock();
  __syncthreads();
  leave[t] = clock();
  seen[t] = tile[(t + 37) % THREADS];
}

int main(void) {
  tessera_launch(late_warp, 1, THREADS, 0, 0);
  tessera_wait();
  unsigned last_arrival = 0, first_leave = ~0u, first_arrival = ~0u;
  int wrong = 0;
  for (unsigned t = 0; t < THREADS; t++) {
    if (arrive[t] > last_arrival) last_arrival = arrive[t];
    if (arrive[t] < first_arrival) first_arrival = arrive[t];
    if (leave[t] < first_leave) first_leave = leave[t];
    if (seen[t] != (int)(((t + 37) % THREADS) * 3 + 1)) wrong++;
  }
  printf("RESULT first_arrival %u\n", first_arrival);
  printf("RESULT last_arrival %u\n", last_arrival);
  printf("RESULT first_leave %u\n", first_leave);
  printf("RESULT wrong_shared_values %d\n", wrong);
  return 0;
}
