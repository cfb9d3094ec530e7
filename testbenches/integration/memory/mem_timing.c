/* Memory-system timing kernels for the memory tests. One warp per launch so
 * nothing competes; inline assembly fixes each timed sequence and lane 0
 * stores the cycle difference. The expected values are derived by hand in
 * memory_test.cpp. */
#include <tessera.h>

enum pattern {
  STRIDE1,
  STRIDE2,
  STRIDE3,
  STRIDE4,
  STRIDE8,
  STRIDE16,
  STRIDE32,
  BROADCAST,
  PERMUTATION,
  ATOMIC_ONE_WORD,
  ATOMIC_STRIDE1,
  PATTERNS
};
static const char* const pattern_names[PATTERNS] = {"stride1",     "stride2",         "stride3",       "stride4",
                                                    "stride8",     "stride16",        "stride32",      "broadcast",
                                                    "permutation", "atomic_one_word", "atomic_stride1"};

/* A random permutation of 0..31 (fixed, so the run is reproducible). */
static const unsigned char permutation[32] = {17, 4, 29, 11, 0,  22, 8,  31, 13, 26, 2, 19, 6,  24, 15, 9,
                                              28, 1, 20, 12, 30, 5,  23, 16, 10, 27, 3, 18, 25, 7,  21, 14};

static volatile unsigned bank_cycles[PATTERNS];

__shared__ unsigned words[32 * 32];

static unsigned word_index(unsigned pattern, unsigned lane) {
  switch (pattern) {
    case STRIDE1:
    case ATOMIC_STRIDE1:
      return lane;
    case STRIDE2:
      return 2 * lane;
    case STRIDE3:
      return 3 * lane;
    case STRIDE4:
      return 4 * lane;
    case STRIDE8:
      return 8 * lane;
    case STRIDE16:
      return 16 * lane;
    case STRIDE32:
      return 32 * lane;
    case PERMUTATION:
      return permutation[lane];
    default:
      return 0; /* BROADCAST, ATOMIC_ONE_WORD */
  }
}

TESSERA_KERNEL void banks(void* argp) {
  const unsigned pattern = *(const unsigned*)argp;
  const unsigned lane = threadIdx.x;
  for (unsigned i = lane; i < 32 * 32; i += 32) words[i] = i;
  __syncthreads();
  volatile unsigned* p = &words[word_index(pattern, lane)];
  unsigned t0 = 0, t1 = 0, v, one = 1;
  /* Twice: the second run starts with the address long ready, so the load
   * dual-issues with the first clock read. */
  for (int rep = 0; rep < 2; rep++) {
    if (pattern >= ATOMIC_ONE_WORD)
      __asm__ volatile(
          "csrr %0, cycle\n\t"
          "amoadd.w %2, %4, (%3)\n\t"
          "add %2, %2, zero\n\t"
          "csrr %1, cycle"
          : "=&r"(t0), "=&r"(t1), "=&r"(v)
          : "r"(p), "r"(one)
          : "memory");
    else
      __asm__ volatile(
          "csrr %0, cycle\n\t"
          "lw %2, 0(%3)\n\t"
          "add %2, %2, zero\n\t"
          "csrr %1, cycle"
          : "=&r"(t0), "=&r"(t1), "=&r"(v)
          : "r"(p)
          : "memory");
  }
  if (lane == 0) bank_cycles[pattern] = t1 - t0;
}

/* Pointer chains through global memory: 8 links, one 128-byte line apart,
 * every lane following the same chain (one sector per warp load). */
#define LINKS 8
#define LINE_WORDS 32
static unsigned chain_ldg[LINKS * LINE_WORDS] __attribute__((aligned(128)));
static unsigned chain_plain[LINKS * LINE_WORDS] __attribute__((aligned(128)));
static volatile unsigned chase_cycles[4];

/* Eight nops first: the start address, just computed, is readable before
 * the clock is read (ALU latency 6). */
#define CHASE(insn)                 \
  __asm__ volatile(                 \
      ".rept 8\n\tnop\n\t.endr\n\t" \
      "csrr %0, cycle\n\t"          \
      ".rept 8\n\t" insn            \
      "\n\t.endr\n\t"               \
      "add %2, %2, zero\n\t"        \
      "csrr %1, cycle"              \
      : "=&r"(t0), "=&r"(t1), "+r"(p)::"memory")

TESSERA_KERNEL void chase(void* argp) {
  (void)argp;
  unsigned t0, t1, p;
  unsigned cycles[4];
  p = (unsigned)chain_ldg;
  CHASE(".insn i 0x2B, 2, %2, 0(%2)"); /* ldg.w: cold, to memory */
  cycles[0] = t1 - t0;
  p = (unsigned)chain_ldg;
  CHASE(".insn i 0x2B, 2, %2, 0(%2)"); /* ldg.w again: L1 hits */
  cycles[1] = t1 - t0;
  p = (unsigned)chain_plain;
  CHASE("lw %2, 0(%2)"); /* cold, to memory */
  cycles[2] = t1 - t0;
  p = (unsigned)chain_plain;
  CHASE("lw %2, 0(%2)"); /* L2 hits, or L1 hits with l1.cache_global_loads */
  cycles[3] = t1 - t0;
  if (threadIdx.x == 0)
    for (int i = 0; i < 4; i++) chase_cycles[i] = cycles[i];
}

/* Four warps, one per partition; only warps whose bit is set in the mask
 * load a read-only table, 16 times each. Partitions 0 and 1 share L1 half 0,
 * partitions 2 and 3 half 1. */
static unsigned table[16 * LINE_WORDS] __attribute__((aligned(128)));
static volatile unsigned sink[128];

TESSERA_KERNEL void unbalanced(void* argp) {
  const unsigned warp_mask = *(const unsigned*)argp;
  const unsigned warp = threadIdx.x / 32;
  unsigned sum = 0;
  if (warp_mask & (1u << warp))
    for (unsigned i = 0; i < 16; i++) sum += __ldgu(&table[i * LINE_WORDS + threadIdx.x % 32]);
  sink[threadIdx.x] = sum;
}

int main(void) {
  for (unsigned i = 0; i < LINKS; i++) {
    unsigned next = (i + 1) % LINKS;
    chain_ldg[i * LINE_WORDS] = (unsigned)&chain_ldg[next * LINE_WORDS];
    chain_plain[i * LINE_WORDS] = (unsigned)&chain_plain[next * LINE_WORDS];
  }
  for (unsigned i = 0; i < 16 * LINE_WORDS; i++) table[i] = i;

  static unsigned pattern_arg;
  for (unsigned pattern = 0; pattern < PATTERNS; pattern++) {
    pattern_arg = pattern;
    tessera_launch(banks, 1, 32, 0, &pattern_arg);
    tessera_wait();
    printf("RESULT shared_%s %u\n", pattern_names[pattern], bank_cycles[pattern]);
  }

  /* Twice: the second launch starts with L1 invalidated, L2 warm. */
  for (int launch = 0; launch < 2; launch++) {
    tessera_launch(chase, 1, 32, 0, 0);
    tessera_wait();
    printf("RESULT chase_ldg_cold %u\n", chase_cycles[0]);
    printf("RESULT chase_ldg_warm %u\n", chase_cycles[1]);
    printf("RESULT chase_plain_cold %u\n", chase_cycles[2]);
    printf("RESULT chase_plain_warm %u\n", chase_cycles[3]);
  }

  static unsigned mask_arg;
  mask_arg = 0x3; /* warps 0 and 1: half 0 only */
  tessera_roi_begin();
  tessera_launch(unbalanced, 1, 128, 0, &mask_arg);
  tessera_wait();
  tessera_roi_end();
  return 0;
}
