/*
 * False sharing: every control core increments its own counter INCREMENTS
 * times, first with the counters packed in one cache line, then padded to a
 * line each. Packed, each increment needs the line in M and steals it from
 * the previous writer (a bus transaction and an invalidation per
 * increment); padded, a core's line stays in its own cache.
 *
 *   RESULT false_sharing <packed|padded> cores <n> cycles C txn T inval I
 *
 * PASS when every counter is right and, with 2 or more cores, padded takes
 * fewer cycles and bus transactions than packed.
 */
#include "cluster.h"
#include "sync.h"

#define INCREMENTS 500u

static volatile unsigned packed[SYNC_MAX_CORES] SYNC_ALIGNED;
static struct { volatile unsigned v; } SYNC_ALIGNED padded[SYNC_MAX_CORES];
static int use_padded;
static unsigned cores;
static sync_central_barrier barrier;
static unsigned long long start_cycle, start_txn, start_inval;

static void worker(void* arg) {
  (void)arg;
  const unsigned me = tessera_hart_id();
  unsigned sense = 0;
  volatile unsigned* mine = use_padded ? &padded[me].v : &packed[me];
  central_barrier(&barrier, cores, &sense);
  if (me == 0) {
    start_txn = tessera_bus_transactions();
    start_inval = tessera_bus_invalidations();
    start_cycle = now_cycles();
  }
  for (unsigned i = 0; i < INCREMENTS; ++i) *mine = *mine + 1u;
  central_barrier(&barrier, cores, &sense);
}

int main(void) {
  cores = tessera_num_cores();
  unsigned long long cycles[2], txn[2];
  int ok = 1;
  for (use_padded = 0; use_padded <= 1; ++use_padded) {
    for (unsigned c = 0; c < SYNC_MAX_CORES; ++c) packed[c] = padded[c].v = 0;
    run_on_cores(cores, worker, 0);
    cycles[use_padded] = now_cycles() - start_cycle;
    txn[use_padded] = tessera_bus_transactions() - start_txn;
    const unsigned long long inval = tessera_bus_invalidations() - start_inval;
    printf("RESULT false_sharing %s cores %u cycles %llu txn %llu inval %llu\n", use_padded ? "padded" : "packed",
           cores, cycles[use_padded], txn[use_padded], inval);
    for (unsigned c = 0; c < cores; ++c) {
      const unsigned v = use_padded ? padded[c].v : packed[c];
      if (v != INCREMENTS) {
        printf("FAIL false_sharing: core %u counted %u of %u\n", c, v, INCREMENTS);
        ok = 0;
      }
    }
  }
  if (cores >= 2 && !(cycles[1] < cycles[0] && txn[1] < txn[0])) {
    printf("FAIL false_sharing: padded is not faster than packed\n");
    ok = 0;
  }
  if (ok) printf("PASS false sharing on %u cores\n", cores);
  return ok ? 0 : 1;
}
