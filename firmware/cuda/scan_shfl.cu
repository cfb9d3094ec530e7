// Inclusive prefix sum with warp shuffles: each warp scans its 32 values
// with __shfl_up_sync, the warp totals are scanned the same way through
// shared memory, and a second kernel adds each block's offset.
#include <stdio.h>

#ifndef N
#define N 4096
#endif
#define BLOCK 256

__device__ __forceinline__ int warp_scan(int v) {
  const int lane = threadIdx.x & (warpSize - 1);
  for (int d = 1; d < warpSize; d *= 2) {
    const int up = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

__global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
  __shared__ int warp_sums[BLOCK / 32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warp_scan(v);
  const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  if (lane == warpSize - 1) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int s = lane < BLOCK / 32 ? warp_sums[lane] : 0;
    s = warp_scan(s);
    if (lane < BLOCK / 32) warp_sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) v += warp_sums[warp - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

__global__ void add_offsets(int* out, const int* block_sums, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 || i >= n) return;  // threads that return leave the barrier-free kernel
  int offset = 0;
  for (int b = 0; b < (int)blockIdx.x; ++b) offset += block_sums[b];
  out[i] += offset;
}

int main() {
  static int h_in[N], h_out[N];
  for (int i = 0; i < N; ++i) h_in[i] = (i * 7) % 11 - 5;
  const int blocks = (N + BLOCK - 1) / BLOCK;
  int *d_in, *d_out, *d_sums;
  cudaMalloc(&d_in, sizeof h_in);
  cudaMalloc(&d_out, sizeof h_out);
  cudaMalloc(&d_sums, blocks * sizeof(int));
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  block_scan<<<blocks, BLOCK>>>(d_in, d_out, d_sums, N);
  add_offsets<<<blocks, BLOCK>>>(d_out, d_sums, N);
  cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
  int wrong = 0, sum = 0;
  for (int i = 0; i < N; ++i) {
    sum += h_in[i];
    wrong += h_out[i] != sum;
  }
  printf("scan_shfl %d: total %d, %d wrong\n", N, h_out[N - 1], wrong);
  return wrong != 0;
}
