/*
 * tessera_htm.h - hardware transactional memory on the control cores
 * (included by tessera.h; the contract is docs/firmware-abi.md,
 * "Transactional memory (control cores)").
 *
 *   unsigned tessera_tx_begin(void)   0: the transaction started; after an
 *                                     abort it returns again, with the abort
 *                                     status (never 0)
 *   void tessera_tx_end(void)         commit (only the outermost end commits)
 *   tessera_tx_abort(code)            explicit abort, code a constant 0..255
 *   unsigned tessera_tx_depth(void)   nesting depth, 0 outside a transaction
 *   TESSERA_ATOMIC(&lock) { body }    body as a transaction with lock elision,
 *                                     retries with back-off, lock fallback
 *   tessera_atomic_fallbacks()        how often this core took the lock
 *   tessera_tx_counters()             this core's TESSERA_ATOMIC counters
 *
 * Everything here runs on the control cores only: the transactional state
 * lives in the cluster's L1 data caches. On an SM thread every tx.*
 * instruction (and the transactional CSRs) stops the run with a fault.
 */
#ifndef TESSERA_HTM_H
#define TESSERA_HTM_H

/* ------------------------------------------------------------------------ */
/* Abort status (what tessera_tx_begin() returns after an abort)            */
/* ------------------------------------------------------------------------ */

#define TESSERA_TX_REASON(s) ((unsigned)(s)&0xFFu)        /* bits 7:0 */
#define TESSERA_TX_CODE(s) (((unsigned)(s) >> 8) & 0xFFu) /* bits 15:8, the tx.abort code */
#define TESSERA_TX_RETRY (1u << 16)                       /* retrying may succeed */

#define TESSERA_TX_EXPLICIT 1u     /* tx.abort */
#define TESSERA_TX_CONFLICT_RW 2u  /* another core read what this one wrote */
#define TESSERA_TX_CONFLICT_WR 3u  /* another core wrote what this one read */
#define TESSERA_TX_CONFLICT_WW 4u  /* another core wrote what this one wrote */
#define TESSERA_TX_CAPACITY 5u     /* a transactional line left the L1 */
#define TESSERA_TX_MMIO 6u         /* MMIO access or wfi inside a transaction */
#define TESSERA_TX_NESTING 7u      /* nesting deeper than htm.max_depth */
#define TESSERA_TX_LOG_OVERFLOW 8u /* the undo log (txlogbase/txlogsize) is full */
#define TESSERA_TX_REASONS 9u      /* reasons 1..8; index 0 counts any other */

/* The code TESSERA_ATOMIC aborts with when it finds the lock held. */
#define TESSERA_TX_CODE_LOCK_HELD 0xFFu

/* Transactional CSRs (per control core). */
#define TESSERA_CSR_TXLOGBASE 0x8C0
#define TESSERA_CSR_TXLOGSIZE 0x8C1
#define TESSERA_CSR_TXFALLBACK 0x8C2

/* ------------------------------------------------------------------------ */
/* Instructions (custom-3, opcode 0x7B)                                     */
/* ------------------------------------------------------------------------ */

/* Gives this core the runtime's undo-log area (4 KiB, 512 entries) when its
 * txlogsize is 0. Called by tessera_tx_begin() the first time; a program
 * that wants another area writes txlogbase and a non-zero txlogsize first. */
void __tessera_tx_log_setup(void);

/* Starts a transaction (or nests one level deeper). The "memory" clobber
 * keeps the compiler from moving loads and stores across it. After an abort
 * the core resumes right after the outermost tx.begin with every register as
 * it was there and the abort status in the result, as if the call returned a
 * second time; memory written inside the transaction is rolled back. */
TESSERA_INLINE unsigned tessera_tx_begin(void) {
  unsigned size, status;
  __asm__ volatile("csrr %0, 0x8C1" : "=r"(size));
  if (__builtin_expect(size == 0u, 0)) __tessera_tx_log_setup();
  __asm__ volatile(".insn r 0x7B, 0, 0, %0, x0, x0" : "=r"(status) : : "memory");
  return status;
}

/* Commits (the outermost end; an inner end only leaves a level). Outside a
 * transaction it is a fault naming the PC and the core. */
TESSERA_INLINE void tessera_tx_end(void) { __asm__ volatile(".insn r 0x7B, 1, 0, x0, x0, x0" : : : "memory"); }

/* Aborts the transaction with `code` (an integer constant 0..255: anything
 * else does not compile); tessera_tx_begin() then returns
 * TESSERA_TX_EXPLICIT | code << 8. */
#define tessera_tx_abort(code)                                                                       \
  do {                                                                                               \
    _Static_assert((unsigned long long)(code) <= 255u, "tessera_tx_abort: the code must be 0..255"); \
    __asm__ volatile(".insn i 0x7B, 2, x0, x0, %0" : : "i"((unsigned)(code)&0xFFu) : "memory");      \
  } while (0)

/* The nesting depth: 0 outside a transaction. */
TESSERA_INLINE unsigned tessera_tx_depth(void) {
  unsigned depth;
  __asm__ volatile(".insn r 0x7B, 3, 0, %0, x0, x0" : "=r"(depth) : : "memory");
  return depth;
}

/* ------------------------------------------------------------------------ */
/* TESSERA_ATOMIC: transactions with lock elision and a fallback lock       */
/* ------------------------------------------------------------------------ */

/* A fallback lock: 0 free, 1 held. Give it a cache line of its own
 * (aligned(64) on the reference platforms) so that transactions reading it
 * do not conflict with writes to its neighbours. */
typedef unsigned tessera_tx_lock_t;

/* Aborts before TESSERA_ATOMIC takes the lock (define it before including
 * tessera.h to change it). */
#ifndef TESSERA_ATOMIC_RETRIES
#define TESSERA_ATOMIC_RETRIES 8
#endif

/* Per-core counters kept by TESSERA_ATOMIC (a line per core: they are
 * written outside transactions and must not conflict with other cores). */
typedef struct tessera_tx_counters {
  unsigned commits;                       /* transactions that committed */
  unsigned aborts;                        /* aborts, all reasons */
  unsigned by_reason[TESSERA_TX_REASONS]; /* aborts by TESSERA_TX_REASON (1..8; 0 other) */
  unsigned fallbacks;                     /* times the lock was taken instead */
} __attribute__((aligned(64))) tessera_tx_counters_t;

extern tessera_tx_counters_t __tessera_tx_counters[16];

/* This core's counters. */
TESSERA_INLINE tessera_tx_counters_t* tessera_tx_counters(void) {
  unsigned hart;
  __asm__("csrr %0, mhartid" : "=r"(hart));
  return &__tessera_tx_counters[hart & 15u];
}

/* How many times this core's TESSERA_ATOMIC blocks took the lock. */
TESSERA_INLINE unsigned tessera_atomic_fallbacks(void) { return tessera_tx_counters()->fallbacks; }

/* Back-off after the attempt-th abort: a spin of about 16 << attempt loop
 * iterations (capped) plus a per-core offset so that cores do not retry in
 * lockstep. */
TESSERA_INLINE void __tessera_tx_backoff(unsigned attempt) {
  unsigned hart;
  __asm__("csrr %0, mhartid" : "=r"(hart));
  const unsigned n = (16u << (attempt < 8u ? attempt : 8u)) + (hart & 15u) * 7u;
  for (unsigned i = 0; i < n; ++i) __asm__ volatile("" ::: "memory");
}

typedef struct {
  volatile tessera_tx_lock_t* lock;
  unsigned phase; /* 0: in a transaction, 1: holding the lock, 2: done */
} __tessera_atomic_t;

/* Always inlined: tx.begin must be in the frame that runs the body. */
TESSERA_INLINE __tessera_atomic_t __tessera_atomic_enter(tessera_tx_lock_t* lockp) {
  volatile tessera_tx_lock_t* lock = lockp;
  tessera_tx_counters_t* c = tessera_tx_counters();
  for (unsigned attempt = 0;; ++attempt) {
    while (__atomic_load_n(lock, __ATOMIC_RELAXED) != 0u)
      ;
    const unsigned s = tessera_tx_begin();
    if (s == 0u) {
      /* Lock elision: the lock is now in the read set, so a core taking it
       * aborts this transaction. */
      if (*lock != 0u) tessera_tx_abort(TESSERA_TX_CODE_LOCK_HELD);
      return (__tessera_atomic_t){lock, 0u};
    }
    const unsigned reason = TESSERA_TX_REASON(s);
    ++c->aborts;
    ++c->by_reason[reason < TESSERA_TX_REASONS ? reason : 0u];
    /* A lock found held is worth waiting for, not a reason to take it. */
    const int lock_held = reason == TESSERA_TX_EXPLICIT && TESSERA_TX_CODE(s) == TESSERA_TX_CODE_LOCK_HELD;
    if (attempt + 1u >= (unsigned)(TESSERA_ATOMIC_RETRIES) || (!(s & TESSERA_TX_RETRY) && !lock_held)) break;
    __tessera_tx_backoff(attempt);
  }
  for (;;) {
    if (__atomic_exchange_n(lock, 1u, __ATOMIC_ACQ_REL) == 0u) break;
    while (__atomic_load_n(lock, __ATOMIC_RELAXED) != 0u)
      ;
  }
  __asm__ volatile("csrwi 0x8C2, 1" ::: "memory");
  ++c->fallbacks;
  return (__tessera_atomic_t){lock, 1u};
}

TESSERA_INLINE void __tessera_atomic_exit(__tessera_atomic_t* a) {
  if (a->phase == 0u) {
    tessera_tx_end();
    ++tessera_tx_counters()->commits;
  } else {
    __atomic_store_n(a->lock, 0u, __ATOMIC_RELEASE);
  }
  a->phase = 2u;
}

#define __TESSERA_ATOMIC_CAT2(a, b) a##b
#define __TESSERA_ATOMIC_CAT(a, b) __TESSERA_ATOMIC_CAT2(a, b)
#define __TESSERA_ATOMIC_VAR __TESSERA_ATOMIC_CAT(__tessera_atomic_, __LINE__)

/* TESSERA_ATOMIC(&lock) { body }: runs body once, atomically with respect
 * to other TESSERA_ATOMIC blocks on the same lock. Each attempt waits while
 * the lock is held, begins a transaction, reads the lock inside it (aborting
 * with TESSERA_TX_CODE_LOCK_HELD if held), runs body and commits. After an
 * abort it backs off and retries; after TESSERA_ATOMIC_RETRIES aborts, or an
 * abort that retrying cannot cure (no TESSERA_TX_RETRY bit: capacity, MMIO,
 * nesting, log overflow, an explicit abort by body), it takes the lock
 * (amoswap spin), counts it in csr txfallback, runs body and releases it.
 * body is one statement; `break`, `continue`, `return` and `goto` out of it
 * are not supported (they would skip the commit or the release). body may
 * run several times before it takes effect once: it must not do I/O (an
 * MMIO access aborts the transaction, so printf falls back to the lock). */
#define TESSERA_ATOMIC(lockp)                                                                                     \
  for (__tessera_atomic_t __TESSERA_ATOMIC_VAR = __tessera_atomic_enter(lockp); __TESSERA_ATOMIC_VAR.phase != 2u; \
       __tessera_atomic_exit(&__TESSERA_ATOMIC_VAR))

#endif /* TESSERA_HTM_H */
