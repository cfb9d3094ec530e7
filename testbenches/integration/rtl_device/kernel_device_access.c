/* A kernel's accesses to device registers that Tessera must refuse
 * (rtl_device_test.cpp): argv[1] names the access thread 0 makes at the
 * dma_scale_sum device at 0x10010000 (chip_dma.yaml binds sms.mmio to it).
 *   amo     an atomic add to its CTRL register
 *   byte    a byte load of its ID register
 *   unbound a load from 0x10013000, a window no device has
 *   mixed   one load instruction whose lane 0 reads the ID register and
 *           lane 1 global memory
 *   slverr  a load at offset 0x40, which the block answers SLVERR */
#include <stdint.h>
#include <string.h>

#include "tessera.h"

#define ACC0 0x10010000u

static uint32_t word;

struct args {
  int which;
  uint32_t* global;
};

TESSERA_KERNEL void poke(void* argp) {
  const struct args* a = argp;
  volatile uint32_t* id = (volatile uint32_t*)(uintptr_t)(ACC0 + 0x1C);
  uint32_t sink = 0;
  if (a->which == 0 && threadIdx.x == 0) {
    __atomic_fetch_add((uint32_t*)(uintptr_t)ACC0, 1u, __ATOMIC_RELAXED);
  } else if (a->which == 1 && threadIdx.x == 0) {
    sink = *(volatile uint8_t*)(uintptr_t)(ACC0 + 0x1C);
  } else if (a->which == 2 && threadIdx.x == 0) {
    sink = *(volatile uint32_t*)(uintptr_t)0x10013000u;
  } else if (a->which == 3 && threadIdx.x < 2) {
    const uintptr_t other = -(uintptr_t)(threadIdx.x != 0); /* branch-free: one load for both lanes */
    sink = *(volatile uint32_t*)(((uintptr_t)id & ~other) | ((uintptr_t)a->global & other));
  } else if (a->which == 4 && threadIdx.x == 0) {
    sink = *(volatile uint32_t*)(uintptr_t)(ACC0 + 0x40);
  }
  if (sink == 0x12345678u) a->global[1] = sink;
}

int main(int argc, char** argv) {
  static const char* const names[] = {"amo", "byte", "unbound", "mixed", "slverr"};
  struct args a = {-1, &word};
  for (int i = 0; i < 5; ++i)
    if (argc > 1 && strcmp(argv[1], names[i]) == 0) a.which = i;
  if (a.which < 0) return 2;
  tessera_launch(poke, 1, 32, 0, &a);
  tessera_wait();
  return 0;
}
