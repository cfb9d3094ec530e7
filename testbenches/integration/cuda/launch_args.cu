// Kernel arguments are converted to the parameter types as a C++ call
// converts them and copied at the launch: every parameter is echoed back.
#include <stdio.h>

struct Pair {
  short a;
  double b;
};
struct Big {
  int v[600];  // 2400 bytes, copied to each thread's stack (sm.local_bytes 4096)
};

struct Echo {
  int c, s, i;
  unsigned u;
  long long ll;
  float f;
  double d;
  int deref;
  int pair_a;
  double pair_b;
  long long big_sum;
};

__global__ void echo(char c, short s, int i, unsigned u, long long ll, float f, double d, const int* p, Pair pair,
                     Echo* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  out->c = c;
  out->s = s;
  out->i = i;
  out->u = u;
  out->ll = ll;
  out->f = f;
  out->d = d;
  out->deref = *p;
  out->pair_a = pair.a;
  out->pair_b = pair.b;
}

__global__ void sum_big(Big big, int n, long long* out) {
  long long s = 0;
  for (int i = 0; i < n; ++i) s += big.v[i];
  if (threadIdx.x == 0) *out = s;
}

template <class T, int SCALE>
__global__ void scaled(T v, T* out) {
  out[threadIdx.x] = v * SCALE + (T)threadIdx.x;
}

int main() {
  Echo* out;
  int* value;
  cudaMallocManaged(&out, sizeof(Echo));
  cudaMallocManaged(&value, sizeof(int));
  *value = 77;
  Pair pair = {-12, 2.25};
  // double -> char, int -> short, double -> int, int -> unsigned (wraps),
  // int -> long long, double -> float, int -> double.
  echo<<<2, 32>>>(65.9, 40000 - 65536, -7.75, -1, 1 << 30, 0.1, 3, value, pair, out);
  pair.a = 99;  // after the launch: the kernel has its own copy
  *value = 77;
  cudaDeviceSynchronize();
  printf("RESULT echo_ints %d %d %d %u %lld\n", out->c, out->s, out->i, out->u, out->ll);
  printf("RESULT echo_float_bits %u\n", __float_as_uint(out->f));
  printf("RESULT echo_double_x4 %lld\n", (long long)(out->d * 4));
  printf("RESULT echo_refs %d %d %lld\n", out->deref, out->pair_a, (long long)(out->pair_b * 4));

  // A 2400-byte struct argument, changed right after its launch.
  static Big big;
  for (int i = 0; i < 600; ++i) big.v[i] = i;
  long long* sum;
  cudaMallocManaged(&sum, sizeof *sum);
  sum_big<<<1, 32>>>(big, 600, sum);
  for (int i = 0; i < 600; ++i) big.v[i] = 0;
  cudaDeviceSynchronize();
  printf("RESULT big_sum %lld\n", *sum);

  // A template kernel; cudaLaunchKernel with pointers to the arguments.
  int* ints;
  cudaMallocManaged(&ints, 32 * sizeof(int));
  scaled<int, 3><<<1, 32>>>(5, ints);
  cudaDeviceSynchronize();
  printf("RESULT template_ints %d %d\n", ints[0], ints[31]);
  float* floats;
  cudaMallocManaged(&floats, 32 * sizeof(float));
  float v = 1.5f;
  void* args[] = {&v, &floats};
  const cudaError_t e = cudaLaunchKernel(scaled<float, 2>, dim3(1), dim3(32), args);
  cudaDeviceSynchronize();
  printf("RESULT launch_kernel %d %d %d\n", (int)e, (int)(floats[0] * 2), (int)(floats[31] * 2));
  return 0;
}
