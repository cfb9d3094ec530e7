/*
 * Litmus tests on two control cores, thousands of iterations each, with the
 * count of every outcome (Adve & Gharachorloo, "Shared Memory Consistency
 * Models: A Tutorial", 1996; the x86-TSO litmus tests of Sewell et al.):
 *
 *   sb  core 0: x = 1; r1 = y     core 1: y = 1; r2 = x    SC forbids r1 = r2 = 0
 *   mp  core 0: d = 1; f = 1      core 1: r1 = f; r2 = d   SC and TSO forbid r1 = 1, r2 = 0
 *   lb  core 0: r1 = x; y = 1     core 1: r2 = y; x = 1    SC and TSO forbid r1 = r2 = 1
 *
 * Each iteration: both cores meet at a barrier, read both locations (so
 * each cache holds them shared), wait a pseudo-random 0..15 delay steps, run their two accesses, meet again; core 0
 * counts the outcome and resets the locations. Prints `RESULT litmus <test> <r1r2> <count>` and `RESULT litmus <test>
 * forbidden <count>`; PASS when mp and lb never show their forbidden outcome (sb's is allowed under TSO: the test
 * harness checks it against cluster.store_buffer).
 */
#include "cluster.h"
#include "sync.h"

#ifndef LITMUS_ITERATIONS
#define LITMUS_ITERATIONS 2000u
#endif

enum test { SB, MP, LB };
static const char* const kNames[] = {"sb", "mp", "lb"};

static volatile unsigned x SYNC_ALIGNED, y SYNC_ALIGNED;
static volatile unsigned r1 SYNC_ALIGNED, r2 SYNC_ALIGNED;
static sync_central_barrier barrier;
static enum test current;
static unsigned counts[3][4];

static unsigned next_random(unsigned* state) {
  *state = *state * 1664525u + 1013904223u; /* Numerical Recipes LCG */
  return *state >> 16;
}

static void worker(void* arg) {
  (void)arg;
  const unsigned me = tessera_hart_id();
  unsigned sense = 0, seed = 12345u + 777u * me;
  for (unsigned it = 0; it < LITMUS_ITERATIONS; ++it) {
    central_barrier(&barrier, 2, &sense);
    /* Warm both locations into both caches (shared): a store then
     * needs an upgrade on the bus, the window in which a store buffer
     * lets a later load overtake it. */
    const unsigned warm = x + y;
    (void)warm;
    sync_delay(next_random(&seed) & 15u);
    switch (current) {
      case SB:
        if (me == 0) {
          x = 1;
          r1 = y;
        } else {
          y = 1;
          r2 = x;
        }
        break;
      case MP: /* x is d, y is f */
        if (me == 0) {
          x = 1;
          y = 1;
        } else {
          r1 = y;
          r2 = x;
        }
        break;
      case LB:
        if (me == 0) {
          r1 = x;
          y = 1;
        } else {
          r2 = y;
          x = 1;
        }
        break;
    }
    central_barrier(&barrier, 2, &sense);
    if (me == 0) {
      ++counts[current][(r1 << 1) | r2];
      x = y = r1 = r2 = 0;
    }
  }
}

int main(void) {
  if (tessera_num_cores() < 2) {
    printf("FAIL litmus: needs 2 control cores (cluster.cores)\n");
    return 1;
  }
  static const unsigned forbidden[3] = {0u /* 00 */, 2u /* 10 */, 3u /* 11 */};
  int ok = 1;
  for (enum test t = SB; t <= LB; ++t) {
    current = t;
    run_on_cores(2, worker, 0);
    for (unsigned o = 0; o < 4; ++o) printf("RESULT litmus %s r1r2=%u%u %u\n", kNames[t], o >> 1, o & 1u, counts[t][o]);
    printf("RESULT litmus %s forbidden %u\n", kNames[t], counts[t][forbidden[t]]);
    unsigned total = 0;
    for (unsigned o = 0; o < 4; ++o) total += counts[t][o];
    if (total != LITMUS_ITERATIONS || (t != SB && counts[t][forbidden[t]] != 0)) {
      printf("FAIL litmus %s\n", kNames[t]);
      ok = 0;
    }
  }
  if (ok) printf("PASS litmus (%u iterations per test)\n", LITMUS_ITERATIONS);
  return ok ? 0 : 1;
}
