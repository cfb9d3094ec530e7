/* Self-checking vector kernels with the wide loads and stores: a float4
 * vector add (c = a + b) over 8 blocks of 128 threads, an int4 / uint2 /
 * int2 / float2 copy, and a shared-memory round trip of float4 and uint2
 * through __shared__ arrays. Prints what it checked; exit status 1 on a
 * wrong element. */
#include <tessera.h>

#define N4 1024 /* float4 elements: 4096 floats */

static float4 va[N4], vb[N4], vc[N4];
static int4 i4_src[256], i4_dst[256];
static uint2 u2_src[256], u2_dst[256];
static int2 i2_src[256], i2_dst[256];
static float2 f2_src[256], f2_dst[256];
static float4 sh_out[128];
static uint2 sh_out2[128];

TESSERA_KERNEL void vec_add(void* argp) {
  (void)argp;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 x = tessera_ld_float4(&va[i]);
  const float4 y = tessera_ld_float4(&vb[i]);
  tessera_st_float4(&vc[i], make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w));
}

TESSERA_KERNEL void copies(void* argp) {
  (void)argp;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tessera_st_int4(&i4_dst[i], tessera_ld_int4(&i4_src[i]));
  tessera_st_uint2(&u2_dst[i], tessera_ld_uint2(&u2_src[i]));
  tessera_st_int2(&i2_dst[i], tessera_ld_int2(&i2_src[i]));
  tessera_st_float2(&f2_dst[i], tessera_ld_float2(&f2_src[i]));
}

/* Each thread writes its element to shared memory, the block synchronises,
 * and each thread reads its neighbour's (reversed order). */
TESSERA_KERNEL void shared_round_trip(void* argp) {
  (void)argp;
  __shared__ float4 s4[128];
  __shared__ uint2 s2[128];
  const unsigned t = threadIdx.x;
  tessera_st_float4(&s4[t], make_float4(t, -(float)t, 0.5f * t, 1.0f));
  tessera_st_uint2(&s2[t], make_uint2(t, 0xFFFF0000u | t));
  __syncthreads();
  sh_out[t] = tessera_ld_float4(&s4[127 - t]);
  sh_out2[t] = tessera_ld_uint2(&s2[127 - t]);
}

int main(void) {
  for (unsigned k = 0; k < N4; ++k) {
    va[k] = make_float4(k, 2 * k, 0.5f, -1.0f * k);
    vb[k] = make_float4(1, k, 0.25f, 3.0f * k);
  }
  for (unsigned k = 0; k < 256; ++k) {
    i4_src[k] = make_int4(-(int)k, k, 7, -7);
    u2_src[k] = make_uint2(0x80000000u + k, k * 3);
    i2_src[k] = make_int2(-(int)k - 1, k + 1);
    f2_src[k] = make_float2(k * 0.5f, -(float)k);
  }
  tessera_launch(vec_add, N4 / 128, 128, 0, 0);
  tessera_wait();
  tessera_launch(copies, 2, 128, 0, 0);
  tessera_wait();
  tessera_launch(shared_round_trip, 1, 128, 0, 0);
  tessera_wait();

  unsigned add_errors = 0, copy_errors = 0, shared_errors = 0;
  for (unsigned k = 0; k < N4; ++k) {
    const float4 c = vc[k];
    if (c.x != k + 1.0f || c.y != 3.0f * k || c.z != 0.75f || c.w != 2.0f * k) ++add_errors;
  }
  for (unsigned k = 0; k < 256; ++k) {
    if (i4_dst[k].x != -(int)k || i4_dst[k].y != (int)k || i4_dst[k].z != 7 || i4_dst[k].w != -7) ++copy_errors;
    if (u2_dst[k].x != 0x80000000u + k || u2_dst[k].y != k * 3) ++copy_errors;
    if (i2_dst[k].x != -(int)k - 1 || i2_dst[k].y != (int)k + 1) ++copy_errors;
    if (f2_dst[k].x != k * 0.5f || f2_dst[k].y != -(float)k) ++copy_errors;
  }
  for (unsigned t = 0; t < 128; ++t) {
    const unsigned s = 127 - t;
    if (sh_out[t].x != s || sh_out[t].y != -(float)s || sh_out[t].z != 0.5f * s || sh_out[t].w != 1.0f) ++shared_errors;
    if (sh_out2[t].x != s || sh_out2[t].y != (0xFFFF0000u | s)) ++shared_errors;
  }
  printf("RESULT vec_add_checked %u\n", N4 * 4);
  printf("RESULT vec_add_errors %u\n", add_errors);
  printf("RESULT copy_errors %u\n", copy_errors);
  printf("RESULT shared_errors %u\n", shared_errors);
  return add_errors + copy_errors + shared_errors ? 1 : 0;
}
