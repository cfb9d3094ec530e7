/* Threads 16.. of each block return before __syncthreads(): exited threads
 * never arrive, so threads 0..15 wait at the barrier for ever. */
#include <tessera.h>

struct args {
  unsigned* out;
};

static unsigned out[64];

TESSERA_KERNEL void barrier_deadlock(void* argp) {
  const struct args* a = argp;
  unsigned t = threadIdx.x;
  if (t >= 16) return;
  a->out[t] = t;
  __syncthreads();
  a->out[t] += 1;
}

int main(void) {
  struct args a = {out};
  tessera_launch(barrier_deadlock, 1, 64, 0, &a);
  tessera_wait();
  printf("barrier_deadlock: kernel finished (should have deadlocked)\n");
  return 0;
}
