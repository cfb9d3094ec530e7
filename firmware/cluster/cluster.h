/*
 * Helpers shared by the control-core cluster programs: run a function on
 * several control cores, and print fixed-point figures (RESULT lines).
 */
#ifndef TESSERA_CLUSTER_PROGRAMS_H
#define TESSERA_CLUSTER_PROGRAMS_H

#include <stdio.h>

#include "tessera.h"

/* fn(arg) on cores 0..n-1 (the caller is core 0); returns when all are done. */
static inline void run_on_cores(unsigned n, void (*fn)(void*), void* arg) {
  for (unsigned h = 1; h < n; ++h) tessera_core_start(h, fn, arg);
  fn(arg);
  for (unsigned h = 1; h < n; ++h) tessera_core_join(h);
}

/* num / den with two decimals. */
static inline void print_ratio(const char* label, unsigned long long num, unsigned long long den) {
  const unsigned long long x100 = den ? (num * 100ull + den / 2u) / den : 0ull;
  printf(" %s %llu.%02llu", label, x100 / 100ull, x100 % 100ull);
}

/* The cycle counter of the calling core (the cycle CSR). */
static inline unsigned long long now_cycles(void) { return tessera_clock64(); }

#endif
