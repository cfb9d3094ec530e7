/* Occupancy: blocks of 128 threads that each take 520 bytes of dynamic
 * shared memory, on an SM with 1.5 KiB of shared memory (the test sets
 * sm.shared_bytes=1536). Each block records when it started and finished;
 * the host prints the intervals. No __shared__ variables here, so a block's
 * shared footprint is exactly the dynamic 520 bytes. */
#include <tessera.h>

#define BLOCKS 6

static volatile unsigned first[BLOCKS], last[BLOCKS];

TESSERA_KERNEL void work(void* argp) {
  (void)argp;
  unsigned b = blockIdx.x;
  unsigned t0 = clock();
  volatile int* s = tessera_dynamic_shared();
  s[threadIdx.x] = (int)threadIdx.x;
  for (volatile int i = 0; i < 50 + 20 * (int)b; i++)
    ;
  __syncthreads();
  if (threadIdx.x == 0) {
    first[b] = t0;
    last[b] = clock();
  }
}

int main(void) {
  tessera_launch(work, BLOCKS, 128, 520, 0);
  tessera_wait();
  for (unsigned b = 0; b < BLOCKS; b++) printf("RESULT block%u %u %u\n", b, first[b], last[b]);
  return 0;
}
