/* Spins for ever before any switch point: --max-cycles must bound the
 * fast-forward. */
#include <tessera.h>

volatile unsigned counter;

int main(void) {
  for (;;) counter++;
  return 0;
}
