/* Self-checking 64-bit atomics (atom.add64, atom.exch64, atom.cas64) on
 * global and shared memory from every thread of 4 blocks of 128: a 64-bit
 * counter summed past 2^32 by every thread directly, the same sum through a
 * per-block shared counter, a 64-bit maximum by a CAS loop, and an exchange
 * chain. Prints what it checked; exit status 1 on a wrong result. */
#include <tessera.h>

#define BLOCKS 4
#define THREADS 128

typedef unsigned long long u64;

TESSERA_INLINE u64 add64(volatile u64* p, u64 v) {
  u64 old;
  __asm__ volatile(".insn r 0x2B, 3, 0, %0, %1, %2" : "=&r"(old) : "r"(p), "r"(v) : "memory");
  return old;
}
TESSERA_INLINE u64 exch64(volatile u64* p, u64 v) {
  u64 old;
  __asm__ volatile(".insn r 0x2B, 3, 1, %0, %1, %2" : "=&r"(old) : "r"(p), "r"(v) : "memory");
  return old;
}
TESSERA_INLINE u64 cas64(volatile u64* p, u64 compare, u64 swap) {
  u64 old;
  __asm__ volatile(".insn r4 0x2B, 7, 1, %0, %1, %2, %3" : "=&r"(old) : "r"(p), "r"(compare), "r"(swap) : "memory");
  return old;
}

static volatile u64 direct_sum, block_sum, max_value, exch_slot;
static volatile unsigned exch_seen[BLOCKS * THREADS], exch_bad;

/* Thread g's value: 0x9000_0000 + g * 0x1_0001 (past 2^32 after two adds). */
TESSERA_INLINE u64 value_of(unsigned g) { return 0x90000000ull + (u64)g * 0x10001ull; }

TESSERA_KERNEL void counters(void* argp) {
  (void)argp;
  __shared__ u64 shared_sum;
  const unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  if (t == 0) shared_sum = 0;
  __syncthreads();
  add64(&direct_sum, value_of(g));
  add64((volatile u64*)&shared_sum, value_of(g));
  /* A 64-bit maximum by compare-and-swap: the high word decides. */
  const u64 mine = (u64)(g * 7919u % 1000u) << 32 | g;
  u64 seen = max_value;
  while (seen < mine) {
    const u64 old = cas64(&max_value, seen, mine);
    if (old == seen) break;
    seen = old;
  }
  /* Exchange: each thread swaps its id + 1 in; every old value is seen once. */
  const u64 old = exch64(&exch_slot, (u64)(g + 1) << 32 | (g + 1));
  if ((unsigned)old != (unsigned)(old >> 32) || (unsigned)old > BLOCKS * THREADS)
    exch_bad = 1;
  else if ((unsigned)old != 0)
    atomicAdd(&exch_seen[(unsigned)old - 1], 1u);
  __syncthreads();
  if (t == 0) add64(&block_sum, shared_sum);
}

int main(void) {
  tessera_launch(counters, BLOCKS, THREADS, 0, 0);
  tessera_wait();
  u64 want = 0, want_max = 0;
  for (unsigned g = 0; g < BLOCKS * THREADS; ++g) {
    want += value_of(g);
    const u64 m = (u64)(g * 7919u % 1000u) << 32 | g;
    if (m > want_max) want_max = m;
  }
  /* The last exchange leaves one id in the slot; every other id was seen once. */
  unsigned exch_errors = 0, left = (unsigned)exch_slot;
  if (exch_bad || left == 0 || (unsigned)(exch_slot >> 32) != left) ++exch_errors;
  for (unsigned k = 0; k < BLOCKS * THREADS; ++k)
    if (exch_seen[k] != (k + 1 == left ? 0u : 1u)) ++exch_errors;
  const int ok = direct_sum == want && block_sum == want && max_value == want_max && exch_errors == 0;
  printf("RESULT sum_high %u\n", (unsigned)(direct_sum >> 32));
  printf("RESULT sum_low %u\n", (unsigned)direct_sum);
  printf("RESULT want_high %u\n", (unsigned)(want >> 32));
  printf("RESULT want_low %u\n", (unsigned)want);
  printf("RESULT block_sum_ok %u\n", block_sum == want ? 1u : 0u);
  printf("RESULT max_ok %u\n", max_value == want_max ? 1u : 0u);
  printf("RESULT exch_errors %u\n", exch_errors);
  return ok ? 0 : 1;
}
