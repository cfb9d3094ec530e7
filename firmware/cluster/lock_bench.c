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
 */
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

int main(void) {
  const unsigned max_cores = tessera_num_cores();
  int ok = 1;
  for (cores = 1; cores <= max_cores; ++cores) {
    for (unsigned kind = SYNC_TAS; kind < SYNC_LOCK_KINDS; ++kind) {
      counter = 0;
      any_lock_init(&lock, (enum sync_lock_kind)kind);
      run_on_cores(cores, bench_worker, 0);
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
  if (ok) printf("PASS lock benchmark (1..%u cores, %u acquires per core)\n", max_cores, ACQUIRES);
  return ok ? 0 : 1;
}
