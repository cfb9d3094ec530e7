// Two streams, each copying its half of the input in, scaling it and copying
// it back, timed with events; the elapsed times must be positive and the
// whole run at least as long as each stream's part.
#include <stdio.h>

#ifndef N
#define N 4096
#endif

__global__ void scale(float* v, float f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= f;
}

int main() {
  const int half = N / 2;
  float* host;
  float* dev;
  cudaMallocHost(&host, N * sizeof(float));
  cudaMalloc(&dev, N * sizeof(float));
  for (int i = 0; i < N; ++i) host[i] = (float)i;
  cudaStream_t s[2];
  cudaEvent_t start, done[2];
  cudaEventCreate(&start);
  for (int k = 0; k < 2; ++k) {
    cudaStreamCreate(&s[k]);
    cudaEventCreate(&done[k]);
  }
  cudaEventRecord(start, 0);
  for (int k = 0; k < 2; ++k) {
    float* h = host + k * half;
    float* d = dev + k * half;
    cudaMemcpyAsync(d, h, half * sizeof(float), cudaMemcpyHostToDevice, s[k]);
    scale<<<(half + 127) / 128, 128, 0, s[k]>>>(d, 2.0f + k, half);
    cudaMemcpyAsync(h, d, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]);
    cudaEventRecord(done[k], s[k]);
  }
  for (int k = 0; k < 2; ++k) cudaStreamSynchronize(s[k]);
  float ms[2];
  for (int k = 0; k < 2; ++k) {
    cudaEventSynchronize(done[k]);
    if (cudaEventElapsedTime(&ms[k], start, done[k]) != cudaSuccess) return 2;
  }
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += host[i] != (float)i * (i < half ? 2.0f : 3.0f);
  const int times_ok = ms[0] > 0.0f && ms[1] >= ms[0];
  printf("streams_events %d: %d wrong, events %s\n", N, wrong, times_ok ? "ordered" : "WRONG");
  for (int k = 0; k < 2; ++k) {
    cudaEventDestroy(done[k]);
    cudaStreamDestroy(s[k]);
  }
  cudaEventDestroy(start);
  cudaFree(dev);
  cudaFreeHost(host);
  return wrong != 0 || !times_ok;
}
