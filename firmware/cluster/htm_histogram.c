/*
 * Histogram bin[A[i]]++ (htm_bench.h) over an input of ELEMENTS values in
 * 0..BINS-1, the cores taking every cores-th element. Two inputs, reported
 * as programs histogram_uniform (every bin equally likely) and
 * histogram_skewed (nine values in ten fall in bins 0 and 1: contention).
 * Check: the bins sum to ELEMENTS and each equals a sequential count.
 *
 * fine: a lock per bin (in the bin's line).
 */
#include "htm_bench.h"

#ifndef ELEMENTS
#define ELEMENTS 512u
#endif
#define BINS 16u

typedef struct {
  volatile unsigned count;
  volatile unsigned lock;
} SYNC_ALIGNED bin;

static bin bins[BINS];
static unsigned char input[ELEMENTS];
static unsigned expected[BINS];
static htm_lock coarse;

static void bump(unsigned b) { bins[b].count = bins[b].count + 1u; }

static void work(unsigned me) {
  const enum htm_variant v = htm_current.variant;
  const unsigned cores = htm_current.cores;
  for (unsigned i = me; i < ELEMENTS; i += cores) {
    const unsigned b = input[i];
    if (v == HTM_FINE) {
      htm_word_lock(&bins[b].lock);
      bump(b);
      htm_word_unlock(&bins[b].lock);
    } else {
      HTM_CRITICAL(v, &coarse, bump(b));
    }
  }
}

int main(void) {
  int ok = 1;
  for (unsigned skewed = 0; skewed <= 1u; ++skewed) {
    const char* program = skewed ? "histogram_skewed" : "histogram_uniform";
    unsigned rng = htm_seed(0, skewed ? 0x5E3Du : 0x0411u);
    for (unsigned b = 0; b < BINS; ++b) expected[b] = 0u;
    for (unsigned i = 0; i < ELEMENTS; ++i) {
      const unsigned r = htm_rand(&rng);
      input[i] = (unsigned char)(skewed && r % 10u != 0u ? (r >> 4) % 2u : (r >> 4) % BINS);
      ++expected[input[i]];
    }
    HTM_FOR_CORES(cores) {
      HTM_FOR_VARIANTS(v) {
        for (unsigned b = 0; b < BINS; ++b) bins[b].count = bins[b].lock = 0u;
        coarse.word = 0u;
        htm_measure(program, v, cores, ELEMENTS, work);
        unsigned sum = 0, wrong = 0;
        for (unsigned b = 0; b < BINS; ++b) {
          sum += bins[b].count;
          if (bins[b].count != expected[b]) ++wrong;
        }
        if (sum != ELEMENTS || wrong != 0u) {
          printf(
              "FAIL htm %s variant %s cores %u: the bins sum to %u (expected %u), %u bins differ from a "
              "sequential count\n",
              program, htm_variant_names[v], cores, sum, ELEMENTS, wrong);
          ok = 0;
        }
      }
    }
  }
  if (ok) printf("PASS htm histogram (%u elements, %u bins, uniform and skewed)\n", ELEMENTS, BINS);
  return ok ? 0 : 1;
}
