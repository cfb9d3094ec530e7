/* A kernel thread writes the console MMIO register: MMIO is for control
 * cores only, so from an SM it is an access fault (status 3). */
#include <tessera.h>

static unsigned out[32];

TESSERA_KERNEL void kernel_mmio(void* argp) {
  unsigned* o = argp;
  unsigned t = threadIdx.x;
  if (t == 7) TESSERA_MMIO(TESSERA_CONSOLE_TX) = 'x';
  o[t] = t;
}

int main(void) {
  tessera_launch_ref(kernel_mmio, 1, 32, 0, out);
  tessera_wait();
  printf("kernel_mmio: kernel finished (should have faulted)\n");
  return 0;
}
