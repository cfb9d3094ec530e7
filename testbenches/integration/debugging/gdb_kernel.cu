// The program gdb drives in the debugging tests (debugging_test.cpp,
// GdbSession.*): a kernel with a shared tile, a block barrier and a global
// store, and a control-core loop that sums what it wrote.
__device__ int scale(int v) { return v * 3; }

__global__ void accumulate(int* out, int bias) {
  __shared__ int tile[32];
  int lane = threadIdx.x;
  int v = scale(lane);  // LINE: compute
  tile[lane] = v;       // LINE: shared store
  __syncthreads();
  out[blockIdx.x * 32 + lane] = tile[(lane + 1) % 32] + bias;  // LINE: global store
}

int total;

int main(void) {
  static int data[64];
  accumulate<<<2, 32>>>(data, 5);
  cudaDeviceSynchronize();
  for (int i = 0; i < 64; ++i) total += data[i];  // LINE: sum
  // 2 blocks x (3 * (0 + ... + 31) + 32 * 5) = 2 x (1488 + 160)
  return total == 3296 ? 0 : 1;
}
