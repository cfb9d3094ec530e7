// A debugging test's bug (debugging_test.cpp): a kernel stores through a
// pointer that is null for one thread.
__device__ int* pick(int* data, int i) { return i == 37 ? nullptr : data + i; }

__global__ void scatter(int* data) {
  int* p = pick(data, threadIdx.x);
  *p = threadIdx.x;  // LINE: store
}

int main(void) {
  static int data[64];
  scatter<<<1, 64>>>(data);
  cudaDeviceSynchronize();
  return 0;
}
