/*
 * Cycle counts of short vector sequences on control core 0, each timed with
 * the cycle CSR around it (the integration test derives the expected values
 * from the vector.* parameters, docs/vector.md):
 *
 *   RESULT vector load_add_move C   vle32.v v1; vadd.vv v2,v1,v1; vmv.x.s
 *
 * C counts from the csrr before the sequence to the csrr after it; vmv.x.s
 * writes a scalar register, so the core waits for it and the second csrr
 * sees the whole sequence. VL = VLMAX at e32, m1.
 */
#include "tessera.h"

static unsigned data[1024] __attribute__((aligned(64)));

int main(void) {
  for (unsigned i = 0; i < 1024; ++i) data[i] = i;
  unsigned vl, t0, t1, x;
  __asm__ volatile(
      ".option push\n\t.option arch,+v\n\t"
      "vsetvli %0,zero,e32,m1,ta,ma\n\t"
      "fence\n\t"
      ".p2align 6\n\t"
      "csrr %1, cycle\n\t"
      "vle32.v v1,(%4)\n\t"
      "vadd.vv v2,v1,v1\n\t"
      "vmv.x.s %3,v2\n\t"
      "csrr %2, cycle\n\t"
      ".option pop"
      : "=&r"(vl), "=&r"(t0), "=&r"(t1), "=&r"(x)
      : "r"(data)
      : "memory");
  printf("RESULT vector load_add_move %u vl %u\n", t1 - t0, vl);
  if (x != 0) {
    printf("FAIL vector_cycles: element 0 of v2 is %u, expected 0\n", x);
    return 1;
  }
  printf("PASS vector_cycles\n");
  return 0;
}
