/* CUDA names at run time on SM threads: the integer intrinsics, fast math,
 * min/max (each operand evaluated once), __device__ / __forceinline__ /
 * __noinline__ functions, 32-bit atomics on int32_t / uint32_t / long and
 * __ldg of every type including 64-bit ones. Prints RESULT lines; exits
 * non-zero on a wrong result. */
#include <math.h>
#include <tessera.h>

struct results {
  int popc, popcll, clz, clz0, clzll, ffs, ffs0, ffsll;
  unsigned brev;
  unsigned long long brevll;
  int min_i, max_i, evals;
  unsigned min_mixed;
  float min_f, expf_err_ppm, fdiv, rsq;
  uint32_t u32;
  int32_t i32;
  long l;
  unsigned long ul;
  uint32_t u32_cas;
  uint64_t ldg_u64;
  int64_t ldg_i64;
  double ldg_d;
  uint32_t ldg_u32;
  int32_t ldg_i32;
};

static struct results r;
static const uint64_t u64_src = 0x0123456789ABCDEFull;
static const int64_t i64_src = -5000000000ll;
static const double d_src = 3.25;
static const uint32_t u32_src = 0xDEADBEEFu;
static const int32_t i32_src = -42;

__device__ __forceinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int bump(int* n) { return ++*n; }
__host__ __device__ int thrice(int x) { return 3 * x; }

__global__ void names(void* argp) {
  struct results* __restrict__ out = *(struct results* const*)argp;
  if (threadIdx.x == 0) {
    out->popc = __popc(0xF0F0F0F1u);
    out->popcll = __popcll(0xFFFFFFFF00000001ull);
    out->clz = __clz(0x00010000);
    out->clz0 = __clz(0);
    out->clzll = __clzll(1ll);
    out->ffs = __ffs(0x00000100);
    out->ffs0 = __ffs(0);
    out->ffsll = __ffsll(1ll << 40);
    out->brev = __brev(0x00000001u);
    out->brevll = __brevll(0x1ull);
    int n = 0;
    out->min_i = min(bump(&n), 5); /* bump runs once */
    out->max_i = max(twice(3), thrice(1));
    out->evals = n;
    out->min_mixed = min(-1, 3u); /* compared as unsigned, as CUDA's min(int, unsigned) */
    out->min_f = min(2.5f, 1.5f);
    const float e = __expf(1.0f);
    out->expf_err_ppm = fabsf(e - 2.7182817f) / 2.7182817f * 1e6f;
    out->fdiv = __fdividef(1.0f, 4.0f);
    out->rsq = rsqrtf(16.0f);
    out->ldg_u64 = __ldg(&u64_src);
    out->ldg_i64 = __ldg(&i64_src);
    out->ldg_d = __ldg(&d_src);
    out->ldg_u32 = __ldg(&u32_src);
    out->ldg_i32 = __ldg(&i32_src);
  }
  __syncthreads();
  atomicAdd(&out->u32, (uint32_t)1);
  atomicSub(&out->i32, (int32_t)1);
  atomicMax(&out->l, (long)threadIdx.x);
  atomicOr(&out->ul, 1ul << (threadIdx.x % 32u));
  atomicCAS(&out->u32_cas, (uint32_t)0, (uint32_t)(threadIdx.x + 1));
}

int main(void) {
  struct results* p = &r;
  tessera_launch(names, 1, 64, 0, &p);
  tessera_wait();
  int bad = 0;
#define CHECK(cond)                             \
  do {                                          \
    if (!(cond)) {                              \
      printf("cuda_names: FAILED %s\n", #cond); \
      bad = 1;                                  \
    }                                           \
  } while (0)
  printf("RESULT bits %d %d %d %d %d %d %d %d %u %u\n", r.popc, r.popcll, r.clz, r.clz0, r.clzll, r.ffs, r.ffs0,
         r.ffsll, r.brev, (unsigned)(r.brevll >> 32));
  CHECK(r.popc == 17 && r.popcll == 33 && r.clz == 15 && r.clz0 == 32 && r.clzll == 63);
  CHECK(r.ffs == 9 && r.ffs0 == 0 && r.ffsll == 41 && r.brev == 0x80000000u && r.brevll == 0x8000000000000000ull);
  printf("RESULT minmax %d %d %d %u\n", r.min_i, r.max_i, r.evals, r.min_mixed);
  CHECK(r.min_i == 1 && r.max_i == 6 && r.evals == 1 && r.min_mixed == 3u && r.min_f == 1.5f);
  CHECK(r.expf_err_ppm < 2.0f && r.fdiv == 0.25f && r.rsq == 0.25f);
  printf("RESULT atomics32 %u %d %ld %lu %u\n", (unsigned)r.u32, (int)r.i32, r.l, r.ul, (unsigned)r.u32_cas);
  CHECK(r.u32 == 64 && r.i32 == -64 && r.l == 63 && r.ul == 0xFFFFFFFFul && r.u32_cas >= 1 && r.u32_cas <= 64);
  CHECK(r.ldg_u64 == u64_src && r.ldg_i64 == i64_src && r.ldg_d == d_src && r.ldg_u32 == u32_src &&
        r.ldg_i32 == i32_src);
  printf("cuda_names: %s\n", bad ? "FAILED" : "ok");
  return bad;
}
