/* An all-zero word (illegal in RISC-V) executed by the control core. */
#include <tessera.h>

int main(void) {
  printf("host_illegal: before\n");
  __asm__ volatile(".word 0x00000000");
  printf("host_illegal: after (should have faulted)\n");
  return 0;
}
