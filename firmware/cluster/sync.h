/*
 * Synchronisation for the control-core cluster: spin locks and barriers
 * after Culler & Singh, Parallel Computer Architecture, §5.5 (locks: test-
 * and-set, test-and-test-and-set, back-off, ticket, array-based; barriers:
 * centralized sense-reversing, tree) and Mellor-Crummey & Scott, "Algorithms
 * for Scalable Synchronization on Shared-Memory Multiprocessors" (1991).
 *
 * Acquires use RISC-V AMOs with acquire ordering, releases a release store
 * (fence rw,w; sw), so the code is correct under cluster.store_buffer=sc
 * and =tso. Everything a core spins on lives in a line of its own
 * (SYNC_LINE bytes, cluster.l1d.line_bytes of the reference platforms) so
 * that spinning hits in the spinner's cache until the holder writes.
 */
#ifndef TESSERA_CLUSTER_SYNC_H
#define TESSERA_CLUSTER_SYNC_H

#include <stdint.h>

#define SYNC_LINE 64u
#define SYNC_MAX_CORES 16u
#define SYNC_ALIGNED __attribute__((aligned(SYNC_LINE)))

#define SYNC_INLINE static inline __attribute__((always_inline))

/* Spinning reads are relaxed (a plain lw); sync_acquire() after the spin
 * orders what follows after the read that ended it (one fence per
 * acquire, not one per spin iteration). */
SYNC_INLINE unsigned sync_load(volatile unsigned* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
SYNC_INLINE void sync_acquire(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
SYNC_INLINE void sync_store(volatile unsigned* p, unsigned v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
SYNC_INLINE unsigned sync_swap(volatile unsigned* p, unsigned v) { return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL); }
SYNC_INLINE unsigned sync_fetch_add(volatile unsigned* p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
}

/* Busy-waits about `n` loop iterations without touching memory. */
SYNC_INLINE void sync_delay(unsigned n) {
  for (unsigned i = 0; i < n; ++i) __asm__ volatile("" ::: "memory");
}

/* ---- locks --------------------------------------------------------------- */

/* One word in a line of its own: test-and-set and its variants. */
typedef struct {
  volatile unsigned held;
} SYNC_ALIGNED sync_spinlock;

/* test-and-set: every attempt is a write (a BusRdX/BusUpgr per try). */
SYNC_INLINE void tas_lock(sync_spinlock* l) {
  while (sync_swap(&l->held, 1u) != 0u)
    ;
}

/* test-and-test-and-set: spin on a cached read, try the swap only when the
 * lock looks free. */
SYNC_INLINE void ttas_lock(sync_spinlock* l) {
  for (;;) {
    while (sync_load(&l->held) != 0u)
      ;
    if (sync_swap(&l->held, 1u) == 0u) return;
  }
}

/* test-and-set with exponential back-off (Anderson 1990): after a failed
 * try wait, doubling the wait up to a cap. */
#define TAS_BACKOFF_MIN 4u
#define TAS_BACKOFF_MAX 1024u
SYNC_INLINE void tas_backoff_lock(sync_spinlock* l) {
  unsigned wait = TAS_BACKOFF_MIN;
  while (sync_swap(&l->held, 1u) != 0u) {
    sync_delay(wait);
    if (wait < TAS_BACKOFF_MAX) wait *= 2u;
  }
}

SYNC_INLINE void spin_unlock(sync_spinlock* l) { sync_store(&l->held, 0u); }

/* Ticket lock: one AMO per acquire, then spin on now_serving (read-only). */
typedef struct {
  volatile unsigned next_ticket;
  volatile unsigned now_serving;
} SYNC_ALIGNED sync_ticket_lock;

SYNC_INLINE unsigned ticket_lock(sync_ticket_lock* l) {
  const unsigned mine = sync_fetch_add(&l->next_ticket, 1u);
  while (sync_load(&l->now_serving) != mine)
    ;
  sync_acquire();
  return mine;
}

SYNC_INLINE void ticket_unlock(sync_ticket_lock* l, unsigned mine) { sync_store(&l->now_serving, mine + 1u); }

/* Array-based queue lock (Anderson): each waiter spins on its own padded
 * slot; the holder hands the lock to the next slot only. */
typedef struct {
  volatile unsigned has_lock;
} SYNC_ALIGNED sync_slot;
typedef struct {
  sync_slot slots[SYNC_MAX_CORES];
  volatile unsigned next_slot SYNC_ALIGNED;
} sync_array_lock;

/* Before first use, by one core: slot 0 holds the lock. */
SYNC_INLINE void array_lock_init(sync_array_lock* l) {
  for (unsigned i = 0; i < SYNC_MAX_CORES; ++i) l->slots[i].has_lock = i == 0u;
  l->next_slot = 0u;
}

SYNC_INLINE unsigned array_lock(sync_array_lock* l) {
  const unsigned mine = sync_fetch_add(&l->next_slot, 1u) % SYNC_MAX_CORES;
  while (sync_load(&l->slots[mine].has_lock) == 0u)
    ;
  sync_acquire();
  l->slots[mine].has_lock = 0u; /* ready for its next lap */
  return mine;
}

SYNC_INLINE void array_unlock(sync_array_lock* l, unsigned mine) {
  sync_store(&l->slots[(mine + 1u) % SYNC_MAX_CORES].has_lock, 1u);
}

/* Any of the five locks, chosen at run time (the lock test and the lock
 * benchmark run each kind in turn). */
enum sync_lock_kind { SYNC_TAS, SYNC_TTAS, SYNC_TAS_BACKOFF, SYNC_TICKET, SYNC_ARRAY, SYNC_LOCK_KINDS };
static const char* const sync_lock_names[SYNC_LOCK_KINDS] = {"tas", "ttas", "tas_backoff", "ticket", "array"};

typedef struct {
  enum sync_lock_kind kind;
  sync_spinlock spin;
  sync_ticket_lock ticket;
  sync_array_lock array;
} sync_any_lock;

/* Before first use, by one core. */
SYNC_INLINE void any_lock_init(sync_any_lock* l, enum sync_lock_kind kind) {
  l->kind = kind;
  array_lock_init(&l->array);
}

/* Returns the token any_unlock() needs (ticket or slot; 0 for the spin locks). */
SYNC_INLINE unsigned any_lock(sync_any_lock* l) {
  switch (l->kind) {
    case SYNC_TAS:
      tas_lock(&l->spin);
      return 0u;
    case SYNC_TTAS:
      ttas_lock(&l->spin);
      return 0u;
    case SYNC_TAS_BACKOFF:
      tas_backoff_lock(&l->spin);
      return 0u;
    case SYNC_TICKET:
      return ticket_lock(&l->ticket);
    default:
      return array_lock(&l->array);
  }
}

SYNC_INLINE void any_unlock(sync_any_lock* l, unsigned token) {
  switch (l->kind) {
    case SYNC_TICKET:
      ticket_unlock(&l->ticket, token);
      break;
    case SYNC_ARRAY:
      array_unlock(&l->array, token);
      break;
    default:
      spin_unlock(&l->spin);
      break;
  }
}

/* ---- barriers ------------------------------------------------------------ */

/* Centralized sense-reversing barrier: the last arriver resets the count
 * and flips the shared sense; the others spin on it. `local_sense` is the
 * caller's own (start 0). */
typedef struct {
  volatile unsigned count SYNC_ALIGNED;
  volatile unsigned sense SYNC_ALIGNED;
} sync_central_barrier;

SYNC_INLINE void central_barrier(sync_central_barrier* b, unsigned cores, unsigned* local_sense) {
  const unsigned sense = *local_sense ^ 1u;
  *local_sense = sense;
  if (sync_fetch_add(&b->count, 1u) == cores - 1u) {
    b->count = 0u;
    sync_store(&b->sense, sense);
  } else {
    while (sync_load(&b->sense) != sense)
      ;
    sync_acquire();
  }
}

/* Tree barrier: arrival climbs a binary tree (core i waits for cores 2i+1
 * and 2i+2, then signals its own flag), core 0 releases everyone through
 * one wake-up flag. Every flag has its own line; a core spins on at most
 * two children's flags, so arrival traffic is O(1) per core. `episode` is
 * the caller's own barrier count (start 0). */
typedef struct {
  volatile unsigned arrived;
} SYNC_ALIGNED sync_tree_flag;
typedef struct {
  sync_tree_flag node[SYNC_MAX_CORES];
  volatile unsigned release SYNC_ALIGNED;
} sync_tree_barrier;

SYNC_INLINE void tree_barrier(sync_tree_barrier* b, unsigned cores, unsigned me, unsigned* episode) {
  const unsigned e = ++*episode;
  for (unsigned c = 2u * me + 1u; c <= 2u * me + 2u && c < cores; ++c)
    while (sync_load(&b->node[c].arrived) != e)
      ;
  sync_acquire();
  if (me == 0u) {
    sync_store(&b->release, e);
  } else {
    sync_store(&b->node[me].arrived, e);
    while (sync_load(&b->release) != e)
      ;
    sync_acquire();
  }
}

#endif /* TESSERA_CLUSTER_SYNC_H */
