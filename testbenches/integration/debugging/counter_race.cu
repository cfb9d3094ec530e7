// A debugging test's bug (debugging_test.cpp): a data race on a counter.
// Every thread adds to one global counter with a plain load and store, so
// the lanes' updates overwrite each other and main returns 1.
__device__ void bump(int* counter) {
  *counter = *counter + 1;  // LINE: racy update
}

__global__ void count_items(int* counter, unsigned n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n) bump(counter);
}

int counter;

int main(void) {
  count_items<<<2, 64>>>(&counter, 128);
  cudaDeviceSynchronize();
  return counter == 128 ? 0 : 1;
}
