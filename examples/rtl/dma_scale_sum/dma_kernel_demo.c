/* dma_scale_sum devices driven from a kernel: block b's thread 0 programs
 * device b (acc0, acc1) through its registers, polls STATUS until done,
 * and stores the device's SUM and its poll count; the control core then
 * checks what the devices wrote. Netlists: chip_dma.yaml, chip_noc_dma.yaml
 * (both bind sms.mmio to the devices' registers). Returns 0 when both
 * results are right. */
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

enum { CTRL = 0x00, STATUS = 0x04, SRC = 0x08, DST = 0x0C, COUNT = 0x10, SCALE = 0x14, SUM = 0x18, ID = 0x1C };
enum { START = 1, DONE = 2, ERROR = 4 };
#define N 600

struct job {
  uint32_t dev;
  const uint32_t* x;
  uint32_t* y;
  uint32_t n, scale;
  uint32_t sum, polls, status; /* written by the kernel */
};

static struct {
  uint32_t x[2][1024], y[2][1024];
} m __attribute__((aligned(4096)));
static struct job jobs[2];

TESSERA_KERNEL void drive(void* argp) {
  struct job* j = (struct job*)argp + blockIdx.x;
  if (threadIdx.x == 0) {
    if (TESSERA_DEVICE_REG(j->dev, ID) != 0x0D5A0001u) {
      j->status = 0xffffffffu;
    } else {
      TESSERA_DEVICE_REG(j->dev, SRC) = (uint32_t)(uintptr_t)j->x;
      TESSERA_DEVICE_REG(j->dev, DST) = (uint32_t)(uintptr_t)j->y;
      TESSERA_DEVICE_REG(j->dev, COUNT) = j->n;
      TESSERA_DEVICE_REG(j->dev, SCALE) = j->scale;
      TESSERA_DEVICE_REG(j->dev, CTRL) = START;
      uint32_t polls = 0, status;
      do {
        status = TESSERA_DEVICE_REG(j->dev, STATUS);
        ++polls;
      } while (!(status & DONE));
      j->sum = TESSERA_DEVICE_REG(j->dev, SUM);
      j->polls = polls;
      j->status = status;
      TESSERA_DEVICE_REG(j->dev, STATUS) = DONE;
    }
  }
  __syncthreads();
}

int main(void) {
  const uint32_t devs[2] = {0x10010000u, 0x10011000u};
  uint32_t want_sum[2] = {0, 0};
  for (int d = 0; d < 2; ++d) {
    for (uint32_t i = 0; i < N; ++i) {
      m.x[d][i] = 11 * i + 3 * (uint32_t)d;
      want_sum[d] += m.x[d][i];
    }
    jobs[d] = (struct job){devs[d], m.x[d], m.y[d], N, (uint32_t)(2 + d), 0, 0, 0};
  }
  tessera_launch_ref(drive, 2, 32, 0, jobs); /* the kernel writes its results into jobs */
  tessera_wait();
  int bad = 0;
  for (int d = 0; d < 2; ++d) {
    const struct job* j = &jobs[d];
    if (j->status == 0xffffffffu) {
      printf("dma_kernel_demo: no dma_scale_sum at 0x%08x\n", (unsigned)j->dev);
      return 2;
    }
    for (uint32_t i = 0; i < N; ++i) {
      if (m.y[d][i] != m.x[d][i] * j->scale) {
        if (bad < 4) printf("acc%d: y[%u] = %u, want %u\n", d, (unsigned)i, (unsigned)m.y[d][i],
                            (unsigned)(m.x[d][i] * j->scale));
        ++bad;
      }
    }
    if (j->sum != want_sum[d] || (j->status & ERROR)) {
      printf("acc%d: SUM = %u (want %u), STATUS = 0x%x\n", d, (unsigned)j->sum, (unsigned)want_sum[d],
             (unsigned)j->status);
      ++bad;
    }
  }
  printf("dma_kernel_demo: %u words each, status polls %u and %u: %s\n", N, (unsigned)jobs[0].polls,
         (unsigned)jobs[1].polls, bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
