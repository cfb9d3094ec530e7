/* driver_types.h: part of CUDA's runtime API on Tessera; everything is in cuda_runtime.h
 * (docs/cuda.md). */
#include "cuda_runtime.h"
