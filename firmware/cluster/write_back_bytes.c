/*
 * Write-backs write only the bytes the control cores wrote
 * (docs/coherence.md): a host buffer allocated right after a kernel's
 * output shares a cache line with the output's tail. The host fills its
 * buffer while the kernel runs, so that line sits dirty in core 0's L1D
 * holding the output's old bytes; the coherence point at tessera_wait()
 * writes it back. Every output and every host byte must survive.
 *
 * Legal in CUDA (host and device touch disjoint bytes); a write-back of
 * the whole line would put the stale tail back over the kernel's results.
 */
#include <stdint.h>
#include <stdlib.h>

#include <tessera.h>

#ifndef N
#define N 250u /* 1,000 bytes: the last line holds output and host bytes */
#endif
#define HOST_BYTES 48u

struct args {
  unsigned* out;
  unsigned n;
};

TESSERA_KERNEL void fill(void* p) {
  const struct args* a = (const struct args*)p;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a->n) a->out[i] = 3u * i + 1u;
}

int main(void) {
  unsigned* out = malloc(N * sizeof *out);
  unsigned char* host = malloc(HOST_BYTES);
  if (!out || !host) {
    printf("FAIL write_back_bytes: malloc\n");
    return 1;
  }
  for (unsigned i = 0; i < N; ++i) out[i] = 0xDEADBEEFu;
  const uintptr_t tail_line = (uintptr_t)&out[N - 1] / 64u, host_line = (uintptr_t)host / 64u;
  if (tail_line != host_line) { /* the layout this program exists to test */
    printf("FAIL write_back_bytes: out ends in line %#x, host starts in line %#x: no shared line\n",
           (unsigned)tail_line * 64u, (unsigned)host_line * 64u);
    return 1;
  }
  struct args a = {out, N};
  tessera_launch(fill, (N + 63u) / 64u, 64u, 0u, &a);
  for (unsigned i = 0; i < HOST_BYTES; ++i) host[i] = (unsigned char)(0xA0u + i); /* during the kernel */
  tessera_wait();

  unsigned bad_out = 0, bad_host = 0;
  for (unsigned i = 0; i < N; ++i) bad_out += out[i] != 3u * i + 1u;
  for (unsigned i = 0; i < HOST_BYTES; ++i) bad_host += host[i] != (unsigned char)(0xA0u + i);
  printf("RESULT write_back_bytes wrong outputs %u wrong host bytes %u (shared line %#x)\n", bad_out, bad_host,
         (unsigned)host_line * 64u);
  if (bad_out || bad_host) {
    printf("FAIL write_back_bytes\n");
    return 1;
  }
  printf("PASS write_back_bytes\n");
  return 0;
}
