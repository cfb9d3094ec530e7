/* A kernel that indexes past its block's shared memory: the SM must fault
 * with the address, the block and the thread. */
#include <tessera.h>

__shared__ unsigned small[16];

TESSERA_KERNEL void overrun(void* argp) {
  (void)argp;
  volatile unsigned* p = small;
  p[threadIdx.x] = threadIdx.x; /* threads 16 and up are outside */
}

int main(void) {
  tessera_launch(overrun, 1, 32, 0, 0);
  tessera_wait();
  printf("FAIL shared_oob: the overrun was not caught\n");
  return 1;
}
