/*
 * Tessera host-side runtime: kernel launch, console stdio for picolibc,
 * exit. Runs on the control core only (MMIO is unreachable from kernels).
 */
#include "tessera.h"

#include <unistd.h>

/* ---- kernel launch ------------------------------------------------------ */

void tessera_launch_dim3(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                         const void* args) {
  /* DISP_SHARED_BYTES is the dynamic area only: the dispatcher adds the
   * kernel's static window from the kernel record (docs/firmware-abi.md). */
  unsigned shared_bytes = dynamic_shared_bytes;

  /* The kernel must see every store made before the launch. */
  __asm__ volatile("fence rw, rw" ::: "memory");

  TESSERA_MMIO(TESSERA_DISP_START) = (uint32_t)(uintptr_t)&__tessera_kernel_entry;
  TESSERA_MMIO(TESSERA_DISP_KERNEL) = (uint32_t)(uintptr_t)kernel;
  TESSERA_MMIO(TESSERA_DISP_ARGS) = (uint32_t)(uintptr_t)args;
  TESSERA_MMIO(TESSERA_DISP_GRID_X) = grid.x;
  TESSERA_MMIO(TESSERA_DISP_GRID_Y) = grid.y;
  TESSERA_MMIO(TESSERA_DISP_GRID_Z) = grid.z;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_X) = block.x;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Y) = block.y;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Z) = block.z;
  TESSERA_MMIO(TESSERA_DISP_SHARED_BYTES) = shared_bytes;
  TESSERA_MMIO(TESSERA_DISP_REGS) = 0; /* sm.regs_per_thread_default */
  TESSERA_MMIO(TESSERA_DISP_LAUNCH) = 1;
}

void tessera_wait(void) {
  while (TESSERA_MMIO(TESSERA_DISP_STATUS) != 0) __asm__ volatile("wfi" ::: "memory");
  /* Order the reads of the kernel's results after the status read. */
  __asm__ volatile("fence rw, rw" ::: "memory");
}

void tessera_roi_begin(void) {
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_ROI) = 1;
}

void tessera_roi_end(void) {
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_ROI) = 0;
}

/* ---- control-core cluster ------------------------------------------------ */

extern void __tessera_hart_entry(void);
extern char __stack_bottom[];
extern char __hart_stack_size[];

unsigned tessera_num_cores(void) { return TESSERA_MMIO(TESSERA_NUM_CORES); }

void tessera_core_start(unsigned hart, void (*fn)(void* arg), void* arg) {
  uintptr_t sp = (uintptr_t)__stack_bottom - (uintptr_t)(hart - 1u) * (uintptr_t)__hart_stack_size;
  /* The started core must see every store made before (TSO buffers). */
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_HART_PC) = (uint32_t)(uintptr_t)&__tessera_hart_entry;
  TESSERA_MMIO(TESSERA_HART_FN) = (uint32_t)(uintptr_t)fn;
  TESSERA_MMIO(TESSERA_HART_ARG) = (uint32_t)(uintptr_t)arg;
  TESSERA_MMIO(TESSERA_HART_SP) = (uint32_t)sp;
  TESSERA_MMIO(TESSERA_HART_START) = hart;
}

void tessera_core_join(unsigned hart) {
  while (TESSERA_MMIO(TESSERA_HART_RUNNING) & (1u << hart)) __asm__ volatile("wfi" ::: "memory");
  __asm__ volatile("fence rw, rw" ::: "memory");
}

/* ---- exit ---------------------------------------------------------------- */

void tessera_exit(int status) {
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_EXIT) = (uint32_t)status;
  for (;;) __asm__ volatile("wfi");
}

/* picolibc's exit() and abort() end here. */
void _exit(int status) { tessera_exit(status); }

/* ---- console stdio (picolibc tinystdio) ---------------------------------- */

static int tessera_console_put(char c, FILE* file) {
  (void)file;
  TESSERA_MMIO(TESSERA_CONSOLE_TX) = (uint32_t)(unsigned char)c;
  return (unsigned char)c;
}

/* The console has no input: reads see end of file. */
static int tessera_console_get(FILE* file) {
  (void)file;
  return _FDEV_EOF;
}

static FILE tessera_console = FDEV_SETUP_STREAM(tessera_console_put, tessera_console_get, NULL, _FDEV_SETUP_RW);

FILE* const stdin = &tessera_console;
FILE* const stdout = &tessera_console;
FILE* const stderr = &tessera_console;

/* ---- clock() ------------------------------------------------------------- */

/* The function, for code that calls clock() without the tessera.h macro
 * (the parentheses keep the macro from expanding). */
clock_t(clock)(void) { return (clock_t)tessera_clock(); }
