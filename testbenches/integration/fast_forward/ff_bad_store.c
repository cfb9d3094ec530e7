/* A store to an unmapped address before any switch point: the same guest
 * fault in detailed and fast-forward runs. */
#include <tessera.h>

volatile uintptr_t bad_address = 0x40u;

int main(void) {
  printf("before the store\n");
  *(volatile unsigned*)bad_address = 1u;
  return 0;
}
