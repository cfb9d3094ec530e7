/*
 * Lock benchmark (after Culler & Singh §5.5, Fig. 5.30): for 1..N control
 * cores and each lock of sync.h, every core takes the lock ACQUIRES times
 * (a shared counter increment inside, nothing between). Core 0 reads the
 * cluster's bus counters (MMIO) and its cycle counter after a barrier that
 * starts everyone and after a barrier that ends the run, and prints per lock
 * hand-off (one acquire): bus transactions, invalidations and cycles.
 *
 *   RESULT lock <name> cores <n> txn_per_handoff T inval_per_handoff I cycles_per_acquire C
 *
 * The two barriers' own traffic is included (a few transactions per core
 * per run, small against cores * ACQUIRES hand-offs).
 *
 * Arguments (`tessera run chip lock_bench.elf -- LOCK [CORES]`) pick one
 * lock (tas, ttas, tas_backoff, ticket, array; "all" for every one) and
 * one core count (default: 1..cluster.cores), so that a design-space sweep
 * runs one configuration per point. Each measured run is a region of
 * interest (tessera_roi_begin/end), so roi.sim_cycles is its cycles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "sync.h"

#ifndef ACQUIRES
#define ACQUIRES 100u
#endif

static sync_any_lock lock;
static volatile unsigned counter SYNC_ALIGNED;
static unsigned cores;
static sync_central_barrier barrier;
static unsigned long long start_cycle, start_txn, start_inval;

static void bench_worker(void* arg) {
  (void)arg;
  const unsigned me = tessera_hart_id();
  unsigned sense = 0;
  central_barrier(&barrier, cores, &sense);
  if (me == 0) {
    start_txn = tessera_bus_transactions();
    start_inval = tessera_bus_invalidations();
    start_cycle = now_cycles();
  }
  for (unsigned i = 0; i < ACQUIRES; ++i) {
    const unsigned token = any_lock(&lock);
    counter = counter + 1u;
    any_unlock(&lock, token);
  }
  central_barrier(&barrier, cores, &sense);
}

/* argv[1]: a lock name or "all"; argv[2]: a core count. Returns 0 when
 * the arguments are good (and sets the ranges), else prints why. */
static int parse_args(int argc, char** argv, unsigned max_cores, unsigned* kind_lo, unsigned* kind_hi,
                      unsigned* cores_lo, unsigned* cores_hi) {
  *kind_lo = SYNC_TAS;
  *kind_hi = SYNC_LOCK_KINDS - 1u;
  *cores_lo = 1;
  *cores_hi = max_cores;
  if (argc > 3) {
    printf("usage: lock_bench [LOCK|all [CORES]]\n");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "all") != 0) {
    unsigned k = 0;
    while (k < SYNC_LOCK_KINDS && strcmp(argv[1], sync_lock_names[k]) != 0) ++k;
    if (k == SYNC_LOCK_KINDS) {
      printf("lock_bench: unknown lock '%s' (tas, ttas, tas_backoff, ticket, array or all)\n", argv[1]);
      return 1;
    }
    *kind_lo = *kind_hi = k;
  }
  if (argc > 2) {
    char* end = 0;
    const unsigned long n = strtoul(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || n < 1 || n > max_cores) {
      printf("lock_bench: CORES must be 1..%u (cluster.cores), not '%s'\n", max_cores, argv[2]);
      return 1;
    }
    *cores_lo = *cores_hi = (unsigned)n;
  }
  return 0;
}

int main(int argc, char** argv) {
  const unsigned max_cores = tessera_num_cores();
  unsigned kind_lo, kind_hi, cores_lo, cores_hi;
  if (parse_args(argc, argv, max_cores, &kind_lo, &kind_hi, &cores_lo, &cores_hi) != 0) return 2;
  int ok = 1;
  for (cores = cores_lo; cores <= cores_hi; ++cores) {
    for (unsigned kind = kind_lo; kind <= kind_hi; ++kind) {
      counter = 0;
      any_lock_init(&lock, (enum sync_lock_kind)kind);
      tessera_roi_begin();
      run_on_cores(cores, bench_worker, 0);
      tessera_roi_end();
      /* Read after the end barrier, as core 0 leaves it. */
      const unsigned long long cycles = now_cycles() - start_cycle;
      const unsigned long long txn = tessera_bus_transactions() - start_txn;
      const unsigned long long inval = tessera_bus_invalidations() - start_inval;
      const unsigned handoffs = cores * ACQUIRES;
      printf("RESULT lock %s cores %u", sync_lock_names[kind], cores);
      print_ratio("txn_per_handoff", txn, handoffs);
      print_ratio("inval_per_handoff", inval, handoffs);
      print_ratio("cycles_per_acquire", cycles, handoffs);
      printf("\n");
      if (counter != handoffs) {
        printf("FAIL lock %s on %u cores: counter %u, expected %u\n", sync_lock_names[kind], cores, counter, handoffs);
        ok = 0;
      }
    }
  }
  if (ok) printf("PASS lock benchmark (%u..%u cores, %u acquires per core)\n", cores_lo, cores_hi, ACQUIRES);
  return ok ? 0 : 1;
}
