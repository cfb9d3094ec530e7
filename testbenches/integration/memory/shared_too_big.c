/* A launch that asks for more dynamic shared memory than an SM has (64 KiB
 * on the default platforms): the dispatcher must refuse it. */
#include <tessera.h>

TESSERA_KERNEL void greedy(void* argp) {
  (void)argp;
  ((volatile unsigned*)tessera_dynamic_shared())[threadIdx.x] = 1;
}

int main(void) {
  tessera_launch(greedy, 1, 32, 70000, 0);
  tessera_wait();
  printf("shared_too_big: kernel finished (should have been refused)\n");
  return 0;
}
