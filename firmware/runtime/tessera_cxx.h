/*
 * tessera_cxx.h - the C++ forms of tessera.h's type-generic names
 * (included by tessera.h when compiled as C++; do not include it alone).
 *
 * In C these names are _Generic macros; in C++ they are overloads, so they
 * behave as CUDA's do: atomicAdd/Sub/Exch/Min/Max/And/Or/Xor/Inc/Dec/CAS,
 * __ldg, __shfl*_sync (width optional), __syncwarp (mask optional),
 * min/max, and tessera_launch / tessera_launch_ref for kernels that take
 * one void * (CUDA kernels with their own parameter lists are launched
 * with <<<...>>>: cuda_runtime.h).
 */
#ifndef TESSERA_CXX_H
#define TESSERA_CXX_H

#ifndef TESSERA_H
#error "include tessera.h (or cuda_runtime.h), not tessera_cxx.h"
#endif

#define TESSERA_CXX_INLINE inline __attribute__((always_inline))

/* ---- atomics: one overload per element type ------------------------------- */

/* int, unsigned, long, unsigned long, long long, unsigned long long (the
 * 64-bit forms use the 64-bit atomics or a CAS loop, as in C). */
#define TESSERA_CXX_ATOMIC_INT(op)                                                                          \
  TESSERA_CXX_INLINE int op(volatile int* p, int v) { return op##_i(p, v); }                                \
  TESSERA_CXX_INLINE unsigned op(volatile unsigned* p, unsigned v) { return op##_u(p, v); }                 \
  TESSERA_CXX_INLINE long op(volatile long* p, long v) { return op##_l(p, v); }                             \
  TESSERA_CXX_INLINE unsigned long op(volatile unsigned long* p, unsigned long v) { return op##_ul(p, v); } \
  TESSERA_CXX_INLINE long long op(volatile long long* p, long long v) { return op##_ll(p, v); }             \
  TESSERA_CXX_INLINE unsigned long long op(volatile unsigned long long* p, unsigned long long v) {          \
    return op##_ull(p, v);                                                                                  \
  }
TESSERA_CXX_ATOMIC_INT(atomicAdd)
TESSERA_CXX_ATOMIC_INT(atomicSub)
TESSERA_CXX_ATOMIC_INT(atomicExch)
TESSERA_CXX_ATOMIC_INT(atomicMin)
TESSERA_CXX_ATOMIC_INT(atomicMax)
TESSERA_CXX_ATOMIC_INT(atomicAnd)
TESSERA_CXX_ATOMIC_INT(atomicOr)
TESSERA_CXX_ATOMIC_INT(atomicXor)
#undef TESSERA_CXX_ATOMIC_INT

TESSERA_CXX_INLINE float atomicAdd(volatile float* p, float v) { return atomicAddf(p, v); }
TESSERA_CXX_INLINE float atomicExch(volatile float* p, float v) { return atomicExchf(p, v); }

/* double: a CAS loop on the doubleword (one lane of a warp succeeds per
 * round, so the loop always finishes), as CUDA documents for GPUs without
 * a double atomic add. */
TESSERA_CXX_INLINE double atomicAdd(volatile double* p, double v) {
  volatile unsigned long long* w = (volatile unsigned long long*)(uintptr_t)p;
  unsigned long long seen = *w, assumed;
  do {
    assumed = seen;
    union {
      unsigned long long u;
      double d;
    } a = {assumed};
    a.d += v;
    seen = atomicCAS_ull(w, assumed, a.u);
  } while (seen != assumed);
  union {
    unsigned long long u;
    double d;
  } r = {seen};
  return r.d;
}

TESSERA_CXX_INLINE unsigned atomicInc(volatile unsigned* p, unsigned limit) { return atomicInc_u(p, limit); }
TESSERA_CXX_INLINE int atomicInc(volatile int* p, int limit) { return atomicInc_i(p, limit); }
TESSERA_CXX_INLINE unsigned long atomicInc(volatile unsigned long* p, unsigned long limit) {
  return atomicInc_ul(p, limit);
}
TESSERA_CXX_INLINE long atomicInc(volatile long* p, long limit) { return atomicInc_l(p, limit); }
TESSERA_CXX_INLINE unsigned atomicDec(volatile unsigned* p, unsigned limit) { return atomicDec_u(p, limit); }
TESSERA_CXX_INLINE int atomicDec(volatile int* p, int limit) { return atomicDec_i(p, limit); }
TESSERA_CXX_INLINE unsigned long atomicDec(volatile unsigned long* p, unsigned long limit) {
  return atomicDec_ul(p, limit);
}
TESSERA_CXX_INLINE long atomicDec(volatile long* p, long limit) { return atomicDec_l(p, limit); }

TESSERA_CXX_INLINE int atomicCAS(volatile int* p, int c, int v) { return atomicCAS_i(p, c, v); }
TESSERA_CXX_INLINE unsigned atomicCAS(volatile unsigned* p, unsigned c, unsigned v) { return atomicCAS_u(p, c, v); }
TESSERA_CXX_INLINE long atomicCAS(volatile long* p, long c, long v) { return atomicCAS_l(p, c, v); }
TESSERA_CXX_INLINE unsigned long atomicCAS(volatile unsigned long* p, unsigned long c, unsigned long v) {
  return atomicCAS_ul(p, c, v);
}
TESSERA_CXX_INLINE long long atomicCAS(volatile long long* p, long long c, long long v) {
  return atomicCAS_ll(p, c, v);
}
TESSERA_CXX_INLINE unsigned long long atomicCAS(volatile unsigned long long* p, unsigned long long c,
                                                unsigned long long v) {
  return atomicCAS_ull(p, c, v);
}

/* ---- __ldg ------------------------------------------------------------------ */

TESSERA_CXX_INLINE int __ldg(const int* p) { return __ldg_i(p); }
TESSERA_CXX_INLINE unsigned __ldg(const unsigned* p) { return __ldgu(p); }
TESSERA_CXX_INLINE float __ldg(const float* p) { return __ldgf(p); }
TESSERA_CXX_INLINE char __ldg(const char* p) { return __ldg_c(p); }
TESSERA_CXX_INLINE signed char __ldg(const signed char* p) { return __ldg_sc(p); }
TESSERA_CXX_INLINE unsigned char __ldg(const unsigned char* p) { return __ldg_uc(p); }
TESSERA_CXX_INLINE short __ldg(const short* p) { return __ldg_s(p); }
TESSERA_CXX_INLINE unsigned short __ldg(const unsigned short* p) { return __ldg_us(p); }
TESSERA_CXX_INLINE long __ldg(const long* p) { return __ldg_l(p); }
TESSERA_CXX_INLINE unsigned long __ldg(const unsigned long* p) { return __ldg_ul(p); }
TESSERA_CXX_INLINE long long __ldg(const long long* p) { return __ldg_ll(p); }
TESSERA_CXX_INLINE unsigned long long __ldg(const unsigned long long* p) { return __ldg_ull(p); }
TESSERA_CXX_INLINE double __ldg(const double* p) { return __ldg_d(p); }

/* ---- warp shuffles and __syncwarp ------------------------------------------- */

#define TESSERA_CXX_SHFL(name, mode)                                                                                  \
  TESSERA_CXX_INLINE int name(unsigned m, int v, int l, int w = 32) { return tessera_shfl_i_(mode, m, v, l, w); }     \
  TESSERA_CXX_INLINE unsigned name(unsigned m, unsigned v, int l, int w = 32) {                                       \
    return tessera_shfl_u_(mode, m, v, l, w);                                                                         \
  }                                                                                                                   \
  TESSERA_CXX_INLINE long name(unsigned m, long v, int l, int w = 32) { return tessera_shfl_l_(mode, m, v, l, w); }   \
  TESSERA_CXX_INLINE unsigned long name(unsigned m, unsigned long v, int l, int w = 32) {                             \
    return tessera_shfl_ul_(mode, m, v, l, w);                                                                        \
  }                                                                                                                   \
  TESSERA_CXX_INLINE long long name(unsigned m, long long v, int l, int w = 32) {                                     \
    return tessera_shfl_ll_(mode, m, v, l, w);                                                                        \
  }                                                                                                                   \
  TESSERA_CXX_INLINE unsigned long long name(unsigned m, unsigned long long v, int l, int w = 32) {                   \
    return tessera_shfl_ull_(mode, m, v, l, w);                                                                       \
  }                                                                                                                   \
  TESSERA_CXX_INLINE float name(unsigned m, float v, int l, int w = 32) { return tessera_shfl_f_(mode, m, v, l, w); } \
  TESSERA_CXX_INLINE double name(unsigned m, double v, int l, int w = 32) { return tessera_shfl_d_(mode, m, v, l, w); }
TESSERA_CXX_SHFL(__shfl_sync, TESSERA_SHFL_IDX)
TESSERA_CXX_SHFL(__shfl_up_sync, TESSERA_SHFL_UP)
TESSERA_CXX_SHFL(__shfl_down_sync, TESSERA_SHFL_DOWN)
TESSERA_CXX_SHFL(__shfl_xor_sync, TESSERA_SHFL_XOR)
#undef TESSERA_CXX_SHFL

/* The calling lane waits until every lane of mask that has not exited
 * reaches a __syncwarp. */
TESSERA_CXX_INLINE void __syncwarp(unsigned mask = 0xffffffffu) { tessera_syncwarp_(mask); }

/* ---- min and max -------------------------------------------------------------- */

/* Compared in the type of a + b (min(int, unsigned) is unsigned), as CUDA's
 * overloads choose. Define TESSERA_NO_MIN_MAX to keep the names free. */
#if !defined(TESSERA_NO_MIN_MAX) && !defined(min) && !defined(max)
template <class _Ap, class _Bp>
constexpr TESSERA_CXX_INLINE auto min(_Ap a, _Bp b) -> decltype(a + b) {
  return b < a ? b : a;
}
template <class _Ap, class _Bp>
constexpr TESSERA_CXX_INLINE auto max(_Ap a, _Bp b) -> decltype(a + b) {
  return b > a ? b : a;
}
#endif

/* ---- tessera_launch for kernels that take one void * ----------------------- */

/* As in C: args points to the argument struct, whose sizeof(*args) bytes
 * are copied at the launch; NULL / nullptr for none (a void pointer does
 * not compile: its size is unknown). */
template <class _Tp>
inline void tessera_launch(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                           const _Tp* args) {
  static_assert(sizeof(_Tp) <= TESSERA_PARAM_BYTES,
                "tessera_launch: the kernel arguments are larger than the 4096-byte parameter area");
  tessera_launch_bytes(kernel, grid, block, dynamic_shared_bytes, args, sizeof(_Tp));
}
inline void tessera_launch(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes = 0,
                           decltype(nullptr) = nullptr) {
  tessera_launch_bytes(kernel, grid, block, dynamic_shared_bytes, nullptr, 0);
}

inline void tessera_launch_ref(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                               void* ptr) {
  tessera_launch_bytes(kernel, grid, block, dynamic_shared_bytes, ptr, 0u);
}

#endif /* TESSERA_CXX_H */
