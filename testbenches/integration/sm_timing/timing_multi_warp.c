/* Multi-warp SM timing: sixteen warps (four per partition) issuing FMAs with
 * two independent accumulators each, then the same with a shared-memory load
 * after every four FMAs (dual issue). Lane 0 of every warp records the cycle
 * its measured region starts and ends; the host reports, per partition, the
 * warp instructions issued over the partition's whole span. */
#include <tessera.h>

#define WARPS 16
#define FMAS 1024 /* per warp */

static volatile unsigned start[2][WARPS], end[2][WARPS];
__shared__ int buf[8];

TESSERA_KERNEL void fma_ilp2(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(
      "fmv.w.x ft0, zero\n fmv.w.x ft1, zero\n"
      "fmv.w.x ft2, zero\n fmv.w.x ft3, zero\n"
      "csrr %0, cycle\n"
      ".rept 512\n fmadd.s ft0, ft0, ft1, ft2\n fmadd.s ft3, ft3, ft1, ft2\n .endr\n"
      "csrr %1, cycle\n"
      : "=&r"(t0), "=&r"(t1)::"ft0", "ft1", "ft2", "ft3");
  if (tessera_lane_id() == 0) {
    start[0][tessera_warp_id()] = t0;
    end[0][tessera_warp_id()] = t1;
  }
}

TESSERA_KERNEL void fma_load(void* argp) {
  (void)argp;
  unsigned t0, t1;
  volatile int* b = buf;
  /* 1024 FMAs on eight accumulators and 256 loads into eight registers. */
  __asm__ volatile(
      "fmv.w.x ft0, zero\n fmv.w.x ft1, zero\n fmv.w.x ft2, zero\n"
      "csrr %0, cycle\n"
      ".rept 32\n"
      "fmadd.s ft3, ft3, ft1, ft2\n fmadd.s ft4, ft4, ft1, ft2\n"
      "fmadd.s ft5, ft5, ft1, ft2\n fmadd.s ft6, ft6, ft1, ft2\n lw t0, 0(%2)\n"
      "fmadd.s ft7, ft7, ft1, ft2\n fmadd.s ft8, ft8, ft1, ft2\n"
      "fmadd.s ft9, ft9, ft1, ft2\n fmadd.s ft10, ft10, ft1, ft2\n lw t1, 4(%2)\n"
      "fmadd.s ft3, ft3, ft1, ft2\n fmadd.s ft4, ft4, ft1, ft2\n"
      "fmadd.s ft5, ft5, ft1, ft2\n fmadd.s ft6, ft6, ft1, ft2\n lw t2, 8(%2)\n"
      "fmadd.s ft7, ft7, ft1, ft2\n fmadd.s ft8, ft8, ft1, ft2\n"
      "fmadd.s ft9, ft9, ft1, ft2\n fmadd.s ft10, ft10, ft1, ft2\n lw t3, 12(%2)\n"
      "fmadd.s ft3, ft3, ft1, ft2\n fmadd.s ft4, ft4, ft1, ft2\n"
      "fmadd.s ft5, ft5, ft1, ft2\n fmadd.s ft6, ft6, ft1, ft2\n lw t4, 16(%2)\n"
      "fmadd.s ft7, ft7, ft1, ft2\n fmadd.s ft8, ft8, ft1, ft2\n"
      "fmadd.s ft9, ft9, ft1, ft2\n fmadd.s ft10, ft10, ft1, ft2\n lw t5, 20(%2)\n"
      "fmadd.s ft3, ft3, ft1, ft2\n fmadd.s ft4, ft4, ft1, ft2\n"
      "fmadd.s ft5, ft5, ft1, ft2\n fmadd.s ft6, ft6, ft1, ft2\n lw t6, 24(%2)\n"
      "fmadd.s ft7, ft7, ft1, ft2\n fmadd.s ft8, ft8, ft1, ft2\n"
      "fmadd.s ft9, ft9, ft1, ft2\n fmadd.s ft10, ft10, ft1, ft2\n lw a7, 28(%2)\n"
      ".endr\n"
      "csrr %1, cycle\n"
      : "=&r"(t0), "=&r"(t1)
      : "r"(b)
      : "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9", "ft10", "t0", "t1", "t2", "t3", "t4",
        "t5", "t6", "a7", "memory");
  if (tessera_lane_id() == 0) {
    start[1][tessera_warp_id()] = t0;
    end[1][tessera_warp_id()] = t1;
  }
}

/* Per partition (warp w runs on partition w % 4 in a block that starts in
 * warp slot 0): instructions in the measured regions x 1000 / span. */
static void report(const char* name, int k, unsigned insts_per_warp) {
  unsigned chip_first = ~0u, chip_last = 0;
  for (unsigned p = 0; p < 4; p++) {
    unsigned first = ~0u, last = 0;
    for (unsigned w = p; w < WARPS; w += 4) {
      if (start[k][w] < first) first = start[k][w];
      if (end[k][w] > last) last = end[k][w];
    }
    if (first < chip_first) chip_first = first;
    if (last > chip_last) chip_last = last;
    printf("RESULT %s_partition%u_milli_ipc %u\n", name, p, (unsigned)(4ull * insts_per_warp * 1000 / (last - first)));
  }
  printf("RESULT %s_sm_milli_ipc %u\n", name,
         (unsigned)((unsigned long long)WARPS * insts_per_warp * 1000 / (chip_last - chip_first)));
}

int main(void) {
  tessera_launch(fma_ilp2, 1, 32 * WARPS, 0, 0);
  tessera_wait();
  tessera_launch(fma_load, 1, 32 * WARPS, 0, 0);
  tessera_wait();
  report("fma_ilp2", 0, FMAS);
  report("fma_load", 1, FMAS + FMAS / 4);
  return 0;
}
