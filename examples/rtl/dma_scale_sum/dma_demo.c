/* Two dma_scale_sum devices (dma_scale_sum.sv) at work: the control core
 * programs both, sleeps in wfi until both have raised their interrupt, and
 * checks what they computed. Netlists: chip_dma.yaml, chip_noc_dma.yaml.
 * Prints each device's status polls so the register statistics can be
 * checked against it. Returns 0 when both results are right. */
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

#define ACC0 0x10010000u
#define ACC1 0x10011000u
enum { CTRL = 0x00, STATUS = 0x04, SRC = 0x08, DST = 0x0C, COUNT = 0x10, SCALE = 0x14, SUM = 0x18, ID = 0x1C };
enum { START = 1, IRQ_ENABLE = 2, BUSY = 1, DONE = 2, ERROR = 4 };
#define N0 1000
#define N1 77

/* One 4 KiB page per device buffer pair, so no burst meets a 4 KiB
 * boundary: acc0 moves 128-byte-aligned lines, acc1 starts 8 bytes into one. */
static struct {
  uint32_t x0[1024], y0[1024];
  uint32_t x1_line[128], y1_line[128];
} m __attribute__((aligned(4096)));

static void program(uint32_t dev, const uint32_t* x, uint32_t* y, uint32_t n, uint32_t scale) {
  TESSERA_DEVICE_REG(dev, SRC) = (uint32_t)(uintptr_t)x;
  TESSERA_DEVICE_REG(dev, DST) = (uint32_t)(uintptr_t)y;
  TESSERA_DEVICE_REG(dev, COUNT) = n;
  TESSERA_DEVICE_REG(dev, SCALE) = scale;
  TESSERA_DEVICE_REG(dev, CTRL) = START | IRQ_ENABLE;
}

static int check(const char* name, uint32_t dev, const uint32_t* x, const uint32_t* y, uint32_t n, uint32_t scale) {
  uint32_t sum = 0;
  int bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    sum += x[i];
    if (y[i] != x[i] * scale) {
      if (bad < 4) printf("%s: y[%u] = %u, want %u\n", name, (unsigned)i, (unsigned)y[i], (unsigned)(x[i] * scale));
      ++bad;
    }
  }
  const uint32_t status = TESSERA_DEVICE_REG(dev, STATUS), got = TESSERA_DEVICE_REG(dev, SUM);
  if (status & ERROR) {
    printf("%s: STATUS.error is set\n", name);
    ++bad;
  }
  if (got != sum) {
    printf("%s: SUM = %u, want %u\n", name, (unsigned)got, (unsigned)sum);
    ++bad;
  }
  TESSERA_DEVICE_REG(dev, STATUS) = DONE; /* clears done and the interrupt */
  return bad;
}

int main(void) {
  uint32_t* x1 = m.x1_line + 2;
  uint32_t* y1 = m.y1_line + 2;
  for (uint32_t i = 0; i < N0; ++i) m.x0[i] = 3 * i + 1;
  for (uint32_t i = 0; i < N1; ++i) x1[i] = 1000 - 7 * i;
  if (TESSERA_DEVICE_REG(ACC0, ID) != 0x0D5A0001u || TESSERA_DEVICE_REG(ACC1, ID) != 0x0D5A0001u) {
    printf("dma_demo: no dma_scale_sum at 0x%08x and 0x%08x\n", ACC0, ACC1);
    return 2;
  }
  program(ACC0, m.x0, m.y0, N0, 5);
  program(ACC1, x1, y1, N1, 3);
  unsigned polls0 = 0, polls1 = 0, done0 = 0, done1 = 0;
  while (!done0 || !done1) {
    if (!done0) done0 = (++polls0, TESSERA_DEVICE_REG(ACC0, STATUS) & DONE) != 0;
    if (!done1) done1 = (++polls1, TESSERA_DEVICE_REG(ACC1, STATUS) & DONE) != 0;
    if (!done0 || !done1) tessera_wfi();
  }
  const int bad = check("acc0", ACC0, m.x0, m.y0, N0, 5) + check("acc1", ACC1, x1, y1, N1, 3);
  printf("dma_demo: acc0 %u words, acc1 %u words, status polls %u and %u: %s\n", N0, N1, polls0, polls1,
         bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
