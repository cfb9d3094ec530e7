/* An all-zero word (illegal in RISC-V) executed by every SM thread. */
#include <tessera.h>

struct args {
  unsigned* out;
};

static unsigned out[64];

TESSERA_KERNEL void kernel_illegal(void* argp) {
  const struct args* a = argp;
  a->out[threadIdx.x] = 1;
  __asm__ volatile(".word 0x00000000");
  a->out[threadIdx.x] = 2;
}

int main(void) {
  struct args a = {out};
  tessera_launch(kernel_illegal, 1, 64, 0, &a);
  tessera_wait();
  printf("kernel_illegal: kernel finished (should have faulted)\n");
  return 0;
}
