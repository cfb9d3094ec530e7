/*
 * The vector unit's loads and stores are coherent with the cluster's
 * caches (docs/vector.md, "Memory paths"):
 *   (a) core 0 writes with scalar stores, then reads with a vector load;
 *   (b) core 0 writes with a vector store, then reads with scalar loads;
 *   (c) core 1 writes with scalar stores (its L1D holds the lines
 *       modified), then core 0 reads with a vector load;
 *   (d) core 1 reads the lines into its L1D, core 0 overwrites them with a
 *       vector store, then core 1 reads them again with scalar loads.
 * Prints PASS/FAIL per case and "PASS vector_coherence" if all passed.
 */
#include "tessera.h"
#include "tessera_rvv.h"

#define N 48u

static volatile uint32_t shared[N] __attribute__((aligned(64)));
static uint32_t copied[N], seen[N];
static int failures;

/* dst[i] = src[i], with vector loads and stores. */
static void vector_copy(volatile uint32_t* dst, const volatile uint32_t* src, unsigned n) {
  for (unsigned vl; n > 0; n -= vl, src += vl, dst += vl)
    __asm__ volatile(TESSERA_RVV("vsetvli %0,%1,e32,m1,ta,ma\n\t"
                                 "vle32.v v1,(%2)\n\t"
                                 "vse32.v v1,(%3)")
                     : "=&r"(vl)
                     : "r"(n), "r"(src), "r"(dst)
                     : "memory");
}

static void check(const char* what, const uint32_t* got, uint32_t base) {
  for (unsigned i = 0; i < N; ++i)
    if (got[i] != base + i) {
      printf("FAIL vector_coherence %s: word %u is %u, expected %u\n", what, i, (unsigned)got[i], (unsigned)(base + i));
      ++failures;
      return;
    }
  printf("PASS vector_coherence %s\n", what);
}

static void scalar_write(void* arg) {
  const uint32_t base = (uint32_t)(uintptr_t)arg;
  for (unsigned i = 0; i < N; ++i) shared[i] = base + i;
}

static void scalar_read(void* arg) {
  (void)arg;
  for (unsigned i = 0; i < N; ++i) seen[i] = shared[i];
}

int main(void) {
  /* (a) */
  scalar_write((void*)100u);
  vector_copy(copied, shared, N);
  check("scalar store, vector load", copied, 100u);
  /* (b) */
  for (unsigned i = 0; i < N; ++i) copied[i] = 200u + i;
  vector_copy(shared, copied, N);
  for (unsigned i = 0; i < N; ++i) seen[i] = shared[i];
  check("vector store, scalar load", seen, 200u);
  /* (c) */
  tessera_core_start(1, scalar_write, (void*)300u);
  tessera_core_join(1);
  vector_copy(copied, shared, N);
  check("other core's scalar store, vector load", copied, 300u);
  /* (d) */
  tessera_core_start(1, scalar_read, 0);
  tessera_core_join(1);
  for (unsigned i = 0; i < N; ++i) copied[i] = 400u + i;
  vector_copy(shared, copied, N);
  tessera_core_start(1, scalar_read, 0);
  tessera_core_join(1);
  check("vector store, other core's scalar load", seen, 400u);
  if (failures) return 1;
  printf("PASS vector_coherence\n");
  return 0;
}
