/*
 * Vector instructions that must stop the run with a fault naming what was
 * wrong (testbenches/integration/vector), chosen with -DBAD=...:
 *   BAD_VILL        vsetvli asks for e64 (above ELEN 32): vill is set, and
 *                   the vadd.vv after it is an illegal instruction
 *   BAD_MISALIGNED  vle32.v from a word address + 2: element 0 misaligned
 *   BAD_UNMAPPED    vle32.v whose element 3 lies past the end of memory
 *   BAD_NULL        vse32.v through a null pointer (address 0, below memory)
 */
#include "tessera.h"
#include "tessera_rvv.h"

static uint32_t words[8] __attribute__((aligned(64)));

int main(void) {
  unsigned vl = 4;
#if defined(BAD_VILL)
  __asm__ volatile(TESSERA_RVV("vsetvli %0,%0,e64,m1,ta,ma\n\tvadd.vv v1,v2,v3") : "+r"(vl));
#elif defined(BAD_MISALIGNED)
  __asm__ volatile(TESSERA_RVV("vsetvli %0,%0,e32,m1,ta,ma\n\tvle32.v v1,(%1)")
                   : "+r"(vl)
                   : "r"((char*)words + 2)
                   : "memory");
#elif defined(BAD_UNMAPPED)
  /* The last 12 bytes of global memory (memory.size_mb, default 256 MiB from 0x80000000):
   * elements 0..2 are in it, element 3 is not. */
  __asm__ volatile(TESSERA_RVV("vsetvli %0,%0,e32,m1,ta,ma\n\tvle32.v v1,(%1)")
                   : "+r"(vl)
                   : "r"(0x8FFFFFF4u)
                   : "memory");
#elif defined(BAD_NULL)
  __asm__ volatile(TESSERA_RVV("vsetvli %0,%0,e32,m1,ta,ma\n\tvse32.v v1,(%1)") : "+r"(vl) : "r"(0u) : "memory");
#endif
  printf("FAIL vector_bad: the bad instruction did not stop the run\n");
  return (int)words[0];
}
