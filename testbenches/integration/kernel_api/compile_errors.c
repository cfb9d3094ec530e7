/* Compiled once per -D case by the kernel_api tests, each of which must fail
 * with a readable message. */
#include <tessera.h>

struct args {
  int x;
};
struct too_big {
  char bytes[TESSERA_PARAM_BYTES + 4];
};

__global__ void k(void* argp) {
  (void)argp;
#ifdef BAD_ATOMIC_DOUBLE
  static double d;
  atomicAdd(&d, 1.0);
#endif
#ifdef BAD_ATOMIC_MIN_FLOAT
  static float f;
  atomicMin(&f, 1.0f);
#endif
#ifdef BAD_LDG_STRUCT
  static const struct args s;
  (void)__ldg(&s);
#endif
}

/* A kernel declared with CUDA's parameter list. */
__global__ void scale(float* y, int n) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] *= 2.0f;
}

int main(void) {
#ifdef BAD_KERNEL_SIGNATURE
  struct args a = {256};
  tessera_launch(scale, 1, 256, 0, &a);
#endif
#ifdef BAD_KERNEL_SIGNATURE_REF
  static float y[256];
  tessera_launch_ref(scale, 1, 256, 0, y);
#endif
#ifdef BAD_KERNEL_POINTER
  tessera_launch_dim3(scale, dim3_make(1, 1, 1), dim3_make(256, 1, 1), 0, NULL);
#endif
#ifdef BAD_VOID_ARGS
  struct args a = {1};
  void* p = &a;
  tessera_launch(k, 1, 32, 0, p);
#endif
#ifdef BAD_ARRAY_ARGS
  static unsigned out[64];
  tessera_launch(k, 1, 32, 0, out);
#endif
#ifdef BAD_TOO_BIG
  static struct too_big big;
  tessera_launch(k, 1, 32, 0, &big);
#endif
#ifdef BAD_INT_ARGS
  tessera_launch(k, 1, 32, 0, 5);
#endif
  tessera_wait();
  return 0;
}
