// assert() in a kernel: thread 5 of block 1 finds a value out of range.
#include <assert.h>
#include <stdio.h>

__global__ void check(const int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] < 100);
}

int main() {
  int* v;
  cudaMallocManaged(&v, 64 * sizeof(int));
  for (int i = 0; i < 64; ++i) v[i] = i == 37 ? 100 : i;
  check<<<2, 32>>>(v, 64);
  cudaDeviceSynchronize();
  printf("not reached\n");
  return 0;
}
