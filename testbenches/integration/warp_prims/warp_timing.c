/* Single-warp timing kernels for the warp-level instructions. One block of
 * 32 threads, so nothing else competes for the partition; inline assembly
 * fixes the instruction sequence and lane 0 stores the cycle difference. The
 * expected values are derived by hand in warp_prims_test.cpp. */
#include <tessera.h>

static volatile unsigned result[8];

/* t2 = member mask (all lanes), t3 = shuffle operand (xor 1, width 32), t4
 * = a value; eight nops let them become ready (ALU latency 6) before the
 * first clock read. */
#define PREPARE \
  "li t2, -1\n" \
  "li t3, 1\n"  \
  "li t4, 5\n"  \
  ".rept 8\n nop\n .endr\n"

#define CLOBBERS "t2", "t3", "t4", "t5", "t6", "a3", "a4", "a5", "a6", "a7"

/* shfl.xor t4, t4, t3, t2 (each needs the previous result), 32 times. */
TESSERA_KERNEL void shfl_chain(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE
                   "csrr %0, cycle\n"
                   ".rept 32\n .insn r4 0x0B, 2, 3, t4, t4, t3, t2\n .endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::CLOBBERS);
  if (tessera_lane_id() == 0) result[0] = t1 - t0;
}

/* 16 independent shuffles (destinations rotate over four registers). */
TESSERA_KERNEL void shfl_stream(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE
                   "csrr %0, cycle\n"
                   ".rept 4\n"
                   ".insn r4 0x0B, 2, 0, t5, t4, t3, t2\n"
                   ".insn r4 0x0B, 2, 0, t6, t4, t3, t2\n"
                   ".insn r4 0x0B, 2, 0, a7, t4, t3, t2\n"
                   ".insn r4 0x0B, 2, 0, a6, t4, t3, t2\n"
                   ".endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::CLOBBERS);
  if (tessera_lane_id() == 0) result[1] = t1 - t0;
}

/* vote.any t4, t4, t2 (each needs the previous result), 32 times. */
TESSERA_KERNEL void vote_chain(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE
                   "csrr %0, cycle\n"
                   ".rept 32\n .insn r 0x0B, 3, 1, t4, t4, t2\n .endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::CLOBBERS);
  if (tessera_lane_id() == 0) result[2] = t1 - t0;
}

/* 16 pairs of an independent shuffle and an independent ballot. */
TESSERA_KERNEL void shfl_vote_pairs(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE
                   "csrr %0, cycle\n"
                   ".rept 4\n"
                   ".insn r4 0x0B, 2, 0, t5, t4, t3, t2\n .insn r 0x0B, 3, 0, a3, t4, t2\n"
                   ".insn r4 0x0B, 2, 0, t6, t4, t3, t2\n .insn r 0x0B, 3, 0, a4, t4, t2\n"
                   ".insn r4 0x0B, 2, 0, a7, t4, t3, t2\n .insn r 0x0B, 3, 0, a5, t4, t2\n"
                   ".insn r4 0x0B, 2, 0, a6, t4, t3, t2\n .insn r 0x0B, 3, 0, t0, t4, t2\n"
                   ".endr\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::CLOBBERS, "t0");
  if (tessera_lane_id() == 0) result[3] = t1 - t0;
}

/* bar.red.popc t5, t4 (the whole block is this warp: it releases at once)
 * and an add that needs its result. */
TESSERA_KERNEL void bar_red_latency(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE
                   "csrr %0, cycle\n"
                   ".insn r 0x0B, 3, 5, t5, t4, x0\n"
                   "add t6, t5, t5\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::CLOBBERS);
  if (tessera_lane_id() == 0) result[4] = t1 - t0;
}

/* syncwarp t2 with every lane converged. */
TESSERA_KERNEL void syncwarp_cost(void* argp) {
  (void)argp;
  unsigned t0, t1;
  __asm__ volatile(PREPARE
                   "csrr %0, cycle\n"
                   ".insn r 0x0B, 3, 4, x0, t2, x0\n"
                   "csrr %1, cycle\n"
                   : "=&r"(t0), "=&r"(t1)::CLOBBERS);
  if (tessera_lane_id() == 0) result[5] = t1 - t0;
}

static void run(tessera_kernel_fn k) {
  tessera_launch(k, 1, 32, 0, 0);
  tessera_wait();
}

int main(void) {
  run(shfl_chain);
  run(shfl_stream);
  run(vote_chain);
  run(shfl_vote_pairs);
  run(bar_red_latency);
  run(syncwarp_cost);
  printf("RESULT shfl_chain_32 %u\n", result[0]);
  printf("RESULT shfl_stream_16 %u\n", result[1]);
  printf("RESULT vote_chain_32 %u\n", result[2]);
  printf("RESULT shfl_vote_pairs_16 %u\n", result[3]);
  printf("RESULT bar_red_then_add %u\n", result[4]);
  printf("RESULT syncwarp %u\n", result[5]);
  return 0;
}
