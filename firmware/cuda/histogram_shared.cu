// 256-bin histogram: each block counts its part of the input with atomicAdd
// on a shared-memory histogram, then adds it to the global one.
#include <stdio.h>
#include <string.h>

#ifndef N
#define N 16384
#endif
#define BINS 256

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

int main() {
  static unsigned char h_data[N];
  unsigned seed = 12345;
  for (int i = 0; i < N; ++i) {
    seed = seed * 1103515245u + 12345u;
    h_data[i] = (unsigned char)((seed >> 16) % 97 + (i % 3) * 50);
  }
  unsigned char* d_data;
  unsigned* d_bins;
  cudaMalloc(&d_data, N);
  cudaMalloc(&d_bins, BINS * sizeof(unsigned));
  cudaMemcpy(d_data, h_data, N, cudaMemcpyHostToDevice);
  cudaMemset(d_bins, 0, BINS * sizeof(unsigned));
  histogram<<<8, 256>>>(d_data, N, d_bins);
  unsigned h_bins[BINS], ref[BINS];
  cudaMemcpy(h_bins, d_bins, sizeof h_bins, cudaMemcpyDeviceToHost);
  memset(ref, 0, sizeof ref);
  for (int i = 0; i < N; ++i) ref[h_data[i]]++;
  int wrong = 0;
  unsigned total = 0;
  for (int b = 0; b < BINS; ++b) {
    wrong += h_bins[b] != ref[b];
    total += h_bins[b];
  }
  printf("histogram_shared %d: %u counted, %d bins wrong\n", N, total, wrong);
  return wrong != 0 || total != N;
}
