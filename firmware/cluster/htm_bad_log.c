/* A transaction whose undo log (txlogbase, txlogsize) is wherever the first
 * argument says (strtoul, any base), then a store inside it: with eager
 * versioning the store's undo entry would go there. An unusable log is a
 * guest fault at tx.begin naming the core, the pc and the range. */
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

static volatile unsigned target;

int main(int argc, char** argv) {
  if (argc < 2) {
    printf("usage: htm_bad_log TXLOGBASE [TXLOGSIZE]\n");
    return 2;
  }
  const unsigned base = (unsigned)strtoul(argv[1], 0, 0);
  const unsigned size = argc > 2 ? (unsigned)strtoul(argv[2], 0, 0) : 4096u;
  __asm__ volatile("csrw 0x8C0, %0" : : "r"(base));
  __asm__ volatile("csrw 0x8C1, %0" : : "r"(size));
  if (tessera_tx_begin() == 0) {
    target = 1;
    tessera_tx_end();
  }
  printf("committed %u\n", target);
  return 0;
}
