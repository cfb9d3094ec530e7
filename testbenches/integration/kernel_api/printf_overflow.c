/* The kernel printf buffer linked at 2 KiB (CMakeLists.txt): 2032 bytes
 * after its 16-byte header. 64 threads print "t%02u\n" (4 characters): a
 * record is 24 + 4 + 1 bytes rounded up to 32, so 63 fit (2016 bytes) and
 * one call is dropped. A second launch after the flush prints all 32. */
#include <tessera.h>

__global__ void fill(void* argp) {
  (void)argp;
  printf("t%02u\n", threadIdx.x);
}

int main(void) {
  tessera_launch(fill, 1, 64);
  tessera_wait();
  printf("host: second launch\n");
  tessera_launch(fill, 1, 32);
  tessera_wait();
  printf("printf_overflow: done\n");
  return 0;
}
