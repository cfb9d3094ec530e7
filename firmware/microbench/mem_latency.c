/* mem_latency: global-memory load latency at each level of the hierarchy,
 * by pointer chasing from one thread (chase.h, after Mei and Chu):
 *
 *   l1_hit  read-only loads (__ldgu) over a 2 KiB ring, one link per
 *           32-byte sector: after the warm-up lap every sector is in L1.
 *   l2_hit  plain global loads, which bypass L1 by default, over a 32 KiB
 *           ring with one link per 128-byte line: after the warm-up lap it
 *           sits in L2 (L2 is far larger).
 *   dram    plain global loads over a 4 MiB ring, one link per 4 KiB: the
 *           ring holds 1024 lines whose addresses differ only in bits 12
 *           and up, so they crowd into a few L2 sets; chased in cyclic order
 *           with LRU replacement each line is evicted before it comes round
 *           again, and every timed load after the warm-up lap misses L2.
 *
 * Each case prints `RESULT <name> <cycles per load>` and a human line; the
 * program prints PASS if every chase ended on the link its ring says it
 * must (so the loads really followed the chains). */
#include "chase.h"

#define L1_STRIDE 32u  /* one sector */
#define L1_LINKS 64u   /* 2 KiB */
#define L2_STRIDE 128u /* one line */
#define L2_LINKS 256u  /* 32 KiB */
#define DRAM_STRIDE 4096u
#define DRAM_LINKS 1024u /* 4 MiB */

#define WORDS(stride, links) ((stride) / 4u * (links))

static unsigned l1_ring[WORDS(L1_STRIDE, L1_LINKS)] __attribute__((aligned(128)));
static unsigned l2_ring[WORDS(L2_STRIDE, L2_LINKS)] __attribute__((aligned(128)));
static unsigned dram_ring[WORDS(DRAM_STRIDE, DRAM_LINKS)] __attribute__((aligned(4096)));

struct latency_case {
  const char* name;
  const char* how;
  unsigned* ring;
  unsigned stride, links;
  /* filled by the kernel */
  unsigned cycles;
  const unsigned* end;
};

enum { CASE_L1_HIT, CASE_L2_HIT, CASE_DRAM, CASES };

struct latency_args {
  struct latency_case cases[CASES];
  const unsigned* sink;
};

/* The word of link i of a ring. */
static unsigned* ring_link(const struct latency_case* lc, unsigned i) {
  return &lc->ring[(i % lc->links) * (lc->stride / 4u)];
}

/* One thread: warm-up lap, then CHASE_STEPS timed links, for each case. */
TESSERA_KERNEL void chase_latencies(void* argp) {
  struct latency_args* args = argp;
  const unsigned* volatile* sink = (const unsigned* volatile*)&args->sink;
  struct latency_case* lc = &args->cases[CASE_L1_HIT];
  struct chase_result r = CHASE_TIMED(chase_ldg, chase_ldg(lc->ring, lc->links), sink);
  lc->cycles = r.cycles;
  lc->end = r.end;

  for (unsigned c = CASE_L2_HIT; c <= CASE_DRAM; c++) {
    lc = &args->cases[c];
    r = CHASE_TIMED(chase_plain, chase_plain(lc->ring, lc->links), sink);
    lc->cycles = r.cycles;
    lc->end = r.end;
  }
}

static struct latency_args args = {
    .cases =
        {
            [CASE_L1_HIT] = {"l1_hit", "__ldgu, 2 KiB ring, 32 B stride", l1_ring, L1_STRIDE, L1_LINKS, 0, 0},
            [CASE_L2_HIT] = {"l2_hit", "ld.global, 32 KiB ring, 128 B stride", l2_ring, L2_STRIDE, L2_LINKS, 0, 0},
            [CASE_DRAM] = {"dram", "ld.global, 4 MiB ring, 4 KiB stride", dram_ring, DRAM_STRIDE, DRAM_LINKS, 0, 0},
        },
};

int main(void) {
  _Static_assert(CHASE_STEPS % CHASE_UNROLL == 0 && L1_LINKS % CHASE_UNROLL == 0 && L2_LINKS % CHASE_UNROLL == 0 &&
                     DRAM_LINKS % CHASE_UNROLL == 0,
                 "chases run whole unrolled iterations");
  for (unsigned c = 0; c < CASES; c++) {
    const struct latency_case* lc = &args.cases[c];
    for (unsigned i = 0; i < lc->links; i++) *ring_link(lc, i) = (unsigned)(uintptr_t)ring_link(lc, i + 1);
  }

  tessera_launch_ref(chase_latencies, 1, 1, 0, &args);
  tessera_wait();

  unsigned errors = 0;
  for (unsigned c = 0; c < CASES; c++) {
    const struct latency_case* lc = &args.cases[c];
    /* The warm-up lap returns to link 0, then CHASE_STEPS more. */
    const unsigned* want_end = ring_link(lc, CHASE_STEPS);
    if (lc->end != want_end) {
      printf("FAIL mem_latency: %s chase ended at %p, want %p\n", lc->name, (const void*)lc->end,
             (const void*)want_end);
      errors++;
    }
    printf("%-7s %s: %u cycles for %u dependent loads\n", lc->name, lc->how, lc->cycles, CHASE_STEPS);
    chase_print_result(lc->name, lc->cycles);
  }
  if (errors) {
    printf("FAIL mem_latency: %u errors\n", errors);
    return 1;
  }
  printf("PASS mem_latency\n");
  return 0;
}
