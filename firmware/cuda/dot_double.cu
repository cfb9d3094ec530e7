// Double-precision dot product: a grid-stride loop per thread, a shared-memory
// tree per block and one double atomicAdd per block.
#include <stdio.h>

#ifndef N
#define N 4096
#endif
#define BLOCK 128

__global__ void dot(const double* x, const double* y, double* result, int n) {
  __shared__ double partial[BLOCK];
  double s = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += x[i] * y[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

int main() {
  static double hx[N], hy[N];
  double ref = 0.0;
  for (int i = 0; i < N; ++i) {
    hx[i] = (i % 9) * 0.25;
    hy[i] = (i % 4) - 1.5;
    ref += hx[i] * hy[i];
  }
  double *dx, *dy, *dr;
  cudaMalloc(&dx, sizeof hx);
  cudaMalloc(&dy, sizeof hy);
  cudaMalloc(&dr, sizeof(double));
  cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice);
  cudaMemset(dr, 0, sizeof(double));
  dot<<<8, BLOCK>>>(dx, dy, dr, N);
  double result = 0.0;
  cudaMemcpy(&result, dr, sizeof result, cudaMemcpyDeviceToHost);
  // Every product and partial sum is a multiple of 1/8 well below 2^53: exact.
  printf("dot_double %d: %.3f (expected %.3f)\n", N, result, ref);
  return result != ref;
}
