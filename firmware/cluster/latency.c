/*
 * Data-access latencies of a control core through its L1D (docs/coherence.md),
 * each timed with the cycle CSR around one load:
 *
 *   RESULT latency hit C           the line is in this core's cache
 *   RESULT latency memory C        nobody holds the line: memory supplies it
 *   RESULT latency cache_to_cache C   core 1 holds it modified and supplies it
 *
 * C counts from the csrr before the load to the csrr after it (the load's
 * cycles plus one). The integration test checks them against values derived
 * from the cluster parameters.
 */
#include "cluster.h"
#include "sync.h"

/* Initialised, so in .data: loaded by the simulator, never touched by
 * crt0 (which zeroes .bss through the cache). */
static volatile unsigned cold_line[SYNC_LINE / 4] SYNC_ALIGNED = {7u};
static volatile unsigned shared_line[SYNC_LINE / 4] SYNC_ALIGNED;

static unsigned timed_load(volatile unsigned* p, unsigned* value) {
  unsigned t0, t1, v;
  /* Line-aligned, so the three instructions come from one fetch-buffer
   * fill that happens before the first csrr. */
  __asm__ volatile(
      ".p2align 6\n\t"
      "csrr %0, cycle\n\t"
      "lw %1, 0(%3)\n\t"
      "csrr %2, cycle"
      : "=&r"(t0), "=&r"(v), "=r"(t1)
      : "r"(p)
      : "memory");
  *value = v;
  return t1 - t0;
}

static void write_shared(void* arg) {
  (void)arg;
  shared_line[0] = 42u;
}

int main(void) {
  unsigned v;
  const unsigned memory = timed_load(&cold_line[0], &v);
  const unsigned hit = timed_load(&cold_line[0], &v);
  tessera_core_start(1, write_shared, 0);
  tessera_core_join(1);
  const unsigned c2c = timed_load(&shared_line[0], &v);
  printf("RESULT latency hit %u\nRESULT latency memory %u\nRESULT latency cache_to_cache %u\n", hit, memory, c2c);
  if (v != 42u) {
    printf("FAIL latency: read %u, core 1 wrote 42\n", v);
    return 1;
  }
  printf("PASS latency\n");
  return 0;
}
