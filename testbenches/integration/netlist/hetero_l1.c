/* hetero_l1: one warp per SM sweeps a 32 KiB read-only table four times
 * with __ldgu (the L1/texture path), then adds in values it reads from a
 * buffer at 0x8800_0000. On chip_hetero the table lies in the first HBM
 * stack and the buffer in the second; the SMs of cluster `big` (96 KiB L1,
 * 48 KiB per half) keep the table after the first sweep, those of `small`
 * (24 KiB L1, 12 KiB per half) cannot. Each lane writes its sum; the host
 * checks every sum. */
#include <tessera.h>

#define TABLE_WORDS 8192 /* 32 KiB */
#define PASSES 4
#define BLOCK 32 /* one warp: partition 0, L1 half 0 */
#define HIGH_WORDS 4096
#define HIGH_BASE 0x88000000u

struct args {
  const unsigned* table;
  const unsigned* high;
  unsigned* sums; /* [blocks][BLOCK] */
};

static unsigned table[TABLE_WORDS] __attribute__((aligned(128)));
static unsigned sums[4 * BLOCK];

TESSERA_KERNEL void sweep(void* argp) {
  const struct args* a = argp;
  const unsigned *tab = a->table, *high = a->high;
  unsigned t = threadIdx.x;
  unsigned sum = 0;
  for (unsigned pass = 0; pass < PASSES; pass++)
    for (unsigned i = t; i < TABLE_WORDS; i += BLOCK) sum += __ldgu(&tab[i]);
  for (unsigned i = t; i < HIGH_WORDS; i += BLOCK) sum += high[i];
  a->sums[blockIdx.x * BLOCK + t] = sum;
}

int main(void) {
  unsigned* high = (unsigned*)HIGH_BASE;
  for (unsigned i = 0; i < TABLE_WORDS; i++) table[i] = i * 3u + 1u;
  for (unsigned i = 0; i < HIGH_WORDS; i++) high[i] = i ^ 0x5au;
  struct args a = {table, high, sums};
  unsigned blocks = 4; /* one per SM on a 4-SM chip */
  tessera_launch(sweep, blocks, BLOCK, 0, &a);
  tessera_wait();
  unsigned errors = 0;
  for (unsigned b = 0; b < blocks; b++)
    for (unsigned t = 0; t < BLOCK; t++) {
      unsigned want = 0;
      for (unsigned pass = 0; pass < PASSES; pass++)
        for (unsigned i = t; i < TABLE_WORDS; i += BLOCK) want += i * 3u + 1u;
      for (unsigned i = t; i < HIGH_WORDS; i += BLOCK) want += i ^ 0x5au;
      if (sums[b * BLOCK + t] != want) errors++;
    }
  if (errors) {
    printf("FAIL hetero_l1: %u of %u sums wrong\n", errors, blocks * BLOCK);
    return 1;
  }
  printf("PASS hetero_l1 (%u blocks)\n", blocks);
  return 0;
}
