/* atomic_counter: every thread takes a ticket with atomicAdd on one global
 * counter. The final count must equal the number of threads and the tickets
 * must be a permutation of 0..threads-1. Each block also counts its threads
 * with atomicAdd on a __shared__ counter, checked after __syncthreads(). */
#include <tessera.h>

#define BLOCKS 32
#define BLOCK 128
#define THREADS (BLOCKS * BLOCK)

struct atomic_args {
  unsigned* counter;
  unsigned* tickets;
  unsigned* block_counts;
};

static unsigned counter;
static unsigned tickets[THREADS];
static unsigned block_counts[BLOCKS];
static unsigned char seen[THREADS];

TESSERA_KERNEL void take_ticket(void* argp) {
  const struct atomic_args* args = argp;
  __shared__ unsigned block_count;

  unsigned t = threadIdx.x;
  if (t == 0) block_count = 0;
  __syncthreads();

  unsigned i = blockIdx.x * blockDim.x + t;
  args->tickets[i] = atomicAdd(args->counter, 1u);
  atomicAdd(&block_count, 1u);
  __syncthreads();

  if (t == 0) args->block_counts[blockIdx.x] = block_count;
}

int main(void) {
  counter = 0;
  for (unsigned i = 0; i < THREADS; i++) tickets[i] = 0xffffffffu;

  struct atomic_args args = {&counter, tickets, block_counts};
  tessera_roi_begin();
  tessera_launch(take_ticket, BLOCKS, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  if (counter != THREADS) {
    printf("FAIL atomic_counter: counter = %u, want %u\n", counter, THREADS);
    errors++;
  }
  for (unsigned i = 0; i < THREADS; i++) {
    unsigned t = tickets[i];
    if (t >= THREADS || seen[t]) {
      if (errors < 8)
        printf("FAIL atomic_counter: thread %u got ticket %u (%s)\n", i, t,
               t >= THREADS ? "out of range" : "duplicate");
      errors++;
    } else {
      seen[t] = 1;
    }
  }
  for (unsigned b = 0; b < BLOCKS; b++) {
    if (block_counts[b] != BLOCK) {
      if (errors < 8) printf("FAIL atomic_counter: block %u shared count %u, want %u\n", b, block_counts[b], BLOCK);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL atomic_counter: %u errors\n", errors);
    return 1;
  }
  printf("PASS atomic_counter (%u threads, %u blocks)\n", THREADS, BLOCKS);
  return 0;
}
