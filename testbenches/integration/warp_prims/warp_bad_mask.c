/* Every lane calls __shfl_sync with mask 0x0000ffff: lanes 16..31 are not
 * in their own mask, which CUDA leaves undefined; Tessera stops with an
 * error naming the first such lane and the mask. */
#include <tessera.h>

static int out[32];

TESSERA_KERNEL void bad(void* argp) {
  (void)argp;
  const int lane = (int)tessera_lane_id();
  out[lane] = __shfl_sync(0x0000ffffu, lane, 0);
}

int main(void) {
  tessera_launch(bad, 1, 32, 0, 0);
  tessera_wait();
  printf("FAIL warp_bad_mask: the kernel ran to the end\n");
  return 1;
}
