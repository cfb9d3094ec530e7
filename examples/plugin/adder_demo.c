/* The plugin's adder_regs (adder_regs.cpp) at 0x1002_0000 in
 * chip_plugin.yaml: writes A and B, reads SUM. Returns 0 when SUM = A + B. */
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

#define ADDER 0x10020000u

int main(void) {
  int bad = 0;
  for (uint32_t a = 1; a < 100000; a = a * 7 + 3) {
    const uint32_t b = 0xffffff00u - a;
    TESSERA_DEVICE_REG(ADDER, 0x0) = a;
    TESSERA_DEVICE_REG(ADDER, 0x4) = b;
    const uint32_t sum = TESSERA_DEVICE_REG(ADDER, 0x8);
    if (sum != a + b) {
      printf("adder_demo: %u + %u read %u\n", (unsigned)a, (unsigned)b, (unsigned)sum);
      ++bad;
    }
  }
  printf("adder_demo: %s\n", bad ? "FAILED" : "ok");
  return bad;
}
