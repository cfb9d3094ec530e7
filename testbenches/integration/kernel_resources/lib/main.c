/* Host side of a program built in pieces: tessera-cc -c for each file, the
 * device function in a static library (ar), then linked. */
#include <tessera.h>

#include "scale.h"

static float data[256];

int main(void) {
  for (unsigned i = 0; i < 256; ++i) data[i] = (float)i;
  tessera_launch_ref(scale_kernel, 2, 128, 0, data);
  tessera_wait();
  int bad = 0;
  for (unsigned i = 0; i < 256; ++i)
    if (data[i] != 3.0f * (float)i + 1.0f) bad = 1;
  printf("%s library kernel: 256 elements of 3x+1\n", bad ? "FAIL" : "PASS");
  return bad;
}
