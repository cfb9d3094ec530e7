/* A control core runs ld.v2: an SM instruction, illegal on the control
 * cores (docs/firmware-abi.md, "Wide memory instructions"). */
#include <tessera.h>

int main(void) {
  static uint2 v = {1, 2};
  const uint2 w = tessera_ld_uint2(&v);
  printf("RESULT unreachable %u\n", w.x + w.y);
  return 0;
}
