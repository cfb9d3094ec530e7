// cudaGetDeviceProperties reports the platform's parameters.
#include <stdio.h>

int main() {
  int count = 0, device = -1;
  cudaGetDeviceCount(&count);
  cudaGetDevice(&device);
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 2;
  printf("RESULT device %d %d\n", count, device);
  printf("RESULT sm %d %d %d %d %d\n", p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock,
         p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor);
  printf("RESULT memory %u %d %u %d\n", (unsigned)p.sharedMemPerBlock, p.regsPerMultiprocessor,
         (unsigned)(p.totalGlobalMem >> 20), p.l2CacheSize);
  printf("RESULT clocks %d %d %d\n", p.clockRate, p.memoryClockRate, p.memoryBusWidth);
  printf("RESULT cc %d %d\n", p.major, p.minor);
  int attr = 0;
  cudaDeviceGetAttribute(&attr, cudaDevAttrMultiProcessorCount, 0);
  printf("RESULT attr_sms %d\n", attr);
  printf("RESULT bad_device %d %d\n", (int)cudaSetDevice(1), (int)cudaGetDeviceProperties(&p, 3));
  printf("name: %s\n", p.name);
  return 0;
}
