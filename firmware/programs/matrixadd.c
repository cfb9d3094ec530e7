/* matrixadd: C = A + B for a 70 x 45 matrix with a 2D grid of 16 x 16
 * blocks: the last block column and row are partial, so the kernel's bounds
 * check matters. */
#include <tessera.h>

#define WIDTH 70
#define HEIGHT 45
#define BX 16
#define BY 16

struct matrixadd_args {
  const float* a;
  const float* b;
  float* c;
  unsigned width, height;
};

/* One guard row after C catches writes past the end. */
static float a[HEIGHT][WIDTH], b[HEIGHT][WIDTH], c[HEIGHT + 1][WIDTH];

TESSERA_KERNEL void matrixadd(void* argp) {
  const struct matrixadd_args* args = argp;
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < args->width && row < args->height) {
    unsigned i = row * args->width + col;
    args->c[i] = args->a[i] + args->b[i];
  }
}

int main(void) {
  for (unsigned r = 0; r < HEIGHT; r++)
    for (unsigned k = 0; k < WIDTH; k++) {
      a[r][k] = (float)(r * 100 + k);
      b[r][k] = (float)k * 0.5f - (float)r;
    }
  for (unsigned r = 0; r < HEIGHT + 1; r++)
    for (unsigned k = 0; k < WIDTH; k++) c[r][k] = -12345.0f;

  struct matrixadd_args args = {&a[0][0], &b[0][0], &c[0][0], WIDTH, HEIGHT};
  dim3 block = DIM3(BX, BY, 1);
  dim3 grid = DIM3((WIDTH + BX - 1) / BX, (HEIGHT + BY - 1) / BY, 1);
  tessera_roi_begin();
  tessera_launch(matrixadd, grid, block, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned r = 0; r < HEIGHT + 1; r++)
    for (unsigned k = 0; k < WIDTH; k++) {
      float want = r < HEIGHT ? a[r][k] + b[r][k] : -12345.0f;
      if (c[r][k] != want) {
        if (errors < 8) printf("FAIL matrixadd: c[%u][%u] = %f, want %f\n", r, k, (double)c[r][k], (double)want);
        errors++;
      }
    }
  if (errors) {
    printf("FAIL matrixadd: %u wrong\n", errors);
    return 1;
  }
  printf("PASS matrixadd (%ux%u, grid %ux%u of %ux%u blocks)\n", WIDTH, HEIGHT, grid.x, grid.y, block.x, block.y);
  return 0;
}
