// __constant__ loads through the constant cache: one warp reads a 64-word
// table ITERS times, its 32 lanes asking for DISTINCT different words per
// load (1: every lane the same word, a broadcast; 32: every lane its own).
// Run as: tessera run sm1 const_cache.elf -- DISTINCT
#include <stdio.h>
#include <stdlib.h>

#define ITERS 100
#define WORDS 64

__constant__ int table[WORDS];

__global__ void reader(int distinct, int* out) {
  const int lane = threadIdx.x;
  int sum = 0;
  for (int i = 0; i < ITERS; ++i) sum += table[(i + lane % distinct) % WORDS];
  out[lane] = sum;
}

int main(int argc, char** argv) {
  const int distinct = argc > 1 ? atoi(argv[1]) : 1;
  int host[WORDS];
  for (int i = 0; i < WORDS; ++i) host[i] = i * 3 + 1;
  cudaMemcpyToSymbol(table, host, sizeof host);
  int* out;
  cudaMallocManaged(&out, 32 * sizeof(int));
  reader<<<1, 32>>>(distinct, out);
  cudaDeviceSynchronize();
  int wrong = 0;
  for (int lane = 0; lane < 32; ++lane) {
    int sum = 0;
    for (int i = 0; i < ITERS; ++i) sum += host[(i + lane % distinct) % WORDS];
    wrong += out[lane] != sum;
  }
  printf("RESULT const_wrong %d\n", wrong);
  return wrong != 0;
}
