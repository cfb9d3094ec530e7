/* sgemm: C = A * B for 64 x 64 single-precision matrices, tiled: each
 * 16 x 16 block computes a 16 x 16 tile of C, staging one 16 x 16 tile of A
 * and one of B in __shared__ memory per step along K, with __syncthreads()
 * after loading and after using each pair of tiles. The host computes C
 * with a plain triple loop; a result passes if it is within a relative
 * error of 1e-5 of sum_k |a_ik * b_kj| (the error bound of a float dot
 * product of length 64 is about 64 * 2^-24 of that). */
#include <math.h>
#include <tessera.h>

#define M 64
#define N 64
#define K 64
#define TILE 16

struct sgemm_args {
  const float* a; /* M x K, row-major */
  const float* b; /* K x N */
  float* c;       /* M x N */
};

static float a[M][K], b[K][N], c[M][N];

TESSERA_KERNEL void sgemm(void* argp) {
  const struct sgemm_args* args = argp;
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE];

  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned row = blockIdx.y * TILE + ty;
  unsigned col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (unsigned k0 = 0; k0 < K; k0 += TILE) {
    a_tile[ty][tx] = args->a[row * K + k0 + tx];
    b_tile[ty][tx] = args->b[(k0 + ty) * N + col];
    __syncthreads();
    for (unsigned k = 0; k < TILE; k++) sum += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  args->c[row * N + col] = sum;
}

int main(void) {
  unsigned state = 99u;
  for (unsigned i = 0; i < M; i++)
    for (unsigned k = 0; k < K; k++) {
      state = state * 1664525u + 1013904223u;
      a[i][k] = (float)(state >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
  for (unsigned k = 0; k < K; k++)
    for (unsigned j = 0; j < N; j++) {
      state = state * 1664525u + 1013904223u;
      b[k][j] = (float)(state >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
  for (unsigned i = 0; i < M; i++)
    for (unsigned j = 0; j < N; j++) c[i][j] = NAN;

  struct sgemm_args args = {&a[0][0], &b[0][0], &c[0][0]};
  tessera_roi_begin();
  tessera_launch(sgemm, DIM3(N / TILE, M / TILE, 1), DIM3(TILE, TILE, 1), 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  float worst = 0.0f;
  for (unsigned i = 0; i < M; i++)
    for (unsigned j = 0; j < N; j++) {
      float want = 0.0f, magnitude = 0.0f;
      for (unsigned k = 0; k < K; k++) {
        want += a[i][k] * b[k][j];
        magnitude += fabsf(a[i][k] * b[k][j]);
      }
      float err = fabsf(c[i][j] - want) / magnitude;
      if (err > worst) worst = err;
      /* !(err <= bound) also catches a NaN left in C. */
      if (!(err <= 1e-5f)) {
        if (errors < 8) printf("FAIL sgemm: c[%u][%u] = %f, want %f\n", i, j, (double)c[i][j], (double)want);
        errors++;
      }
    }
  if (errors) {
    printf("FAIL sgemm: %u of %u wrong\n", errors, M * N);
    return 1;
  }
  printf("PASS sgemm (%ux%ux%u, %ux%u tiles, worst relative error %.2e)\n", M, N, K, TILE, TILE, (double)worst);
  return 0;
}
