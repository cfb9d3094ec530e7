// FP64 issue rate and latency: one warp runs ITERS iterations of 8 fadd.d,
// either independent (8 accumulators: the FP64 unit's occupancy bounds the
// loop) or dependent (one accumulator: the FP64 latency bounds it).
// Run as: tessera run sm1 fp64_rate.elf -- independent|dependent ITERS
// The host checks every thread's sums in double on the control core.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


__global__ void independent(int iters, double* out) {
  double a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const double b = 0.5;
  for (int i = 0; i < iters; ++i) {
    asm volatile(
        "fadd.d %0, %0, %[b]\n\tfadd.d %1, %1, %[b]\n\tfadd.d %2, %2, %[b]\n\tfadd.d %3, %3, %[b]\n\t"
        "fadd.d %4, %4, %[b]\n\tfadd.d %5, %5, %[b]\n\tfadd.d %6, %6, %[b]\n\tfadd.d %7, %7, %[b]"
        : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3), "+f"(a4), "+f"(a5), "+f"(a6), "+f"(a7)
        : [b] "f"(b));
  }
  out[threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

__global__ void dependent(int iters, double* out) {
  double a = threadIdx.x;
  const double b = 0.5;
  for (int i = 0; i < iters; ++i) {
    asm volatile("fadd.d %0, %0, %[b]\n\tfadd.d %0, %0, %[b]\n\tfadd.d %0, %0, %[b]\n\tfadd.d %0, %0, %[b]\n\t"
                 "fadd.d %0, %0, %[b]\n\tfadd.d %0, %0, %[b]\n\tfadd.d %0, %0, %[b]\n\tfadd.d %0, %0, %[b]"
                 : "+f"(a)
                 : [b] "f"(b));
  }
  out[threadIdx.x] = a;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fp64_rate independent|dependent ITERS\n");
    return 2;
  }
  const bool indep = strcmp(argv[1], "independent") == 0;
  const int iters = atoi(argv[2]);
  double* out;
  cudaMallocManaged(&out, 32 * sizeof(double));
  if (indep) {
    independent<<<1, 32>>>(iters, out);
  } else {
    dependent<<<1, 32>>>(iters, out);
  }
  cudaDeviceSynchronize();
  // Every value is a multiple of 0.5 well inside 2^53: exact in double.
  int wrong = 0;
  for (int t = 0; t < 32; ++t) {
    volatile double want = indep ? 8.0 * t + 28.0 + 8 * 0.5 * iters : t + 8 * 0.5 * iters;
    wrong += out[t] != want;
  }
  printf("RESULT fp64_wrong %d\n", wrong);
  return wrong != 0;
}
