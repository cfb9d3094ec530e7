/* Starts the other control cores before its switch point: each fills its
 * own slice of an array with a hash of the index, and parks; core 0 polls
 * HART_RUNNING (no wfi, a switch point) until they are done, then begins
 * the region of interest, where a kernel sums the array. */
#include <tessera.h>

#define N 4096
static unsigned data[N];
static unsigned sums[32];

struct args {
  unsigned* data;
  unsigned* sums;
};

static void fill(void* arg) {
  const unsigned h = tessera_hart_id(), n = tessera_num_cores();
  unsigned* d = arg;
  for (unsigned i = h; i < N; i += n) d[i] = (i * 2654435761u) >> 7;
}

TESSERA_KERNEL void sum_kernel(void* argp) {
  const struct args* a = argp;
  unsigned s = 0;
  for (unsigned i = threadIdx.x; i < N; i += 32) s += a->data[i];
  a->sums[threadIdx.x] = s;
}

int main(void) {
  const unsigned n = tessera_num_cores();
  for (unsigned h = 1; h < n; h++) tessera_core_start(h, fill, data);
  fill(data);
  while (TESSERA_MMIO(TESSERA_HART_RUNNING) & ~1u) {
  }
  __asm__ volatile("fence rw, rw" ::: "memory");
  struct args a = {data, sums};
  tessera_roi_begin();
  tessera_launch(sum_kernel, 1, 32, 0, &a);
  tessera_wait();
  tessera_roi_end();
  unsigned total = 0, expect = 0;
  for (unsigned i = 0; i < 32; i++) total += sums[i];
  for (unsigned i = 0; i < N; i++) expect += (i * 2654435761u) >> 7;
  if (total != expect) {
    printf("FAIL ff_cores: %u, expected %u\n", total, expect);
    return 1;
  }
  printf("PASS ff_cores (%u cores)\n", n);
  return 0;
}
