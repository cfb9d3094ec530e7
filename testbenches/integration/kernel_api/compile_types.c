/* Compile test (built with -Werror): every atomic with every integer type a
 * CUDA program uses (int, unsigned, int32_t, uint32_t, long, unsigned long,
 * int64_t, uint64_t, long long, unsigned long long) and float, __ldg of
 * every type, on plain and volatile pointers, and the launch forms. Never
 * run (the 64-bit atomics need the SM's atom.*64 instructions). */
#include <tessera.h>

#define ATOMICS_32(T)                 \
  do {                                \
    static T v;                       \
    volatile T* vp = &v;              \
    T old = atomicAdd(&v, (T)1);      \
    old += atomicSub(vp, (T)1);       \
    old += atomicExch(&v, (T)2);      \
    old += atomicMin(&v, (T)3);       \
    old += atomicMax(vp, (T)4);       \
    old += atomicAnd(&v, (T)5);       \
    old += atomicOr(&v, (T)6);        \
    old += atomicXor(&v, (T)7);       \
    old += atomicCAS(vp, (T)8, (T)9); \
    old += atomicInc(&v, (T)10);      \
    old += atomicDec(&v, (T)11);      \
    sink += (unsigned)old;            \
  } while (0)

#define ATOMICS_64(T)                       \
  do {                                      \
    static T v __attribute__((aligned(8))); \
    volatile T* vp = &v;                    \
    T old = atomicAdd(&v, (T)1);            \
    old += atomicSub(vp, (T)1);             \
    old += atomicExch(&v, (T)2);            \
    old += atomicMin(&v, (T)3);             \
    old += atomicMax(vp, (T)4);             \
    old += atomicAnd(&v, (T)5);             \
    old += atomicOr(&v, (T)6);              \
    old += atomicXor(&v, (T)7);             \
    old += atomicCAS(vp, (T)8, (T)9);       \
    sink += (unsigned)old;                  \
  } while (0)

#define LDG(T)                   \
  do {                           \
    static const T v;            \
    sink += (unsigned)__ldg(&v); \
  } while (0)

static volatile unsigned sink;

__global__ void every_type(void* argp) {
  (void)argp;
  ATOMICS_32(int);
  ATOMICS_32(unsigned);
  ATOMICS_32(int32_t);
  ATOMICS_32(uint32_t);
  ATOMICS_32(long);
  ATOMICS_32(unsigned long);
  ATOMICS_64(int64_t);
  ATOMICS_64(uint64_t);
  ATOMICS_64(long long);
  ATOMICS_64(unsigned long long);
  static float f;
  sink += (unsigned)atomicAdd(&f, 1.0f);
  sink += (unsigned)atomicExch(&f, 2.0f);
  LDG(char);
  LDG(signed char);
  LDG(unsigned char);
  LDG(short);
  LDG(unsigned short);
  LDG(int);
  LDG(unsigned);
  LDG(long);
  LDG(unsigned long);
  LDG(int8_t);
  LDG(uint8_t);
  LDG(int16_t);
  LDG(uint16_t);
  LDG(int32_t);
  LDG(uint32_t);
  LDG(int64_t);
  LDG(uint64_t);
  LDG(long long);
  LDG(unsigned long long);
  LDG(float);
  LDG(double);
}

struct args {
  int x;
};

int main(void) {
  struct args a = {1};
  const struct args* cp = &a;
  volatile struct args* vp = &a;
  dim3 b = {16, 16};
  tessera_launch(every_type, 1, 32);
  tessera_launch(every_type, 1, 32, 0);
  tessera_launch(every_type, 1, 32, 0, NULL);
  tessera_launch(every_type, 1, 32, 0, 0);
  tessera_launch(every_type, DIM3(1, 1, 1), b, 0, &a);
  tessera_launch(every_type, 1, b, 16, cp);
  tessera_launch(every_type, 1, b, 16, vp);
  tessera_launch_ref(every_type, 1, 32, 0, &a);
  tessera_launch_bytes(every_type, DIM3(1, 1, 1), b, 0, (const void*)&a, sizeof a);
  tessera_wait();
  return (int)sink;
}
