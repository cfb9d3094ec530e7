// CUDA's rounding-mode intrinsics, in a kernel (the SM lanes and FP64 unit)
// and on the host (a control core): each prints the bits of its results as
// "RESULT rounding_device ..." and "RESULT rounding_host ...".
#include <stdio.h>
#include <string.h>

#define N 24

__host__ __device__ static unsigned u(float x) {
  unsigned r;
  memcpy(&r, &x, sizeof r);
  return r;
}

// Low and high words of a double's bits.
__host__ __device__ static void d(double x, unsigned* out) {
  memcpy(out, &x, sizeof x);
}

__host__ __device__ static void compute(volatile float* one, unsigned* r) {
  const float f1 = *one, tiny = f1 * 0x1p-24f, three = f1 * 3.0f;
  const double d1 = f1, d3 = three;
  r[0] = u(__fadd_rn(f1, tiny));  // a tie: to even
  r[1] = u(__fadd_ru(f1, tiny));
  r[2] = u(__fadd_rz(f1, tiny));
  r[3] = u(__fadd_rd(-f1, -tiny));
  r[4] = u(__fdiv_rn(f1, three));
  r[5] = u(__fdiv_rz(f1, three));
  r[6] = u(__frcp_rz(three));
  r[7] = u(__fsqrt_ru(2.0f * f1));
  r[8] = u(__fsqrt_rz(2.0f * f1));
  r[9] = (unsigned)__float2int_rd(-0.5f * f1);
  r[10] = u(__int2float_rz(16777217 * (int)f1));
  r[11] = u(__int2float_ru(16777217 * (int)f1));
  d(__ddiv_rz(d1, d3), &r[12]);
  d(__ddiv_ru(d1, d3), &r[14]);
  r[16] = (unsigned)__double2int_rn(2.5 * d1);
  r[17] = (unsigned)__double2int_ru(2.5 * d1);
  r[18] = (unsigned)__double2int_rd(-2.5 * d1);
  r[19] = (unsigned)__double2int_rz(-2.5 * d1);
  r[20] = u(__double2float_ru(d1 / d3));
  r[21] = u(__double2float_rz(d1 / d3));
  d(__fma_rd(d1 + 0x1p-52, d1 - 0x1p-53, -d1), &r[22]);
}

__global__ void device_forms(float* one, unsigned* out) {
  if (threadIdx.x == 0) compute(one, out);
}

int main() {
  float* one;
  unsigned* dev;
  cudaMallocManaged(&one, sizeof(float));
  cudaMallocManaged(&dev, N * sizeof(unsigned));
  *one = 1.0f;
  device_forms<<<1, 32>>>(one, dev);
  cudaDeviceSynchronize();
  unsigned host[N];
  compute(one, host);
  printf("RESULT rounding_device");
  for (int i = 0; i < N; ++i) printf(" %u", dev[i]);
  printf("\nRESULT rounding_host");
  for (int i = 0; i < N; ++i) printf(" %u", host[i]);
  printf("\n");
  return 0;
}
