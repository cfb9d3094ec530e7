/* The kernel printf buffer linked at 2 KiB (CMakeLists.txt): 2032 bytes
 * after its 16-byte header. 64 threads print "t%02u\n" (4 characters): a
 * record is 24 + 4 + 1 bytes rounded up to 32, so 63 fit (2016 bytes) and
 * one call is dropped. A second launch after the flush prints all 32. A
 * third kernel's 40 records fill more than half of the buffer, so the fourth
 * launch prints them first (without a tessera_wait()). */
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
  /* 40 records (1280 bytes) fill more than half the buffer: the next launch
   * prints them before it launches, so the 40 of that launch fit too. */
  const unsigned done = TESSERA_MMIO(TESSERA_DISP_DONE_COUNT);
  tessera_launch(fill, 1, 40);
  while (TESSERA_MMIO(TESSERA_DISP_DONE_COUNT) == done) {
  }
  printf("host: third kernel finished\n");
  tessera_launch(fill, 1, 40);
  printf("host: fourth kernel launched\n");
  tessera_wait();
  printf("printf_overflow: done\n");
  return 0;
}
