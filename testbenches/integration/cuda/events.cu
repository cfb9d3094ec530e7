// Events take the simulated time at which the work before them ended: e1
// and e2 follow two kernels launched back to back (the second queued while
// the first runs), e0 is recorded with the device idle.
#include <stdio.h>

__global__ void spin(int* out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i ^ (int)threadIdx.x;
  out[threadIdx.x] = s;
}

int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  cudaEvent_t e0, e1, e2, never;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventCreate(&e2);
  cudaEventCreate(&never);
  cudaEventRecord(e0);
  spin<<<1, 32>>>(out, 3000);
  cudaEventRecord(e1);
  spin<<<1, 64>>>(out, 1000);
  cudaEventRecord(e2);
  const int pending = cudaEventQuery(e2) == cudaErrorNotReady;
  cudaEventSynchronize(e2);
  float first = -1, second = -1, both = -1;
  cudaEventElapsedTime(&first, e0, e1);
  cudaEventElapsedTime(&second, e1, e2);
  cudaEventElapsedTime(&both, e0, e2);
  printf("RESULT events_pending %d\n", pending);
  // Nanoseconds (the times are whole nanoseconds at 1 GHz).
  printf("RESULT events_ns %lld %lld %lld\n", (long long)(first * 1e6 + 0.5), (long long)(second * 1e6 + 0.5),
         (long long)(both * 1e6 + 0.5));
  float unused = 0;
  printf("RESULT events_unrecorded %d\n", (int)cudaEventElapsedTime(&unused, e0, never));
  return 0;
}
