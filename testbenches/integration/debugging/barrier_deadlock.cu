// A debugging test's bug (debugging_test.cpp): __syncthreads() in a
// divergent branch. Warp 0 waits at the barrier for warp 1, which spins on
// a flag that only warp 0 sets after the barrier. The test finds the lines
// marked LINE: below by their text.
__global__ void spin_past_barrier(int* out) {
  __shared__ int ready;
  if (threadIdx.x == 0) ready = 0;
  if (threadIdx.x < 32) {
    __syncthreads();  // LINE: barrier
    ready = 1;
  } else {
    while (*(volatile int*)&ready == 0) {  // LINE: spin
    }
  }
  out[threadIdx.x] = 1;
}

int main(void) {
  static int out[64];
  spin_past_barrier<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
