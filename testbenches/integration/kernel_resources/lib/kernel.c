#include <tessera.h>

#include "scale.h"

__global__ void scale_kernel(void* arg) {
  float* d = arg;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  d[i] = scale_plus_one(d[i]);
}
