/*
 * Shared frame of the transactional-memory programs (htm_bank, htm_hashmap,
 * htm_histogram, htm_list; docs/htm.md). Each program runs its workload on
 * 1, 2, 4, 8 control cores (up to tessera_num_cores()) in three variants:
 *
 *   coarse  one lock (a test-and-test-and-set word) around every operation
 *   fine    per-element / per-bucket locks
 *   tx      TESSERA_ATOMIC (tessera_htm.h) with the coarse lock as its
 *           fallback (lock elision)
 *
 * and prints, after checking the result, one line per variant and core count:
 *
 *   RESULT htm <program> variant <v> cores <n> cycles <c> ops <k> commits <x>
 *          aborts <a> fallbacks <f> bus_txn <t> [aborts_<reason> <n> ...]
 *
 * cycles and bus_txn are core 0's cycle counter and the cluster's bus
 * transaction counter across the measured region (from the barrier that
 * starts every core to the barrier that ends the run); commits, aborts and
 * fallbacks are the runtime's per-core counters summed over the cores
 * (0 for the lock variants); aborts_<reason> lists the reasons that occurred.
 * The total work is the same for every core count (the cores share it), so
 * cycles compare directly (speedup over the 1-core coarse run).
 *
 * Built with -DHTM_NO_TX the tx variant is left out and the program uses no
 * transactional instruction (a lock-only build that runs without HTM).
 */
#ifndef TESSERA_CLUSTER_HTM_BENCH_H
#define TESSERA_CLUSTER_HTM_BENCH_H

#include "cluster.h"
#include "sync.h"

enum htm_variant { HTM_COARSE, HTM_FINE, HTM_TX, HTM_VARIANTS };
static const char* const htm_variant_names[HTM_VARIANTS] = {"coarse", "fine", "tx"};
#ifdef HTM_NO_TX
#define HTM_RUN_VARIANTS 2u /* coarse and fine only */
#else
#define HTM_RUN_VARIANTS 3u
#endif

/* The abort reasons of the abort status (bits 7:0), 1..8 (0: any other). */
#define HTM_REASONS 9u
static const char* const htm_reason_names[HTM_REASONS] = {
    "other", "explicit", "conflict_rw", "conflict_wr", "conflict_ww", "capacity", "mmio", "nesting", "log_overflow"};

/* A core's transaction counters (cumulative since it started). */
typedef struct {
  unsigned commits, aborts, fallbacks;
  unsigned by_reason[HTM_REASONS];
} htm_counts;

#ifndef HTM_NO_TX
/* This core's counters from the runtime (tessera_htm.h). */
static inline void htm_read_counts(htm_counts* c) {
  const tessera_tx_counters_t* t = tessera_tx_counters();
  c->commits = t->commits;
  c->aborts = t->aborts;
  c->fallbacks = t->fallbacks;
  for (unsigned r = 0; r < HTM_REASONS; ++r) c->by_reason[r] = r < TESSERA_TX_REASONS ? t->by_reason[r] : 0u;
}
#else
static inline void htm_read_counts(htm_counts* c) { *c = (htm_counts){0}; }
#endif

/* ---- locks ---------------------------------------------------------------- */

/* A lock word (0 free, 1 held) in a line of its own: the coarse lock, which
 * the tx variant also uses as its fallback lock. */
typedef struct {
  volatile unsigned word;
} SYNC_ALIGNED htm_lock;

/* test-and-test-and-set on a lock word. */
SYNC_INLINE void htm_word_lock(volatile unsigned* w) {
  for (;;) {
    while (sync_load(w) != 0u)
      ;
    if (sync_swap(w, 1u) == 0u) return;
  }
}
SYNC_INLINE void htm_word_unlock(volatile unsigned* w) { sync_store(w, 0u); }

/* One operation as a critical section of the variant: the coarse lock
 * around `body` (coarse), `body` alone (fine: it takes its own locks), or a
 * transaction eliding the coarse lock (tx). `body` is a statement without
 * break/return. */
#ifndef HTM_NO_TX
#define HTM_CRITICAL(variant, coarse, body)                         \
  do {                                                              \
    if ((variant) == HTM_TX) {                                      \
      TESSERA_ATOMIC((tessera_tx_lock_t*)&(coarse)->word) { body; } \
    } else if ((variant) == HTM_COARSE) {                           \
      htm_word_lock(&(coarse)->word);                               \
      body;                                                         \
      htm_word_unlock(&(coarse)->word);                             \
    } else {                                                        \
      body;                                                         \
    }                                                               \
  } while (0)
#else
#define HTM_CRITICAL(variant, coarse, body) \
  do {                                      \
    if ((variant) == HTM_COARSE) {          \
      htm_word_lock(&(coarse)->word);       \
      body;                                 \
      htm_word_unlock(&(coarse)->word);     \
    } else {                                \
      body;                                 \
    }                                       \
  } while (0)
#endif

/* ---- pseudo-random numbers ------------------------------------------------ */

/* A per-core linear congruential generator (Numerical Recipes constants);
 * the high bits are the random ones. */
SYNC_INLINE unsigned htm_rand(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}
SYNC_INLINE unsigned htm_seed(unsigned core, unsigned salt) { return 0x9E3779B9u * (core + 1u) ^ salt; }

/* ---- the measured run ----------------------------------------------------- */

typedef struct {
  htm_counts start, end;
} SYNC_ALIGNED htm_core_counts;

typedef struct {
  const char* program;
  enum htm_variant variant;
  unsigned cores;
  sync_central_barrier barrier;
  unsigned long long start_cycle, end_cycle;
  unsigned start_txn, end_txn;
  htm_core_counts counts[SYNC_MAX_CORES];
  void (*work)(unsigned me);
} htm_run;

static htm_run htm_current;

static void htm_worker(void* arg) {
  (void)arg;
  htm_run* r = &htm_current;
  const unsigned me = tessera_hart_id();
  unsigned sense = 0;
  htm_read_counts(&r->counts[me].start);
  central_barrier(&r->barrier, r->cores, &sense);
  if (me == 0) {
    r->start_txn = tessera_bus_transactions();
    r->start_cycle = now_cycles();
  }
  r->work(me);
  central_barrier(&r->barrier, r->cores, &sense);
  if (me == 0) {
    r->end_cycle = now_cycles();
    r->end_txn = tessera_bus_transactions();
  }
  htm_read_counts(&r->counts[me].end);
}

/* Runs work(me) on `cores` cores as variant `variant`, then prints the
 * RESULT line with `ops` operations. */
static inline void htm_measure(const char* program, enum htm_variant variant, unsigned cores, unsigned ops,
                               void (*work)(unsigned me)) {
  htm_run* r = &htm_current;
  r->program = program;
  r->variant = variant;
  r->cores = cores;
  r->work = work;
  run_on_cores(cores, htm_worker, 0);
  htm_counts sum = {0};
  for (unsigned c = 0; c < cores; ++c) {
    const htm_counts* s = &r->counts[c].start;
    const htm_counts* e = &r->counts[c].end;
    sum.commits += e->commits - s->commits;
    sum.aborts += e->aborts - s->aborts;
    sum.fallbacks += e->fallbacks - s->fallbacks;
    for (unsigned k = 0; k < HTM_REASONS; ++k) sum.by_reason[k] += e->by_reason[k] - s->by_reason[k];
  }
  printf("RESULT htm %s variant %s cores %u cycles %llu ops %u commits %u aborts %u fallbacks %u bus_txn %u", program,
         htm_variant_names[variant], cores, r->end_cycle - r->start_cycle, ops, sum.commits, sum.aborts, sum.fallbacks,
         r->end_txn - r->start_txn);
  for (unsigned k = 0; k < HTM_REASONS; ++k)
    if (sum.by_reason[k] != 0u) printf(" aborts_%s %u", htm_reason_names[k], sum.by_reason[k]);
  printf("\n");
}

/* The core counts a program runs: 1, 2, 4, 8 up to tessera_num_cores(). */
#define HTM_FOR_CORES(n) for (unsigned n = 1; n <= tessera_num_cores() && n <= 8u; n *= 2u)

/* The variants a program runs (coarse, fine, and tx unless HTM_NO_TX). */
#define HTM_FOR_VARIANTS(v) \
  for (enum htm_variant v = HTM_COARSE; (unsigned)v < HTM_RUN_VARIANTS; v = (enum htm_variant)(v + 1))

#endif /* TESSERA_CLUSTER_HTM_BENCH_H */
