/* kernel_printf: a CUDA-style program. A loop launches one kernel per row
 * band of a 64x64 image, each with its own argument struct on the stack
 * (tessera_launch copies it), on 16x16 blocks written `dim3 block = {16, 16}`.
 * Each block sums its tile's pixels into a uint32_t with atomicAdd, and
 * thread (0,0) of each block prints the tile's sum from the kernel with
 * printf; tessera_wait() prints those lines. The host checks every tile sum
 * and the length printf returned in each kernel. */
#include <tessera.h>

#define W 64
#define H 64
#define TILE 16
#define BANDS (H / TILE)
#define TILES_X (W / TILE)

struct band_args {
  const uint8_t* image;
  uint32_t* sums; /* one per tile */
  int* printed;   /* printf's return value per tile */
  unsigned band;  /* row of tiles */
};

static uint8_t image[H * W];
static uint32_t sums[BANDS * TILES_X];
static int printed[BANDS * TILES_X];

__device__ unsigned pixel(const uint8_t* img, unsigned x, unsigned y) { return img[y * W + x]; }

__global__ void tile_sum(void* argp) {
  const struct band_args* a = argp;
  __shared__ uint32_t tile_total;
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  if (tx == 0 && ty == 0) tile_total = 0;
  __syncthreads();
  const unsigned x = blockIdx.x * TILE + tx, y = a->band * TILE + ty;
  atomicAdd(&tile_total, (uint32_t)pixel(a->image, x, y));
  __syncthreads();
  if (tx == 0 && ty == 0) {
    const unsigned t = a->band * TILES_X + blockIdx.x;
    a->sums[t] = tile_total;
    a->printed[t] = printf("tile (%u,%u) sum %lu", blockIdx.x, a->band, (unsigned long)tile_total);
  }
}

int main(void) {
  for (unsigned i = 0; i < H * W; i++) image[i] = (uint8_t)((i * 37u + (i >> 6) * 11u) & 0xFFu);

  dim3 block = {TILE, TILE};
  for (unsigned band = 0; band < BANDS; band++) {
    struct band_args a = {image, sums, printed, band};
    tessera_launch(tile_sum, TILES_X, block, 0, &a);
  }
  tessera_wait();

  unsigned errors = 0;
  for (unsigned band = 0; band < BANDS; band++)
    for (unsigned tx = 0; tx < TILES_X; tx++) {
      uint32_t want = 0;
      for (unsigned y = band * TILE; y < (band + 1) * TILE; y++)
        for (unsigned x = tx * TILE; x < (tx + 1) * TILE; x++) want += image[y * W + x];
      char line[64];
      const int len = snprintf(line, sizeof line, "tile (%u,%u) sum %lu", tx, band, (unsigned long)want);
      const unsigned t = band * TILES_X + tx;
      if (sums[t] != want || printed[t] != len) {
        if (errors < 4)
          printf("tile (%u,%u): sum %lu (want %lu), printf returned %d (want %d)\n", tx, band, (unsigned long)sums[t],
                 (unsigned long)want, printed[t], len);
        errors++;
      }
    }
  if (errors) {
    printf("FAIL kernel_printf: %u of %u tiles wrong\n", errors, BANDS * TILES_X);
    return 1;
  }
  printf("PASS kernel_printf: %u tile sums, each printed by its block\n", BANDS * TILES_X);
  return 0;
}
