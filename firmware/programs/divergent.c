/* divergent: branch divergence and reconvergence inside warps.
 *  - if/else on the parity of threadIdx.x,
 *  - a loop whose trip count is the thread id modulo 37,
 *  - a data-dependent while loop (Collatz steps of i + 1),
 *  - a nested branch on the lane's low bits inside the odd path.
 * Each thread writes all three results; the control core recomputes them. */
#include <tessera.h>

#define N 1024
#define BLOCK 256

struct divergent_args {
  int* parity;
  unsigned* loop;
  unsigned* collatz;
  unsigned n;
};

static int parity[N];
static unsigned loop[N], collatz[N];

static inline int parity_value(unsigned t, unsigned i) {
  if (t % 2 == 0) return (int)i * 2;
  if ((t & 6) == 2) return -(int)i;
  return (int)i * 3 + 1;
}

static inline unsigned loop_value(unsigned i) {
  unsigned sum = 0;
  for (unsigned k = 0; k <= i % 37; k++) sum += k * k + 1;
  return sum;
}

static inline unsigned collatz_steps(unsigned v) {
  unsigned steps = 0;
  while (v != 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}

TESSERA_KERNEL void divergent(void* argp) {
  const struct divergent_args* args = argp;
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  if (i >= args->n) return;

  int p;
  if (t % 2 == 0) {
    p = (int)i * 2;
  } else {
    if ((t & 6) == 2)
      p = -(int)i;
    else
      p = (int)i * 3 + 1;
  }
  args->parity[i] = p;

  unsigned sum = 0;
  for (unsigned k = 0; k <= i % 37; k++) sum += k * k + 1;
  args->loop[i] = sum;

  args->collatz[i] = collatz_steps(i + 1);
}

int main(void) {
  for (unsigned i = 0; i < N; i++) {
    parity[i] = 0x7fffffff;
    loop[i] = collatz[i] = 0xdeadbeef;
  }

  struct divergent_args args = {parity, loop, collatz, N};
  tessera_roi_begin();
  tessera_launch(divergent, (N + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned i = 0; i < N; i++) {
    unsigned t = i % BLOCK;
    int wp = parity_value(t, i);
    unsigned wl = loop_value(i), wc = collatz_steps(i + 1);
    if (parity[i] != wp || loop[i] != wl || collatz[i] != wc) {
      if (errors < 8)
        printf("FAIL divergent: thread %u: parity %d (want %d) loop %u (want %u) collatz %u (want %u)\n", i, parity[i],
               wp, loop[i], wl, collatz[i], wc);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL divergent: %u of %u threads wrong\n", errors, N);
    return 1;
  }
  printf("PASS divergent (%u threads)\n", N);
  return 0;
}
