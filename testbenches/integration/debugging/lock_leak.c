/* A debugging test's bug (debugging_test.cpp): a control-core lock that one
 * path does not release. Core 0 pushes 0..3 and returns early on 3 with the
 * lock held; core 1, pushing many values, spins on it for ever. The
 * livelock report names the line core 1 spins on and core 0's write that
 * took the lock. */
#include <stdint.h>

#include "tessera.h"

typedef struct {
  volatile unsigned held;
} __attribute__((aligned(64))) spinlock;

static spinlock lock;
static unsigned queue_total;

static inline __attribute__((always_inline)) void acquire(spinlock* l) {
  while (__atomic_exchange_n(&l->held, 1u, __ATOMIC_ACQUIRE) != 0u)  // LINE: take
    while (l->held != 0u)                                            // LINE: spin
      ;
}

static inline __attribute__((always_inline)) void release(spinlock* l) {
  __atomic_store_n(&l->held, 0u, __ATOMIC_RELEASE);
}

static __attribute__((noinline)) int push(unsigned v) {
  acquire(&lock);
  if (v == 3) return -1; /* the bug: this path keeps the lock */
  queue_total += v;
  release(&lock);
  return 0;
}

static void worker(void* arg) {
  const unsigned first = (unsigned)(uintptr_t)arg, count = first == 0 ? 4u : 1000u;
  for (unsigned i = 0; i < count; ++i) push(first + i);
}

int main(void) {
  tessera_core_start(1, worker, (void*)(uintptr_t)4u);
  worker(0);
  tessera_core_join(1);
  return 0;
}
