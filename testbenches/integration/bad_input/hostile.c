/* Hostile firmware: each build of this file (-DHOSTILE_<CASE>) does one thing
 * the simulator must stop with a clear report, the documented exit status
 * and no damage. Every case prints "hostile: survived" if the simulator let
 * it go on, which the tests look for to fail. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <tessera.h>

static unsigned out[64];
static volatile unsigned depth_limit = 1u << 30; /* never reached: defeats recursion analysis */

static unsigned __attribute__((noinline)) recurse(unsigned n) {
  volatile unsigned frame[64]; /* 256 bytes a level, kept by volatile */
  frame[0] = n;
  if (n == depth_limit) return frame[0];
  return recurse(n + 1) + frame[0];
}

/* Raw launch registers: tessera_launch() takes dim3 values the C types limit. */
static void __attribute__((unused))
raw_launch(void (*kernel)(void*), uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz) {
  TESSERA_MMIO(TESSERA_DISP_START) = (uint32_t)(uintptr_t)&__tessera_kernel_entry;
  TESSERA_MMIO(TESSERA_DISP_KERNEL) = (uint32_t)(uintptr_t)kernel;
  TESSERA_MMIO(TESSERA_DISP_ARGS) = (uint32_t)(uintptr_t)out;
  TESSERA_MMIO(TESSERA_DISP_GRID_X) = gx;
  TESSERA_MMIO(TESSERA_DISP_GRID_Y) = gy;
  TESSERA_MMIO(TESSERA_DISP_GRID_Z) = gz;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_X) = bx;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Y) = by;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Z) = bz;
  TESSERA_MMIO(TESSERA_DISP_SHARED_BYTES) = 0;
  TESSERA_MMIO(TESSERA_DISP_REGS) = 0;
  TESSERA_MMIO(TESSERA_DISP_LAUNCH) = 1;
}

TESSERA_KERNEL void store_tid(void* argp) {
  unsigned* o = argp;
  o[threadIdx.x % 64] = threadIdx.x;
}

TESSERA_KERNEL void kernel_recurse(void* argp) {
  unsigned* o = argp;
  o[threadIdx.x] = recurse(0);
}

/* A 96 KiB frame: sp lands below the stack guard under the local window,
 * in the address range of the shared-memory window. */
TESSERA_KERNEL void kernel_big_frame(void* argp) {
  volatile unsigned frame[24576];
  unsigned* o = argp;
  frame[threadIdx.x] = threadIdx.x;
  o[threadIdx.x] = frame[threadIdx.x];
}

static volatile int held_lock = 1; /* taken before the kernel starts, never released */

TESSERA_KERNEL void spin_on_held_lock(void* argp) {
  unsigned* o = argp;
  while (atomicExch((volatile int*)&held_lock, 1) != 0)
    ; /* a test-and-set that writes 1 over 1: no progress */
  o[threadIdx.x] = 1;
}

TESSERA_KERNEL void local_atomic(void* argp) {
  unsigned* o = argp;
  volatile int counter = 0; /* on the thread's stack: local memory */
  atomicAdd((volatile int*)&counter, 1);
  o[threadIdx.x] = (unsigned)counter;
}

TESSERA_KERNEL void store_into_code(void* argp) {
  unsigned* o = argp;
  if (threadIdx.x == 3) *(volatile uint32_t*)(uintptr_t)&store_tid = 0x00000013u; /* nop over the first instruction */
  o[threadIdx.x] = 1;
}

static void __attribute__((unused)) hart_recurse(void* arg) { out[0] = recurse((unsigned)(uintptr_t)arg); }

int main(void) {
#if defined(HOSTILE_GRID_OVERFLOW)
  raw_launch(store_tid, 0x80000000u, 0x80000000u, 4, 32, 1, 1);
  tessera_wait();
#elif defined(HOSTILE_BLOCK_OVERFLOW)
  raw_launch(store_tid, 1, 1, 1, 0x80000000u, 0x80000000u, 4);
  tessera_wait();
#elif defined(HOSTILE_HOST_STACK_OVERFLOW)
  out[0] = recurse(0);
#elif defined(HOSTILE_HART_STACK_OVERFLOW)
  tessera_core_start(1, hart_recurse, 0);
  tessera_core_join(1);
#elif defined(HOSTILE_KERNEL_STACK_OVERFLOW)
  tessera_launch_ref(kernel_recurse, 1, 32, 0, out);
  tessera_wait();
#elif defined(HOSTILE_KERNEL_BIG_FRAME)
  tessera_launch_ref(kernel_big_frame, 1, 32, 0, out);
  tessera_wait();
#elif defined(HOSTILE_HOST_SPIN)
  static volatile int never_set;
  while (!never_set)
    ;
#elif defined(HOSTILE_KERNEL_SPIN)
  tessera_launch_ref(spin_on_held_lock, 1, 32, 0, out);
  tessera_wait();
#elif defined(HOSTILE_MMIO_AMO)
  uint32_t old;
  __asm__ volatile("amoswap.w %0, %1, (%2)" : "=r"(old) : "r"(7u), "r"(TESSERA_MMIO_BASE + TESSERA_EXIT) : "memory");
  out[0] = old;
#elif defined(HOSTILE_MMIO_BYTE)
  *(volatile uint8_t*)(uintptr_t)(TESSERA_MMIO_BASE + TESSERA_CONSOLE_TX) = 'x';
#elif defined(HOSTILE_KERNEL_LOCAL_ATOMIC)
  tessera_launch_ref(local_atomic, 1, 32, 0, out);
  tessera_wait();
#elif defined(HOSTILE_KERNEL_CODE_STORE)
  tessera_launch_ref(store_into_code, 1, 32, 0, out);
  tessera_wait();
#elif defined(HOSTILE_HOST_CODE_STORE)
  *(volatile uint32_t*)(uintptr_t)&store_tid = 0x00000013u;
#elif defined(HOSTILE_EXIT_300)
  return 300; /* the exit status is the low 8 bits: 44 */
#elif defined(HOSTILE_HOST_ASSERT)
  assert(out[0] == 1u); /* out[] is zero */
#elif defined(HOSTILE_HOST_ABORT)
  abort();
#else
#error "build with -DHOSTILE_<CASE>"
#endif
  printf("hostile: survived\n");
  return 0;
}
