/*
 * A core started with tessera_core_start begins with the vector unit's
 * reset state (docs/vector.md, "On the control cores"): vtype has vill set
 * and vl and vstart are 0, whatever the core's previous function left.
 * Core 1 sets SEW 16 and a vector length, parks, and is started again;
 * then it reads vtype, vl and vstart. Prints "PASS vector_restart" or FAIL.
 */
#include "tessera.h"
#include "tessera_rvv.h"

static volatile uint32_t seen_vtype, seen_vl, seen_vstart;

static void set_vector_state(void* arg) {
  unsigned vl;
  __asm__ volatile(TESSERA_RVV("vsetvli %0,%1,e16,m2,ta,ma\n\t"
                               "csrr %0, vl")
                   : "=&r"(vl)
                   : "r"((unsigned)(uintptr_t)arg));
  seen_vl = vl;
  __asm__ volatile(TESSERA_RVV("csrr %0, vtype") : "=r"(vl));
  seen_vtype = vl;
}

static void read_vector_state(void* arg) {
  (void)arg;
  unsigned v;
  __asm__ volatile(TESSERA_RVV("csrr %0, vtype") : "=r"(v));
  seen_vtype = v;
  __asm__ volatile(TESSERA_RVV("csrr %0, vl") : "=r"(v));
  seen_vl = v;
  __asm__ volatile(TESSERA_RVV("csrr %0, vstart") : "=r"(v));
  seen_vstart = v;
}

int main(void) {
  tessera_core_start(1, set_vector_state, (void*)10u);
  tessera_core_join(1);
  /* e16 = vsew 1 (bits 5:3), m2 = vlmul 1, ta (bit 6), ma (bit 7). */
  if (seen_vtype != 0xC9u || seen_vl != 10u) {
    printf("FAIL vector_restart: after vsetvli vtype 0x%x vl %u, expected 0xc9 and 10\n", (unsigned)seen_vtype,
           (unsigned)seen_vl);
    return 1;
  }
  tessera_core_start(1, read_vector_state, 0);
  tessera_core_join(1);
  if (seen_vtype != 0x80000000u || seen_vl != 0u || seen_vstart != 0u) {
    printf("FAIL vector_restart: a restarted core has vtype 0x%x vl %u vstart %u, expected 0x80000000 0 0\n",
           (unsigned)seen_vtype, (unsigned)seen_vl, (unsigned)seen_vstart);
    return 1;
  }
  printf("PASS vector_restart\n");
  return 0;
}
