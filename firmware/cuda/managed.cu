// Managed memory: one allocation written by the host, updated by two kernels
// and read back by the host without copies; a __device__ counter is read
// with cudaMemcpyFromSymbol.
#include <stdio.h>

#ifndef N
#define N 2048
#endif

__device__ int odd_count;

__global__ void square(int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

__global__ void count_odd(const int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (v[i] & 1)) atomicAdd(&odd_count, 1);
}

int main() {
  int* v;
  if (cudaMallocManaged(&v, N * sizeof(int)) != cudaSuccess) return 2;
  for (int i = 0; i < N; ++i) v[i] = i - N / 2;
  const int zero = 0;
  cudaMemcpyToSymbol(odd_count, &zero, sizeof zero);
  square<<<(N + 255) / 256, 256>>>(v, N);
  count_odd<<<(N + 255) / 256, 256>>>(v, N);
  cudaDeviceSynchronize();
  int odd = 0;
  cudaMemcpyFromSymbol(&odd, odd_count, sizeof odd);
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += v[i] != (i - N / 2) * (i - N / 2);
  printf("managed %d: %d wrong, %d odd\n", N, wrong, odd);
  cudaFree(v);
  return wrong != 0 || odd != N / 2;
}
