/* tessera_launch_bytes() with more bytes than a parameter slot holds: the
 * size is only known at run time, so the launch stops the program (status
 * 4) naming the size and the limit. */
#include <tessera.h>

static char data[5000];

__global__ void k(void* argp) { (void)argp; }

int main(void) {
  const void* p = data;
  tessera_launch_bytes(k, DIM3(1, 1, 1), DIM3(32, 1, 1), 0, p, sizeof data);
  tessera_wait();
  printf("launch_too_big: launched (should have been refused)\n");
  return 0;
}
