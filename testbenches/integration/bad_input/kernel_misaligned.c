/* Thread 5 loads a word from an address that is 2 bytes off alignment. */
#include <tessera.h>

struct args {
  unsigned* data;
  unsigned* out;
};

static unsigned data[64];
static unsigned out[64];

TESSERA_KERNEL void kernel_misaligned(void* argp) {
  const struct args* a = argp;
  unsigned t = threadIdx.x;
  const char* base = (const char*)a->data;
  /* Only thread 5 misaligns: the others read an aligned word. */
  const volatile unsigned* p = (const volatile unsigned*)(base + 4 * t + (t == 5 ? 2 : 0));
  a->out[t] = *p;
}

int main(void) {
  struct args a = {data, out};
  tessera_launch(kernel_misaligned, 1, 32, 0, &a);
  tessera_wait();
  printf("kernel_misaligned: kernel finished (should have faulted)\n");
  return 0;
}
