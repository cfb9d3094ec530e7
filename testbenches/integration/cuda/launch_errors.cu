// A launch the runtime refuses returns its error through cudaGetLastError();
// with CHECK undefined the program goes on without reading it.
#include <stdio.h>

__global__ void fill(int* v) { v[threadIdx.x] = (int)threadIdx.x; }

int main() {
  int* v;
  cudaMalloc(&v, 4096 * sizeof(int));
  fill<<<1, 2048>>>(v);
#ifdef CHECK
  const cudaError_t e = cudaGetLastError();
  printf("RESULT too_many_threads %d\n", (int)e);
  printf("error: %s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
  printf("RESULT after_read %d\n", (int)cudaGetLastError());
  fill<<<dim3(1, 0), 32>>>(v);
  printf("RESULT zero_grid %d\n", (int)cudaPeekAtLastError());
  printf("RESULT peek_keeps %d\n", (int)cudaGetLastError());
  fill<<<1, 32, 1 << 30>>>(v);
  printf("RESULT too_much_shared %d\n", (int)cudaGetLastError());
  fill<<<1, 32>>>(v);
  int h[32];
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("RESULT good_launch %d %d\n", (int)cudaGetLastError(), h[31]);
  printf("RESULT bad_kind %d\n", (int)cudaMemcpy(h, v, sizeof h, (cudaMemcpyKind)7));
#else
  int h[32];
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("not reached\n");
#endif
  return 0;
}
