/* A launch of blocks of 2048 threads: more than the 1024-thread limit. */
#include <tessera.h>

static unsigned out[2048];

TESSERA_KERNEL void bad_launch(void* argp) {
  unsigned* o = argp;
  o[threadIdx.x] = 1;
}

int main(void) {
  tessera_launch_ref(bad_launch, 1, 2048, 0, out);
  tessera_wait();
  printf("bad_launch: kernel finished (should have been refused)\n");
  return 0;
}
