/* Launches the kernel the RESOURCE macro picks, to be refused:
 *   REGS   an indirect call (64 registers) with 1024 threads: 65536 registers,
 *          more than an SM with sm.registers=32768 has
 *   BOUNDS __launch_bounds__(128) launched with 256 threads */
#include <tessera.h>

typedef void (*fn_t)(unsigned*);
static void store(unsigned* p) { *p = 1; }
static fn_t volatile target = store;
static unsigned out[1024];

__global__ void fat_kernel(void* arg) { target((unsigned*)arg + threadIdx.x); }

__global__ void __launch_bounds__(128) small_blocks(void* arg) { ((unsigned*)arg)[threadIdx.x] = 2; }

int main(void) {
#if defined(REGS)
  tessera_launch_ref(fat_kernel, 1, 1024, 0, out);
#else
  tessera_launch_ref(small_blocks, 1, 256, 0, out);
#endif
  tessera_wait();
  printf("FAIL the launch ran\n");
  return 1;
}
