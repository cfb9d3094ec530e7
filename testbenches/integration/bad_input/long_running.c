/* A kernel that runs for many millions of cycles: --max-cycles stops it. */
#include <tessera.h>

struct args {
  unsigned* out;
  unsigned iterations;
};

static unsigned out[64];

TESSERA_KERNEL void long_running(void* argp) {
  const struct args* a = argp;
  unsigned t = threadIdx.x;
  unsigned x = t;
  for (unsigned i = 0; i < a->iterations; i++) x = x * 1664525u + 1013904223u;
  a->out[t] = x;
}

int main(void) {
  struct args a = {out, 100000000u};
  tessera_launch(long_running, 1, 64, 0, &a);
  tessera_wait();
  printf("long_running: done\n");
  return 0;
}
