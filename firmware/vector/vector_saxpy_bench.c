/*
 * The speed benchmark of the vector unit on a control core
 * (docs/performance.md): SAXPY with VL = MVL over N floats, REPS times, as
 * the region of interest. Element operations per host second = the core's
 * vector.element_ops (all of them in the region) over roi.host_seconds
 * (--stats); the scalar set-up before it is left out. Prints a checksum to
 * keep the work.
 */
#include "tessera.h"
#include "tessera_rvv.h"

#ifndef N
#define N 16384u
#endif
#ifndef REPS
#define REPS 20u
#endif

static float x[N], y[N];

int main(void) {
  for (unsigned i = 0; i < N; ++i) {
    x[i] = (float)(i % 7);
    y[i] = 0.0f;
  }
  tessera_roi_begin();
  for (unsigned r = 0; r < REPS; ++r) tessera_saxpy_f32(N, 0.5f, x, y);
  tessera_roi_end();
  printf("RESULT vector saxpy_bench y[N-1] %d\n", (int)y[N - 1]);
  return 0;
}
