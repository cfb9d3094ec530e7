/*
 * Control-core computation that writes no memory for a long time, and spin
 * loops that never end: what the progress watchdog must let run and what it
 * must stop (docs/firmware-abi.md, "The progress watchdog").
 *
 *   host_compute.elf -- lcg N          N steps of an LCG in a register on core 0
 *   host_compute.elf -- matmul N       the entries of A*B (N x N), each times its
 *                                      row-major index + 1, summed in registers;
 *                                      element e of A is e % 7 - 3, of B e % 5 - 2
 *   host_compute.elf -- join N         core 1 runs the N LCG steps while core 0
 *                                      waits for it in tessera_core_join()
 *   host_compute.elf -- spin           core 0 waits for a flag nobody sets: never
 *                                      ends (host_compute_O0.elf: built at -O0)
 *   host_compute.elf -- spin_pair      cores 0 and 1 each wait for a flag only
 *                                      the other would set: never ends
 *   host_compute.elf -- spin_count     core 0 waits for a flag nobody sets,
 *                                      counting its attempts: never ends
 *
 * Results are RESULT lines; the LCG is Numerical Recipes' (a = 1664525,
 * c = 1013904223, modulo 2^32) from x = 1.
 */
#include <stdlib.h>
#include <string.h>
#include <tessera.h>

static unsigned lcg(unsigned steps) {
  unsigned x = 1u;
  for (unsigned i = 0; i < steps; ++i) x = x * 1664525u + 1013904223u;
  return x;
}

#define MAX_N 128
static int a[MAX_N * MAX_N], b[MAX_N * MAX_N];

/* The sum over i, j of (A*B)[i][j] * (i*n + j + 1), accumulated in registers
 * only. */
static long long matmul_sum(int n) {
  long long sum = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int acc = 0;
      for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
      sum += (long long)acc * (i * n + j + 1);
    }
  return sum;
}

static struct {
  unsigned steps;
  unsigned result;
} __attribute__((aligned(64))) job;

static void lcg_job(void* arg) {
  (void)arg;
  job.result = lcg(job.steps);
}

static volatile unsigned flag0 __attribute__((aligned(64)));
static volatile unsigned flag1 __attribute__((aligned(64)));

static void wait_flag1(void* arg) {
  (void)arg;
  while (!flag1)
    ;
  flag0 = 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
  if (strcmp(mode, "lcg") == 0) {
    printf("RESULT lcg %u %u\n", n, lcg(n));
  } else if (strcmp(mode, "matmul") == 0 && n >= 1 && n <= MAX_N) {
    for (unsigned i = 0; i < n * n; ++i) {
      a[i] = (int)(i % 7u) - 3;
      b[i] = (int)(i % 5u) - 2;
    }
    printf("RESULT matmul %u %lld\n", n, matmul_sum((int)n));
  } else if (strcmp(mode, "join") == 0 && tessera_num_cores() > 1) {
    job.steps = n;
    tessera_core_start(1, lcg_job, NULL);
    tessera_core_join(1);
    printf("RESULT join %u %u\n", n, job.result);
  } else if (strcmp(mode, "spin") == 0) {
    while (!flag0)
      ;
    printf("spin: ended\n");
  } else if (strcmp(mode, "spin_pair") == 0 && tessera_num_cores() > 1) {
    tessera_core_start(1, wait_flag1, NULL);
    while (!flag0)
      ;
    flag1 = 1;
    printf("spin_pair: ended\n");
  } else if (strcmp(mode, "spin_count") == 0) {
    unsigned tries = 0;
    while (!flag0) ++tries;
    printf("spin_count: ended after %u\n", tries);
  } else {
    printf("usage: host_compute.elf -- lcg N | matmul N (1..%d) | join N | spin | spin_pair | spin_count\n", MAX_N);
    return 2;
  }
  return 0;
}
