/* Single-warp timing kernels for the SM timing tests. Each kernel runs one
 * warp (32 threads, one block) so nothing else competes for the partition;
 * the inline assembly fixes the instruction sequence, and lane 0 stores the
 * cycle (or instret) difference. The expected values are derived by hand in
 * sm_timing_test.cpp. */
#include <tessera.h>

static volatile unsigned result[8];

/* Three moves from x0 make the FP operands; eight nops let them become ready
 * (ALU latency 6) before the first clock read. */
#define PREPARE_FP      \
  "fmv.w.x ft0, zero\n" \
  "fmv.w.x ft1, zero\n" \
  "fmv.w.x ft2, zero\n" \
  ".rept 8\n nop\n .endr\n"

#define FP_CLOBBERS "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9", "ft10", "ft11"

/* 64 dependent FMAs. */
TESSERA_KERNEL void fma_chain(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE_FP
                   "csrr %0, cycle\n"
                   ".rept 64\n fmadd.s ft0, ft0, ft1, ft2\n .endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::FP_CLOBBERS);
  if (tessera_lane_id() == 0) result[0] = t1 - t0;
}

/* 64 FMAs on two independent accumulators (32 pairs). */
TESSERA_KERNEL void fma_ilp2(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE_FP
                   "fmv.w.x ft3, zero\n"
                   ".rept 8\n nop\n .endr\n"
                   "csrr %0, cycle\n"
                   ".rept 32\n fmadd.s ft0, ft0, ft1, ft2\n fmadd.s ft3, ft3, ft1, ft2\n .endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::FP_CLOBBERS);
  if (tessera_lane_id() == 0) result[1] = t1 - t0;
}

/* 16 independent SFU instructions (results rotate over 8 registers). */
TESSERA_KERNEL void sfu_stream(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE_FP
                   "csrr %0, cycle\n"
                   ".rept 2\n"
                   ".insn r 0x0B, 0, 0, ft4, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft5, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft6, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft7, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft8, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft9, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft10, ft1, f0\n"
                   ".insn r 0x0B, 0, 0, ft11, ft1, f0\n"
                   ".endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::FP_CLOBBERS);
  if (tessera_lane_id() == 0) result[2] = t1 - t0;
}

__shared__ int dual_buf[32];

/* 32 groups of four independent FMAs and one shared-memory load. Eight FMA
 * accumulators and eight load destinations keep every dependence far apart. */
TESSERA_KERNEL void fma_load(void* argp) {
  (void)argp;
  unsigned t0, t1;
  volatile int* buf = dual_buf;
  __asm__ volatile(PREPARE_FP
                   "fmv.w.x ft3, zero\n fmv.w.x ft4, zero\n fmv.w.x ft5, zero\n"
                   "fmv.w.x ft6, zero\n fmv.w.x ft7, zero\n fmv.w.x ft8, zero\n"
                   ".rept 8\n nop\n .endr\n"
                   "csrr %0, cycle\n"
                   ".rept 4\n"
                   "fmadd.s ft0, ft0, ft1, ft2\n fmadd.s ft3, ft3, ft1, ft2\n"
                   "fmadd.s ft4, ft4, ft1, ft2\n fmadd.s ft5, ft5, ft1, ft2\n lw t0, 0(%2)\n"
                   "fmadd.s ft6, ft6, ft1, ft2\n fmadd.s ft7, ft7, ft1, ft2\n"
                   "fmadd.s ft8, ft8, ft1, ft2\n fmadd.s ft9, ft9, ft1, ft2\n lw t1, 4(%2)\n"
                   "fmadd.s ft0, ft0, ft1, ft2\n fmadd.s ft3, ft3, ft1, ft2\n"
                   "fmadd.s ft4, ft4, ft1, ft2\n fmadd.s ft5, ft5, ft1, ft2\n lw t2, 8(%2)\n"
                   "fmadd.s ft6, ft6, ft1, ft2\n fmadd.s ft7, ft7, ft1, ft2\n"
                   "fmadd.s ft8, ft8, ft1, ft2\n fmadd.s ft9, ft9, ft1, ft2\n lw t3, 12(%2)\n"
                   "fmadd.s ft0, ft0, ft1, ft2\n fmadd.s ft3, ft3, ft1, ft2\n"
                   "fmadd.s ft4, ft4, ft1, ft2\n fmadd.s ft5, ft5, ft1, ft2\n lw t4, 16(%2)\n"
                   "fmadd.s ft6, ft6, ft1, ft2\n fmadd.s ft7, ft7, ft1, ft2\n"
                   "fmadd.s ft8, ft8, ft1, ft2\n fmadd.s ft9, ft9, ft1, ft2\n lw t5, 20(%2)\n"
                   "fmadd.s ft0, ft0, ft1, ft2\n fmadd.s ft3, ft3, ft1, ft2\n"
                   "fmadd.s ft4, ft4, ft1, ft2\n fmadd.s ft5, ft5, ft1, ft2\n lw t6, 24(%2)\n"
                   "fmadd.s ft6, ft6, ft1, ft2\n fmadd.s ft7, ft7, ft1, ft2\n"
                   "fmadd.s ft8, ft8, ft1, ft2\n fmadd.s ft9, ft9, ft1, ft2\n lw a7, 28(%2)\n"
                   ".endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)
                   : "r"(buf)
                   : FP_CLOBBERS, "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a7", "memory");
  if (tessera_lane_id() == 0) result[3] = t1 - t0;
}

/* Warp instructions between two instret reads around an if/else on the lane
 * parity with 10 instructions on each side (divergent), and the same with
 * every lane taking the then-side (uniform). */
TESSERA_KERNEL void branch_count(void* argp) {
  unsigned divergent = *(unsigned*)argp;
  unsigned i0, i1, odd_count = 0, even_count = 0;
  __asm__ volatile(
      "csrr %0, instret\n"
      "csrr t0, 0xCCC\n"
      "beqz %4, 3f\n"
      "andi t0, t0, 1\n"
      "j 4f\n"
      "3: ori t0, t0, 1\n"
      "4: beqz t0, 1f\n"
      ".rept 10\n addi %2, %2, 1\n .endr\n"
      "j 2f\n"
      "1:\n"
      ".rept 10\n addi %3, %3, 1\n .endr\n"
      "2:\n"
      "csrr %1, instret\n"
      : "=&r"(i0), "=&r"(i1), "+r"(odd_count), "+r"(even_count)
      : "r"(divergent)
      : "t0");
  unsigned lane = tessera_lane_id();
  if (lane == 0) result[4 + divergent] = i1 - i0;
  /* After reconvergence every lane reports which side it ran. */
  atomicAdd((volatile unsigned*)&result[6], odd_count);
  atomicAdd((volatile unsigned*)&result[7], even_count);
}

static void run(tessera_kernel_fn k, const unsigned* args) {
  tessera_launch(k, 1, 32, 0, args);
  tessera_wait();
}

int main(void) {
  unsigned zero = 0, one = 1;
  run(fma_chain, 0);
  run(fma_ilp2, 0);
  run(sfu_stream, 0);
  run(fma_load, 0);
  run(branch_count, &zero);
  unsigned uniform_odd = result[6], uniform_even = result[7];
  result[6] = result[7] = 0;
  run(branch_count, &one);
  printf("RESULT fma_chain_64 %u\n", result[0]);
  printf("RESULT fma_ilp2_64 %u\n", result[1]);
  printf("RESULT sfu_16 %u\n", result[2]);
  printf("RESULT fma_load_32_groups %u\n", result[3]);
  printf("RESULT branch_uniform_insts %u\n", result[4]);
  printf("RESULT branch_divergent_insts %u\n", result[5]);
  printf("RESULT uniform_then_side_adds %u\n", uniform_odd);
  printf("RESULT uniform_else_side_adds %u\n", uniform_even);
  printf("RESULT divergent_then_side_adds %u\n", result[6]);
  printf("RESULT divergent_else_side_adds %u\n", result[7]);
  return 0;
}
