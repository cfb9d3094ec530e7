// Tiled matrix multiply with the tile size as a template parameter:
// C = A * B for N x N matrices, each block computing a TILE x TILE tile of C
// through shared-memory tiles of A and B.
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 64
#endif

template <int TILE>
__global__ void matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[TILE][TILE];
  __shared__ float tb[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

int main() {
  const size_t bytes = N * N * sizeof(float);
  float* ha = (float*)malloc(bytes);
  float* hb = (float*)malloc(bytes);
  float* hc = (float*)malloc(bytes);
  for (int i = 0; i < N * N; ++i) {
    ha[i] = (float)(i % 7) - 3.0f;
    hb[i] = (float)(i % 5) * 0.5f;
  }
  float *da, *db, *dc;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, bytes, cudaMemcpyHostToDevice);
  const int tile = 16;
  dim3 block(tile, tile);
  dim3 grid(N / tile, N / tile);
  matmul<tile><<<grid, block>>>(da, db, dc, N);
  if (cudaGetLastError() != cudaSuccess) return 2;
  cudaMemcpy(hc, dc, bytes, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < N; ++k) s += ha[i * N + k] * hb[k * N + j];
      wrong += hc[i * N + j] != s;  // small integers and halves: exact
    }
  printf("matmul_tiled %dx%d: %d wrong\n", N, N, wrong);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  free(ha);
  free(hb);
  free(hc);
  return wrong != 0;
}
