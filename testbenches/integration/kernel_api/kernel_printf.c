/* printf from kernels: 2 blocks of 4x2 threads print two lines each (the
 * second with a float and a string), one thread prints a line longer than
 * the 256-byte line buffer and one prints two lines in one call. The test
 * compares the console lines, in order per thread; host printf is
 * unchanged around them. */
#include <tessera.h>

static const char* const names[2] = {"even", "odd"};

__global__ void say(void* argp) {
  const unsigned* base = argp;
  const unsigned x = threadIdx.x, y = threadIdx.y, b = blockIdx.x;
  const int v = (int)(*base + b * 100 + y * 10 + x);
  printf("x = %d", v);
  printf("f = %.2f %s\n", (double)((float)v * 0.5f), names[v & 1]);
  if (b == 1 && x == 3 && y == 1) {
    char s[301];
    for (int i = 0; i < 300; i++) s[i] = (char)('a' + i % 26);
    s[300] = 0;
    printf("long %s end", s);
    printf("first\nsecond\n");
  }
}

int main(void) {
  printf("host before\n");
  unsigned base = 5;
  dim3 block = {4, 2};
  tessera_launch(say, 2, block, 0, &base);
  printf("host after launch\n");
  tessera_wait();
  printf("host after wait\n");
  /* A second launch prints again from an empty buffer. */
  base = 900;
  tessera_launch(say, 1, 1, 0, &base);
  tessera_wait();
  printf("kernel_printf: done\n");
  return 0;
}
