/* A warp split across the block barrier: in warp 0, threads 0..15 wait at
 * __syncthreads() while threads 16..31 wait at a __syncwarp() that names
 * them, so neither side ever moves. Warp 1 passes its __syncwarp() and
 * exits (exited threads drop out of the barrier); threads 16..31 neither
 * exit nor arrive, so threads 0..15 wait for ever. */
#include <tessera.h>

struct args {
  unsigned* out;
};

static unsigned out[64];

TESSERA_KERNEL void barrier_deadlock(void* argp) {
  const struct args* a = argp;
  unsigned t = threadIdx.x;
  if (t >= 16) {
    __syncwarp(0xffffffffu);
    return;
  }
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
