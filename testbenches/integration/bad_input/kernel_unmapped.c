/* Thread 3 of the kernel stores to 0x00001000: nothing is mapped there. */
#include <tessera.h>

struct args {
  unsigned* out;
};

static unsigned out[32];

TESSERA_KERNEL void kernel_unmapped(void* argp) {
  const struct args* a = argp;
  unsigned t = threadIdx.x;
  volatile unsigned* p = t == 3 ? (volatile unsigned*)(uintptr_t)0x00001000u : &a->out[t];
  *p = t + 1;
}

int main(void) {
  struct args a = {out};
  tessera_launch(kernel_unmapped, 1, 32, 0, &a);
  tessera_wait();
  printf("kernel_unmapped: kernel finished (should have faulted)\n");
  return 0;
}
