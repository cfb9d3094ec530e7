/*
 * Every control core runs vector code at once (docs/vector.md, "Shared
 * units"): core h strip-mines SAXPY over its own n = 100 + 61 h floats and a
 * u32 dot product over them, so the cores' vector lengths differ in every
 * strip. On units shared by several cores (cluster.cores_per_vector_unit)
 * each core keeps its own registers, vl and vtype: every result must equal
 * the scalar one, whatever the other cores did meanwhile. The parallel part
 * is the region of interest. Prints "PASS vector_shared" or FAIL.
 */
#include "../cluster/cluster.h"
#include "tessera.h"
#include "tessera_rvv.h"

#define MAX_CORES 16u
#define MAX_N (100u + 61u * (MAX_CORES - 1u))

static float x[MAX_CORES][MAX_N], y[MAX_CORES][MAX_N];
static uint32_t u[MAX_CORES][MAX_N];
static volatile uint32_t dot[MAX_CORES];

static unsigned length(unsigned h) { return 100u + 61u * h; }

static void work(void* arg) {
  (void)arg;
  const unsigned h = tessera_hart_id();
  const unsigned n = length(h);
  tessera_saxpy_f32(n, 0.25f * (float)(h + 1u), x[h], y[h]);
  dot[h] = tessera_dot_u32(n, u[h], u[h]);
}

int main(void) {
  const unsigned cores = tessera_num_cores() < MAX_CORES ? tessera_num_cores() : MAX_CORES;
  for (unsigned h = 0; h < cores; ++h)
    for (unsigned i = 0; i < length(h); ++i) {
      x[h][i] = (float)((i * 7u + h) % 13u);
      y[h][i] = (float)(i % 5u);
      u[h][i] = i + 3u * h;
    }
  tessera_roi_begin();
  run_on_cores(cores, work, 0);
  tessera_roi_end();
  unsigned bad = 0;
  for (unsigned h = 0; h < cores; ++h) {
    const float a = 0.25f * (float)(h + 1u);
    uint32_t expect_dot = 0;
    for (unsigned i = 0; i < length(h); ++i) {
      /* Small integers times a power of two: exact in both orders. */
      const float expect = a * (float)((i * 7u + h) % 13u) + (float)(i % 5u);
      if (y[h][i] != expect) {
        if (bad++ < 4)
          printf("FAIL vector_shared: core %u y[%u] = %d/4, expected %d/4\n", h, i, (int)(4.0f * y[h][i]),
                 (int)(4.0f * expect));
      }
      expect_dot += u[h][i] * u[h][i];
    }
    if (dot[h] != expect_dot) {
      ++bad;
      printf("FAIL vector_shared: core %u dot = %u, expected %u\n", h, (unsigned)dot[h], (unsigned)expect_dot);
    }
  }
  if (bad) return 1;
  printf("PASS vector_shared (%u cores)\n", cores);
  return 0;
}
