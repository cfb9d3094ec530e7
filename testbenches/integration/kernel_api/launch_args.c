/* Kernel parameters are captured at the launch (as CUDA copies them): a loop
 * launches LAUNCHES kernels back to back, each with its own argument struct
 * in one stack variable that the next iteration overwrites, and waits once.
 * LAUNCHES is more than the 16 parameter slots, so later launches reuse
 * slots of finished ones. Also: the 3- and 4-argument forms, NULL and 0 as
 * args, dim3 {16, 16} and {256} (missing dimensions 1), a 4096-byte argument
 * struct and tessera_launch_bytes(). Prints what it checked; exits non-zero
 * on a wrong result. */
#include <tessera.h>

#define LAUNCHES 40
#define BLOCK 64

struct args {
  unsigned* out;
  unsigned index;
  unsigned value;
};

static unsigned out[LAUNCHES * BLOCK];

__global__ void write_value(void* argp) {
  const struct args* a = argp;
  const unsigned t = threadIdx.x;
  /* Run 20000 cycles, far longer than a launch takes, so launches queue. */
  const unsigned start = clock();
  while (clock() - start < 20000u) {
  }
  a->out[a->index * BLOCK + t] = a->value + t;
}

static unsigned no_args_runs;
__global__ void count_no_args(void* argp) {
  if (argp == NULL && threadIdx.x == 0) atomicAdd(&no_args_runs, 1u);
}

static unsigned shape[2][6];
__global__ void record_shape(void* argp) {
  const unsigned* which = argp;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0) {
    unsigned* s = shape[*which];
    s[0] = blockDim.x;
    s[1] = blockDim.y;
    s[2] = blockDim.z;
    s[3] = gridDim.x;
    s[4] = gridDim.y;
    s[5] = gridDim.z;
  }
}

struct big {
  unsigned words[TESSERA_PARAM_BYTES / 4];
};
/* Own cache lines: the host clears `big` while sum_big runs, and a control
 * core must not write a line a kernel writes (docs/firmware-abi.md). */
static unsigned big_sum __attribute__((aligned(256)));
__global__ void sum_big(void* argp) {
  const struct big* b = argp;
  unsigned s = 0;
  for (unsigned i = threadIdx.x; i < TESSERA_PARAM_BYTES / 4; i += blockDim.x) s += b->words[i];
  atomicAdd(&big_sum, s);
}

int main(void) {
  int bad = 0;
  const unsigned done_before = TESSERA_MMIO(TESSERA_DISP_DONE_COUNT);
  for (unsigned i = 0; i < LAUNCHES; i++) {
    struct args a = {out, i, 1000u * (i + 1)};
    tessera_launch(write_value, 1, BLOCK, 0, &a);
  }
  /* Launches still queued or running when the loop ends: launch 39 waited
   * for launch 23 to free its parameter slot, and launch 24 runs for much
   * longer than a launch takes, so exactly the 16 slots' launches. */
  const unsigned pending = LAUNCHES - (TESSERA_MMIO(TESSERA_DISP_DONE_COUNT) - done_before);
  printf("RESULT launch_loop_pending %u\n", pending);
  if (pending != TESSERA_PARAM_SLOTS) bad = 1;
  tessera_wait();
  unsigned wrong = 0;
  for (unsigned i = 0; i < LAUNCHES; i++)
    for (unsigned t = 0; t < BLOCK; t++)
      if (out[i * BLOCK + t] != 1000u * (i + 1) + t) wrong++;
  printf("RESULT launch_loop_wrong %u\n", wrong);
  if (wrong) bad = 1;

  tessera_launch(count_no_args, 2, 32);
  tessera_launch(count_no_args, 2, 32, 0);
  tessera_launch(count_no_args, 2, 32, 0, NULL);
  tessera_launch(count_no_args, 2, 32, 0, 0);
  tessera_wait();
  printf("RESULT no_args_runs %u\n", no_args_runs);
  if (no_args_runs != 8) bad = 1;

  unsigned which = 0;
  dim3 b2 = {16, 16};
  dim3 g1 = {3};
  tessera_launch(record_shape, g1, b2, 0, &which);
  which = 1; /* captured: the launch above still sees 0 */
  dim3 b1 = {256};
  dim3 g2 = {2, 5};
  tessera_launch(record_shape, g2, b1, 0, &which);
  tessera_wait();
  printf("RESULT shape0 %u %u %u %u %u %u\n", shape[0][0], shape[0][1], shape[0][2], shape[0][3], shape[0][4],
         shape[0][5]);
  printf("RESULT shape1 %u %u %u %u %u %u\n", shape[1][0], shape[1][1], shape[1][2], shape[1][3], shape[1][4],
         shape[1][5]);
  const unsigned want0[6] = {16, 16, 1, 3, 1, 1}, want1[6] = {256, 1, 1, 2, 5, 1};
  for (int k = 0; k < 6; k++)
    if (shape[0][k] != want0[k] || shape[1][k] != want1[k]) bad = 1;

  static struct big big __attribute__((aligned(256)));
  unsigned want_sum = 0;
  for (unsigned i = 0; i < TESSERA_PARAM_BYTES / 4; i++) {
    big.words[i] = i * 7u + 1u;
    want_sum += big.words[i];
  }
  tessera_launch(sum_big, 1, 128, 0, &big);
  for (unsigned i = 0; i < TESSERA_PARAM_BYTES / 4; i++) big.words[i] = 0; /* after the launch: not seen */
  tessera_wait();
  printf("RESULT big_args_sum %u %u\n", big_sum, want_sum);
  if (big_sum != want_sum) bad = 1;

  /* A void pointer needs the size spelled out. */
  struct args a = {out, 0, 77};
  const void* vp = &a;
  tessera_launch_bytes(write_value, DIM3(1, 1, 1), DIM3(BLOCK, 1, 1), 0, vp, sizeof a);
  a.value = 0;
  tessera_wait();
  printf("RESULT launch_bytes %u\n", out[5]);
  if (out[5] != 77 + 5) bad = 1;

  printf("launch_args: %s\n", bad ? "FAILED" : "ok");
  return bad;
}
