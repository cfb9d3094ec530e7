/* The example of docs/firmware-abi.md ("Transactional memory (control
 * cores)"), built with warnings as errors at -O2 and -O0: the firmware API
 * compiles as documented, and links the undo-log area. */
#include <tessera.h>

static tessera_tx_lock_t lock __attribute__((aligned(64)));
static unsigned balance[64] __attribute__((aligned(64)));

void transfer(unsigned from, unsigned to, unsigned amount) {
  TESSERA_ATOMIC(&lock) {
    balance[from] -= amount;
    balance[to] += amount;
  }
}

/* By hand: retry conflicts, give up on anything else. */
int try_increment(volatile unsigned* p) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const unsigned s = tessera_tx_begin();
    if (s == 0) {
      if (*p == 0xFFFFFFFFu) tessera_tx_abort(1); /* would wrap */
      ++*p;
      tessera_tx_end();
      return 1;
    }
    if (!(s & TESSERA_TX_RETRY)) return 0;
  }
  return 0;
}

int main(void) {
  transfer(1, 2, 5);
  static unsigned v;
  printf("%d %u %u\n", try_increment(&v), balance[1], tessera_atomic_fallbacks());
  return 0;
}
