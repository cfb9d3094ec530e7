/* The fast-forward benchmark (testbenches/bench/ff-speed): a long
 * control-core setup (about 30 M instructions: PASSES passes of a
 * pseudo-random fill over a 1 MiB array, then a checksum), then a small
 * kernel in the region of interest that sums part of the array. */
#include <tessera.h>

#define N (256u * 1024u)
#define PASSES 16u
#define THREADS 256u
#define SUMMED 8192u

static unsigned data[N];
static unsigned partial[THREADS];

struct args {
  const unsigned* data;
  unsigned* partial;
};

TESSERA_KERNEL void sum_kernel(void* argp) {
  const struct args* a = argp;
  unsigned s = 0;
  for (unsigned i = threadIdx.x; i < SUMMED; i += THREADS) s += a->data[i];
  a->partial[threadIdx.x] = s;
}

int main(void) {
  unsigned state = 12345u;
  for (unsigned p = 0; p < PASSES; p++)
    for (unsigned i = 0; i < N; i++) {
      state = state * 1664525u + 1013904223u;
      data[i] ^= state >> 3;
    }
  unsigned checksum = 0, expect = 0;
  for (unsigned i = 0; i < N; i++) checksum = checksum * 31u + data[i];
  for (unsigned i = 0; i < SUMMED; i++) expect += data[i];

  struct args a = {data, partial};
  tessera_roi_begin();
  tessera_launch(sum_kernel, 1, THREADS, 0, &a);
  tessera_wait();
  tessera_roi_end();
  unsigned total = 0;
  for (unsigned i = 0; i < THREADS; i++) total += partial[i];
  if (total != expect) {
    printf("FAIL ff_bench: kernel sum %u, expected %u\n", total, expect);
    return 1;
  }
  printf("PASS ff_bench (checksum %08x)\n", checksum);
  return 0;
}
