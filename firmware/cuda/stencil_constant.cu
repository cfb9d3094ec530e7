// 1-D stencil of radius 4 whose coefficients are __constant__ data set with
// cudaMemcpyToSymbol; the block's inputs and halo are staged in shared memory.
#include <stdio.h>

#ifndef N
#define N 8192
#endif
#define RADIUS 4
#define BLOCK 128

__constant__ float coeff[2 * RADIUS + 1];

__global__ void stencil(const float* in, float* out, int n) {
  __shared__ float s[BLOCK + 2 * RADIUS];
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int l = threadIdx.x + RADIUS;
  s[l] = in[g];
  if (threadIdx.x < RADIUS) {
    s[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
    s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
  }
  __syncthreads();
  float r = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) r += coeff[k + RADIUS] * s[l + k];
  out[g] = r;
}

int main() {
  static float h_in[N], h_out[N];
  const float h_coeff[2 * RADIUS + 1] = {1, -2, 3, -4, 5, -4, 3, -2, 1};
  for (int i = 0; i < N; ++i) h_in[i] = (float)(i % 17);
  cudaMemcpyToSymbol(coeff, h_coeff, sizeof h_coeff);
  float *d_in, *d_out;
  cudaMalloc(&d_in, sizeof h_in);
  cudaMalloc(&d_out, sizeof h_out);
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  stencil<<<N / BLOCK, BLOCK>>>(d_in, d_out, N);
  cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    float r = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) r += h_coeff[k + RADIUS] * (i + k >= 0 && i + k < N ? h_in[i + k] : 0.0f);
    wrong += h_out[i] != r;  // small integers: exact
  }
  printf("stencil_constant %d: %d wrong\n", N, wrong);
  return wrong != 0;
}
