/* tx.end outside a transaction: a guest fault naming the pc and the core. */
#include <tessera.h>

int main(void) {
  tessera_tx_end();
  return 0;
}
