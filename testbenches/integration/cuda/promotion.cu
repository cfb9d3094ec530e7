// A float kernel with an unsuffixed double constant (Rodinia backprop's
// pattern): y * 0.3 is computed in double.
#include <stdio.h>

__global__ void scale(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * 0.3;
}

int main() {
  float* y;
  cudaMallocManaged(&y, 64 * sizeof(float));
  for (int i = 0; i < 64; ++i) y[i] = i;
  scale<<<2, 32>>>(y, 64);
  cudaDeviceSynchronize();
  printf("RESULT y63_x1000 %d\n", (int)(y[63] * 1000.0f + 0.5f));
  return 0;
}
