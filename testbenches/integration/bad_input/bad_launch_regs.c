/* A launch whose DISP_REGS asks for 0x08000000 registers per thread, far
 * more than an SM has: the dispatcher must refuse it (status 4). The launch
 * registers are written directly, as tessera_launch() always writes 0. */
#include <tessera.h>

static unsigned out[32];

TESSERA_KERNEL void bad_launch_regs(void* argp) {
  unsigned* o = argp;
  o[threadIdx.x] = 1;
}

int main(void) {
  TESSERA_MMIO(TESSERA_DISP_START) = (uint32_t)(uintptr_t)&__tessera_kernel_entry;
  TESSERA_MMIO(TESSERA_DISP_KERNEL) = (uint32_t)(uintptr_t)bad_launch_regs;
  TESSERA_MMIO(TESSERA_DISP_ARGS) = (uint32_t)(uintptr_t)out;
  TESSERA_MMIO(TESSERA_DISP_GRID_X) = 1;
  TESSERA_MMIO(TESSERA_DISP_GRID_Y) = 1;
  TESSERA_MMIO(TESSERA_DISP_GRID_Z) = 1;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_X) = 32;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Y) = 1;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Z) = 1;
  TESSERA_MMIO(TESSERA_DISP_SHARED_BYTES) = 0;
  TESSERA_MMIO(TESSERA_DISP_REGS) = 0x08000000u;
  TESSERA_MMIO(TESSERA_DISP_LAUNCH) = 1;
  tessera_wait();
  printf("bad_launch_regs: kernel finished (should have been refused)\n");
  return 0;
}
