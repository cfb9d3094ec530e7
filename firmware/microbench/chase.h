/* chase.h - pointer chasing for the Tessera memory-latency microbenchmarks.
 *
 * The method of Mei and Chu, "Dissecting GPU Memory Hierarchy through
 * Microbenchmarking" (IEEE TPDS 28(1), 2017): every word of a chain holds
 * the address of the next one, so each load's address is the previous
 * load's result and the loads cannot overlap. Two clock() reads, each
 * after a store that must wait for the pointer it stores, bracket
 * CHASE_STEPS full load latencies (CHASE_TIMED); the average per load is
 * reported as it is. The loop runs CHASE_UNROLL loads per iteration so its
 * counter and branch hide behind the loads' latency.
 */
#ifndef CHASE_H
#define CHASE_H

#include <tessera.h>

#define CHASE_STEPS 256
#define CHASE_UNROLL 32

/* A plain (ld.global / ld.shared) dependent load: bypasses L1 for global
 * memory unless the platform caches global loads. */
TESSERA_INLINE const unsigned* chase_next_plain(const unsigned* p) {
  return (const unsigned*)(uintptr_t) * (const volatile unsigned*)p;
}

/* A read-only (ldg) dependent load, cached in the L1/texture cache. */
TESSERA_INLINE const unsigned* chase_next_ldg(const unsigned* p) { return (const unsigned*)(uintptr_t)__ldgu(p); }

#define CHASE_REPEAT4(x) x x x x
#define CHASE_REPEAT32(x) CHASE_REPEAT4(CHASE_REPEAT4(x)) CHASE_REPEAT4(CHASE_REPEAT4(x))

/* Follows steps (a multiple of CHASE_UNROLL) links from p with next(). */
#define CHASE_DEFINE(name, next)                                           \
  TESSERA_INLINE const unsigned* name(const unsigned* p, unsigned steps) { \
    for (unsigned i = 0; i < steps; i += CHASE_UNROLL) {                   \
      CHASE_REPEAT32(p = next(p);)                                         \
    }                                                                      \
    return p;                                                              \
  }

CHASE_DEFINE(chase_plain, chase_next_plain)
CHASE_DEFINE(chase_ldg, chase_next_ldg)

/* Where a timed chase ends and how long it took. */
struct chase_result {
  const unsigned* end;
  unsigned cycles;
};

/* Times CHASE_STEPS links of chase() from start. Storing a pointer to
 * *sink (a volatile pointer) waits for the load that produced it: the store
 * of start keeps the first clock() from being read while the load that
 * produced start (the warm-up's last) is still in flight, and the store of
 * the end keeps the second clock() from being read before the last timed
 * load's result arrives. The compiler barriers keep the clock reads where
 * they are written. */
#define CHASE_TIMED(chase, start, sink)                \
  __extension__({                                      \
    const unsigned* start_ = (start);                  \
    *(sink) = start_;                                  \
    __asm__ volatile("" ::: "memory");                 \
    unsigned t0_ = clock();                            \
    __asm__ volatile("" ::: "memory");                 \
    const unsigned* end_ = chase(start_, CHASE_STEPS); \
    *(sink) = end_;                                    \
    __asm__ volatile("" ::: "memory");                 \
    unsigned t1_ = clock();                            \
    (struct chase_result){end_, t1_ - t0_};            \
  })

/* Prints the machine-readable line `RESULT name cycles` (cycles per load,
 * two decimals) from a total over CHASE_STEPS loads. */
static inline void chase_print_result(const char* name, unsigned total_cycles) {
  unsigned hundredths = (total_cycles * 100u + CHASE_STEPS / 2) / CHASE_STEPS;
  printf("RESULT %s %u.%02u\n", name, hundredths / 100u, hundredths % 100u);
}

#endif /* CHASE_H */
