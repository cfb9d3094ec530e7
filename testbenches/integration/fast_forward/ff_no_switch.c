/* A program with no ROI, kernel, transaction or wfi: it ends during
 * fast-forward. Its result does not depend on timing. */
#include <tessera.h>

static unsigned data[4096];

int main(void) {
  unsigned sum = 0;
  for (unsigned i = 0; i < 4096; i++) data[i] = i * 7u + 1u;
  for (unsigned i = 0; i < 4096; i++) sum += data[i];
  /* sum of 7i+1 for i < 4096 = 7 * 4096 * 4095 / 2 + 4096 */
  if (sum != 7u * 4096u * 4095u / 2u + 4096u) {
    printf("FAIL ff_no_switch: sum %u\n", sum);
    return 1;
  }
  printf("PASS ff_no_switch\n");
  return 0;
}
