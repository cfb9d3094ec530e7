// Matrix transpose through a padded shared-memory tile, synchronised with
// cooperative groups; a tile of 32 threads checks the row sums with shuffles.
#include <cooperative_groups.h>
#include <stdio.h>

namespace cg = cooperative_groups;

#ifndef N
#define N 128
#endif
#define TILE 32
#define ROWS 8

__global__ void transpose(float* out, const float* in, int n) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  block.sync();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Sum of each row with a 32-thread tile per row.
__global__ void row_sums(const float* m, float* sums, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * (block.size() / 32) + warp.meta_group_rank();
  float s = 0.0f;
  for (int c = warp.thread_rank(); c < n; c += warp.size()) s += m[row * n + c];
  for (int d = warp.size() / 2; d > 0; d /= 2) s += warp.shfl_down(s, d);
  if (warp.thread_rank() == 0) sums[row] = s;
}

int main() {
  static float h_in[N * N], h_out[N * N], h_sums[N];
  for (int i = 0; i < N * N; ++i) h_in[i] = (float)(i % 1000);
  float *d_in, *d_out, *d_sums;
  cudaMalloc(&d_in, sizeof h_in);
  cudaMalloc(&d_out, sizeof h_out);
  cudaMalloc(&d_sums, sizeof h_sums);
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  transpose<<<dim3(N / TILE, N / TILE), dim3(TILE, ROWS)>>>(d_out, d_in, N);
  row_sums<<<N / 4, 128>>>(d_out, d_sums, N);
  cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_sums, d_sums, sizeof h_sums, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    float col = 0.0f;
    for (int j = 0; j < N; ++j) {
      wrong += h_out[i * N + j] != h_in[j * N + i];
      col += h_in[j * N + i];
    }
    wrong += h_sums[i] != col;  // integers below 2^24: exact in any order
  }
  printf("transpose_cg %dx%d: %d wrong\n", N, N, wrong);
  return wrong != 0;
}
