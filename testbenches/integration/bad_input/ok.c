/* A correct program: one small kernel, exit status 0. Also the base for the
 * patched-ELF tests and the configuration-error tests. */
#include <tessera.h>

struct args {
  unsigned* out;
};

static unsigned out[32];

TESSERA_KERNEL void ok_kernel(void* argp) {
  const struct args* a = argp;
  a->out[threadIdx.x] = threadIdx.x * 2;
}

int main(void) {
  struct args a = {out};
  tessera_launch(ok_kernel, 1, 32, 0, &a);
  tessera_wait();
  for (unsigned i = 0; i < 32; i++) {
    if (out[i] != i * 2) {
      printf("FAIL ok: out[%u] = %u\n", i, out[i]);
      return 1;
    }
  }
  printf("PASS ok\n");
  return 0;
}
