/*
 * tessera.h - CUDA-like programming interface for Tessera firmware (C11 or
 * C++17; from C++ the overloads of tessera_cxx.h replace the _Generic macros,
 * and cuda_runtime.h adds CUDA's launch syntax and runtime API).
 *
 * The contract behind every name here is docs/firmware-abi.md: the CSR
 * numbers, the custom instruction encodings and the MMIO registers.
 *
 * Device side (inside a TESSERA_KERNEL / __global__ function, run by SM threads):
 *   threadIdx blockIdx blockDim gridDim, __shared__, __syncthreads(), __threadfence(),
 *   atomicAdd/Sub/Exch/Min/Max/And/Or/Xor/CAS/Inc/Dec on int, unsigned, long,
 *   unsigned long (int32_t, uint32_t), long long, unsigned long long
 *   (int64_t, uint64_t) and float (Add, Exch), atomicAddf,
 *   __ldg (every integer type, float, double) __ldgu __ldgf,
 *   __sinf __cosf __exp2f __log2f __frcp __frsqrt __expf __fdividef rsqrtf,
 *   __popc __clz __ffs __brev (and the ...ll forms), min max,
 *   printf (to a buffer printed at tessera_wait()),
 *   clock(), tessera_lane_id() tessera_warp_id() tessera_sm_id(),
 *   tessera_dynamic_shared().
 * CUDA qualifiers: __global__ __device__ __host__ __forceinline__ __noinline__
 *   (__restrict__ is GCC's).
 * Host side (main(), run by control core 0):
 *   tessera_launch(kernel, grid, block[, dynamic_shared_bytes[, args]]) (args
 *   copied at the launch), tessera_launch_ref(), tessera_launch_bytes(),
 *   tessera_wait(), tessera_roi_begin(), tessera_roi_end(), tessera_exit(),
 *   tessera_num_cores() tessera_hart_id() tessera_core_start() tessera_core_join(),
 *   tessera_bus_transactions() tessera_bus_invalidations(),
 *   printf and the rest of picolibc's stdio on the console.
 *
 * Kernels must not touch MMIO (printf is the one console access they have)
 * and have a small stack (the thread's local memory, 4 KiB by default).
 */
#ifndef TESSERA_H
#define TESSERA_H

#ifdef __cplusplus
#if __cplusplus < 201703L
#error "tessera.h needs C++17 or later (-std=c++17/gnu++17 or newer)"
#endif
#elif !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "tessera.h needs C11 or later (-std=c11/gnu11 or newer)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
/* picolibc's <time.h> declares clock(); it must be seen before the clock()
 * macro below, and its include guard keeps a later #include <time.h> from
 * declaring it again. */
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Common                                                                   */
/* ------------------------------------------------------------------------ */

#define TESSERA_INLINE static inline __attribute__((always_inline))

/* TESSERA_KERNEL and __global__ (kernels), __launch_bounds__, TESSERA_MAXRREG. */
#include "tessera_kernel.h"

typedef void (*tessera_kernel_fn)(void* args);

/* CUDA's function qualifiers (__global__ is TESSERA_KERNEL). __device__ makes
 * a function (or variable) static to its file, as CUDA without relocatable
 * device code: the compiler inlines it where it pays; it runs on both core
 * types, as every function does. __host__ is empty. __forceinline__ and
 * __noinline__ add to __device__ (`__device__ __forceinline__ float f(...)`).
 * __restrict__ is GCC's own keyword. */
#ifdef __cplusplus
/* In C++ a member function may be __device__ too, so it adds no storage
 * class: a non-inline __device__ function defined in a header that two
 * files include is defined twice (declare it inline or static). */
#define __device__
#else
#define __device__ static __attribute__((unused))
#endif
#define __host__
/* __constant__ data (64 KiB at most) is read by the SMs through their
 * constant caches: one address per cycle, broadcast to the lanes that ask
 * for it (docs/cuda.md); the host writes it before the launch. */
#define __constant__ __attribute__((section(".tessera.constant")))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

/* Grid and block shapes. `dim3 b = {16, 16};` and `dim3 b = {256};` leave
 * the missing members 0: tessera_launch() treats a y or z of 0 as 1 (as
 * CUDA's dim3 defaults them), while an x of 0 is refused by the dispatcher.
 * So that these forms compile cleanly under -Wextra, this header turns off
 * -Wmissing-field-initializers for the rest of the file (a member left out
 * of a C initializer is 0). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#ifdef __cplusplus
/* CUDA's uint3 (the type of threadIdx and blockIdx there); converts to and
 * from dim3. */
struct uint3 {
  unsigned x, y, z;
};
#endif
typedef struct dim3 {
  unsigned x, y, z;
#ifdef __cplusplus
  /* CUDA's constructors: the dimensions not given are 1. */
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
} dim3;

TESSERA_INLINE dim3 dim3_make(unsigned x, unsigned y, unsigned z) {
  dim3 d = {x, y, z};
  return d;
}
#ifdef __cplusplus
#define DIM3(x, y, z) (dim3((unsigned)(x), (unsigned)(y), (unsigned)(z)))
#else
#define DIM3(x, y, z) ((dim3){(unsigned)(x), (unsigned)(y), (unsigned)(z)})
#endif

/* ------------------------------------------------------------------------ */
/* Memory map and MMIO registers (control cores only)                       */
/* ------------------------------------------------------------------------ */

#define TESSERA_MMIO_BASE 0x10000000u
#define TESSERA_SHARED_BASE 0x20000000u
#define TESSERA_LOCAL_BASE 0x30000000u
#define TESSERA_GLOBAL_BASE 0x80000000u

#define TESSERA_CONSOLE_TX 0x000u
#define TESSERA_EXIT 0x004u
#define TESSERA_ROI 0x008u
#define TESSERA_CYCLE_LO 0x00Cu
#define TESSERA_CYCLE_HI 0x010u
#define TESSERA_CLOCK_KHZ 0x014u
#define TESSERA_DISP_START 0x100u
#define TESSERA_DISP_KERNEL 0x104u
#define TESSERA_DISP_ARGS 0x108u
#define TESSERA_DISP_GRID_X 0x10Cu
#define TESSERA_DISP_GRID_Y 0x110u
#define TESSERA_DISP_GRID_Z 0x114u
#define TESSERA_DISP_BLOCK_X 0x118u
#define TESSERA_DISP_BLOCK_Y 0x11Cu
#define TESSERA_DISP_BLOCK_Z 0x120u
#define TESSERA_DISP_SHARED_BYTES 0x124u
#define TESSERA_DISP_REGS 0x128u
#define TESSERA_DISP_LAUNCH 0x12Cu
#define TESSERA_DISP_STATUS 0x130u
#define TESSERA_DISP_DONE_COUNT 0x134u
/* Control-core cluster (docs/firmware-abi.md, "Control-core cluster"). */
#define TESSERA_NUM_CORES 0x040u
#define TESSERA_HART_PC 0x044u
#define TESSERA_HART_ARG 0x048u
#define TESSERA_HART_FN 0x04Cu
#define TESSERA_HART_SP 0x050u
#define TESSERA_HART_START 0x054u
#define TESSERA_HART_RUNNING 0x058u
#define TESSERA_HART_PARK 0x05Cu
#define TESSERA_BUS_TRANSACTIONS 0x060u
#define TESSERA_BUS_INVALIDATIONS 0x064u
#define TESSERA_BUS_CACHE_TO_CACHE 0x068u
#define TESSERA_BUS_MEMORY_READS 0x06Cu

/* The 32-bit MMIO register at offset off, as a volatile lvalue. */
#define TESSERA_MMIO(off) (*(volatile uint32_t*)(uintptr_t)(TESSERA_MMIO_BASE + (off)))

/* ------------------------------------------------------------------------ */
/* Thread coordinates: Tessera SIMT CSRs 0xCC0..0xCD0                       */
/* ------------------------------------------------------------------------ */

/* Not volatile: a CSR is constant for the life of a thread, so the compiler
 * may CSE and hoist the reads, and drops the unused ones. */
#define TESSERA_CSR_RO(name, csr)        \
  TESSERA_INLINE unsigned name(void) {   \
    unsigned v;                          \
    __asm__("csrr %0, " #csr : "=r"(v)); \
    return v;                            \
  }

TESSERA_CSR_RO(tessera_tid_x, 0xCC0)
TESSERA_CSR_RO(tessera_tid_y, 0xCC1)
TESSERA_CSR_RO(tessera_tid_z, 0xCC2)
TESSERA_CSR_RO(tessera_ntid_x, 0xCC3)
TESSERA_CSR_RO(tessera_ntid_y, 0xCC4)
TESSERA_CSR_RO(tessera_ntid_z, 0xCC5)
TESSERA_CSR_RO(tessera_ctaid_x, 0xCC6)
TESSERA_CSR_RO(tessera_ctaid_y, 0xCC7)
TESSERA_CSR_RO(tessera_ctaid_z, 0xCC8)
TESSERA_CSR_RO(tessera_nctaid_x, 0xCC9)
TESSERA_CSR_RO(tessera_nctaid_y, 0xCCA)
TESSERA_CSR_RO(tessera_nctaid_z, 0xCCB)
TESSERA_CSR_RO(tessera_lane_id, 0xCCC)
TESSERA_CSR_RO(tessera_warp_id, 0xCCD)
TESSERA_CSR_RO(tessera_sm_id, 0xCCE)
TESSERA_CSR_RO(tessera_num_sms, 0xCCF)
TESSERA_CSR_RO(tessera_shared_bytes, 0xCD0)

TESSERA_INLINE dim3 tessera_thread_idx(void) { return dim3_make(tessera_tid_x(), tessera_tid_y(), tessera_tid_z()); }
TESSERA_INLINE dim3 tessera_block_dim(void) { return dim3_make(tessera_ntid_x(), tessera_ntid_y(), tessera_ntid_z()); }
TESSERA_INLINE dim3 tessera_block_idx(void) {
  return dim3_make(tessera_ctaid_x(), tessera_ctaid_y(), tessera_ctaid_z());
}
TESSERA_INLINE dim3 tessera_grid_dim(void) {
  return dim3_make(tessera_nctaid_x(), tessera_nctaid_y(), tessera_nctaid_z());
}

#define threadIdx (tessera_thread_idx())
#define blockDim (tessera_block_dim())
#define blockIdx (tessera_block_idx())
#define gridDim (tessera_grid_dim())

/* ------------------------------------------------------------------------ */
/* Shared memory and barrier                                                */
/* ------------------------------------------------------------------------ */

/* Block-shared variable, at file scope or inside a kernel (hence static: C
 * does not allow a section on an automatic variable). All __shared__
 * variables of the program form one static area; every launch reserves it. */
#define __shared__ static __attribute__((section(".shared")))

extern char __tessera_shared_start[];
extern char __tessera_shared_end[];

/* The dynamic shared area requested by tessera_launch(): 128-byte aligned,
 * after every static __shared__ variable (tessera.ld). `extern __shared__
 * float s[];` names it too (tessera-cc binds such declarations to it). */
extern char __tessera_dynamic_shared[];
TESSERA_INLINE void* tessera_dynamic_shared(void) { return (void*)__tessera_dynamic_shared; }

/* bar.sync: every thread of the block waits here; also a compiler barrier. */
TESSERA_INLINE void __syncthreads(void) { __asm__ volatile(".insn r 0x0B, 1, 0, x0, x0, x0" ::: "memory"); }

/* Orders this thread's memory accesses (fence rw,rw). Tessera's SMs perform
 * accesses in issue order, so this is for portability and the compiler. */
TESSERA_INLINE void __threadfence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

/* exit: the calling SM thread finishes now (like returning from the kernel). */
TESSERA_INLINE __attribute__((noreturn)) void tessera_thread_exit(void) {
  __asm__ volatile(".insn r 0x0B, 1, 1, x0, x0, x0" ::: "memory");
  __builtin_unreachable();
}

/* ------------------------------------------------------------------------ */
/* Atomics (shared or global memory, word aligned). Each returns the old    */
/* value. atomicX(p, v) picks the int, unsigned or float version from *p;   */
/* the typed functions atomicX_i / atomicX_u can be called directly.        */
/* ------------------------------------------------------------------------ */

TESSERA_INLINE uint32_t tessera_f2u(float f) {
  union {
    float f;
    uint32_t u;
  } c = {.f = f};
  return c.u;
}
TESSERA_INLINE float tessera_u2f(uint32_t u) {
  union {
    uint32_t u;
    float f;
  } c = {.u = u};
  return c.f;
}

#define TESSERA_AMO(name, T, insn)                                                  \
  TESSERA_INLINE T name(volatile T* p, T v) {                                       \
    T old;                                                                          \
    __asm__ volatile(insn " %0, %2, %1" : "=r"(old), "+A"(*p) : "r"(v) : "memory"); \
    return old;                                                                     \
  }

TESSERA_AMO(atomicAdd_i, int, "amoadd.w")
TESSERA_AMO(atomicAdd_u, unsigned, "amoadd.w")
TESSERA_AMO(atomicExch_i, int, "amoswap.w")
TESSERA_AMO(atomicExch_u, unsigned, "amoswap.w")
TESSERA_AMO(atomicMin_i, int, "amomin.w")
TESSERA_AMO(atomicMin_u, unsigned, "amominu.w")
TESSERA_AMO(atomicMax_i, int, "amomax.w")
TESSERA_AMO(atomicMax_u, unsigned, "amomaxu.w")
TESSERA_AMO(atomicAnd_i, int, "amoand.w")
TESSERA_AMO(atomicAnd_u, unsigned, "amoand.w")
TESSERA_AMO(atomicOr_i, int, "amoor.w")
TESSERA_AMO(atomicOr_u, unsigned, "amoor.w")
TESSERA_AMO(atomicXor_i, int, "amoxor.w")
TESSERA_AMO(atomicXor_u, unsigned, "amoxor.w")

TESSERA_INLINE int atomicSub_i(volatile int* p, int v) { return atomicAdd_i(p, (int)(0u - (unsigned)v)); }
TESSERA_INLINE unsigned atomicSub_u(volatile unsigned* p, unsigned v) { return atomicAdd_u(p, 0u - v); }

TESSERA_INLINE float atomicExchf(volatile float* p, float v) {
  return tessera_u2f(atomicExch_u((volatile unsigned*)p, tessera_f2u(v)));
}

/* atom.fadd: *p += v as floats. */
TESSERA_INLINE float atomicAddf(volatile float* p, float v) {
  uint32_t old;
  __asm__ volatile(".insn r 0x2B, 6, 0, %0, %1, %2" : "=r"(old) : "r"(p), "r"(tessera_f2u(v)) : "memory");
  return tessera_u2f(old);
}

/* atom.inc: *p = (old >= limit) ? 0 : old + 1. */
TESSERA_INLINE unsigned atomicInc_u(volatile unsigned* p, unsigned limit) {
  unsigned old;
  __asm__ volatile(".insn r 0x2B, 6, 1, %0, %1, %2" : "=r"(old) : "r"(p), "r"(limit) : "memory");
  return old;
}

/* atom.dec: *p = (old == 0 || old > limit) ? limit : old - 1. */
TESSERA_INLINE unsigned atomicDec_u(volatile unsigned* p, unsigned limit) {
  unsigned old;
  __asm__ volatile(".insn r 0x2B, 6, 2, %0, %1, %2" : "=r"(old) : "r"(p), "r"(limit) : "memory");
  return old;
}

TESSERA_INLINE int atomicInc_i(volatile int* p, int limit) {
  return (int)atomicInc_u((volatile unsigned*)p, (unsigned)limit);
}
TESSERA_INLINE int atomicDec_i(volatile int* p, int limit) {
  return (int)atomicDec_u((volatile unsigned*)p, (unsigned)limit);
}

/* atom.cas: if (*p == compare) *p = val. */
TESSERA_INLINE unsigned atomicCAS_u(volatile unsigned* p, unsigned compare, unsigned val) {
  unsigned old;
  __asm__ volatile(".insn r4 0x2B, 7, 0, %0, %1, %2, %3" : "=r"(old) : "r"(p), "r"(compare), "r"(val) : "memory");
  return old;
}

TESSERA_INLINE int atomicCAS_i(volatile int* p, int compare, int val) {
  return (int)atomicCAS_u((volatile unsigned*)p, (unsigned)compare, (unsigned)val);
}

/* long / unsigned long (int32_t / uint32_t on RV32) use the word atomics. */
#define TESSERA_AMO_AS(name, T, U, base) \
  TESSERA_INLINE T name(volatile T* p, T v) { return (T)base((volatile U*)(uintptr_t)p, (U)v); }
TESSERA_AMO_AS(atomicAdd_l, long, int, atomicAdd_i)
TESSERA_AMO_AS(atomicAdd_ul, unsigned long, unsigned, atomicAdd_u)
TESSERA_AMO_AS(atomicSub_l, long, int, atomicSub_i)
TESSERA_AMO_AS(atomicSub_ul, unsigned long, unsigned, atomicSub_u)
TESSERA_AMO_AS(atomicExch_l, long, int, atomicExch_i)
TESSERA_AMO_AS(atomicExch_ul, unsigned long, unsigned, atomicExch_u)
TESSERA_AMO_AS(atomicMin_l, long, int, atomicMin_i)
TESSERA_AMO_AS(atomicMin_ul, unsigned long, unsigned, atomicMin_u)
TESSERA_AMO_AS(atomicMax_l, long, int, atomicMax_i)
TESSERA_AMO_AS(atomicMax_ul, unsigned long, unsigned, atomicMax_u)
TESSERA_AMO_AS(atomicAnd_l, long, int, atomicAnd_i)
TESSERA_AMO_AS(atomicAnd_ul, unsigned long, unsigned, atomicAnd_u)
TESSERA_AMO_AS(atomicOr_l, long, int, atomicOr_i)
TESSERA_AMO_AS(atomicOr_ul, unsigned long, unsigned, atomicOr_u)
TESSERA_AMO_AS(atomicXor_l, long, int, atomicXor_i)
TESSERA_AMO_AS(atomicXor_ul, unsigned long, unsigned, atomicXor_u)
TESSERA_AMO_AS(atomicInc_l, long, unsigned, atomicInc_u)
TESSERA_AMO_AS(atomicInc_ul, unsigned long, unsigned, atomicInc_u)
TESSERA_AMO_AS(atomicDec_l, long, unsigned, atomicDec_u)
TESSERA_AMO_AS(atomicDec_ul, unsigned long, unsigned, atomicDec_u)
TESSERA_INLINE long atomicCAS_l(volatile long* p, long compare, long val) {
  return (long)atomicCAS_u((volatile unsigned*)(uintptr_t)p, (unsigned)compare, (unsigned)val);
}
TESSERA_INLINE unsigned long atomicCAS_ul(volatile unsigned long* p, unsigned long compare, unsigned long val) {
  return atomicCAS_u((volatile unsigned*)(uintptr_t)p, (unsigned)compare, (unsigned)val);
}

/* 64-bit atomics (atom.add64 / atom.exch64 / atom.cas64, custom-1 0x2B): the
 * address is 8-byte aligned in shared or global memory; each 64-bit operand
 * is a register pair (GCC puts a 64-bit "r" operand of RV32 in two
 * consecutive registers, low word in the named one). */
TESSERA_INLINE unsigned long long atomicAdd_ull(volatile unsigned long long* p, unsigned long long v) {
  unsigned long long old;
  __asm__ volatile(".insn r 0x2B, 3, 0, %0, %1, %2" : "=&r"(old) : "r"(p), "r"(v) : "memory");
  return old;
}
TESSERA_INLINE unsigned long long atomicExch_ull(volatile unsigned long long* p, unsigned long long v) {
  unsigned long long old;
  __asm__ volatile(".insn r 0x2B, 3, 1, %0, %1, %2" : "=&r"(old) : "r"(p), "r"(v) : "memory");
  return old;
}
TESSERA_INLINE unsigned long long atomicCAS_ull(volatile unsigned long long* p, unsigned long long compare,
                                                unsigned long long val) {
  unsigned long long old;
  __asm__ volatile(".insn r4 0x2B, 7, 1, %0, %1, %2, %3" : "=&r"(old) : "r"(p), "r"(compare), "r"(val) : "memory");
  return old;
}
TESSERA_INLINE unsigned long long atomicSub_ull(volatile unsigned long long* p, unsigned long long v) {
  return atomicAdd_ull(p, 0ull - v);
}
/* Min/Max/And/Or/Xor on 64 bits: a CAS loop (one lane of a warp succeeds per
 * round, so the loop always finishes). */
#define TESSERA_CAS64_OP(name, T, op)                                                                   \
  TESSERA_INLINE T name(volatile T* p, T v) {                                                           \
    unsigned long long seen = *(volatile unsigned long long*)(uintptr_t)p, assumed;                     \
    do {                                                                                                \
      assumed = seen;                                                                                   \
      T a = (T)assumed;                                                                                 \
      T r = op;                                                                                         \
      seen = atomicCAS_ull((volatile unsigned long long*)(uintptr_t)p, assumed, (unsigned long long)r); \
    } while (seen != assumed);                                                                          \
    return (T)seen;                                                                                     \
  }
TESSERA_CAS64_OP(atomicMin_ull, unsigned long long, (v < a ? v : a))
TESSERA_CAS64_OP(atomicMax_ull, unsigned long long, (v > a ? v : a))
TESSERA_CAS64_OP(atomicMin_ll, long long, (v < a ? v : a))
TESSERA_CAS64_OP(atomicMax_ll, long long, (v > a ? v : a))
TESSERA_CAS64_OP(atomicAnd_ull, unsigned long long, (a & v))
TESSERA_CAS64_OP(atomicOr_ull, unsigned long long, (a | v))
TESSERA_CAS64_OP(atomicXor_ull, unsigned long long, (a ^ v))
#define TESSERA_AMO64_AS(name, base)                                                           \
  TESSERA_INLINE long long name(volatile long long* p, long long v) {                          \
    return (long long)base((volatile unsigned long long*)(uintptr_t)p, (unsigned long long)v); \
  }
TESSERA_AMO64_AS(atomicAdd_ll, atomicAdd_ull)
TESSERA_AMO64_AS(atomicSub_ll, atomicSub_ull)
TESSERA_AMO64_AS(atomicExch_ll, atomicExch_ull)
TESSERA_AMO64_AS(atomicAnd_ll, atomicAnd_ull)
TESSERA_AMO64_AS(atomicOr_ll, atomicOr_ull)
TESSERA_AMO64_AS(atomicXor_ll, atomicXor_ull)
TESSERA_INLINE long long atomicCAS_ll(volatile long long* p, long long compare, long long val) {
  return (long long)atomicCAS_ull((volatile unsigned long long*)(uintptr_t)p, (unsigned long long)compare,
                                  (unsigned long long)val);
}

#ifndef __cplusplus /* C++: tessera_cxx.h */
/* A readable error for an element type no atomic accepts (selected by the
 * _Generic below, so it is reported only when used). */
int tessera_atomic_bad_type(const volatile void* p, ...) __attribute__((
    error("atomic*: unsupported element type: atomicAdd/Sub/Exch/Min/Max/And/Or/Xor/CAS take int, unsigned, long, "
          "unsigned long, long long or unsigned long long (atomicAdd and atomicExch also float; atomicInc/Dec "
          "only 32-bit integers)")));

/* _Generic on *(p): the lvalue conversion drops qualifiers, so volatile and
 * const-less pointers to every integer type (and float where it exists)
 * match; int32_t / uint32_t are long / unsigned long on RV32. */
#define TESSERA_ATOMIC_SEL(p, i, u, l, ul, ll, ull, f) \
  _Generic(*(p), int                                   \
           : i, unsigned                               \
           : u, long                                   \
           : l, unsigned long                          \
           : ul, long long                             \
           : ll, unsigned long long                    \
           : ull, float                                \
           : f, default                                \
           : tessera_atomic_bad_fn)
#define tessera_atomic_bad_fn tessera_atomic_bad_type
#define atomicAdd(p, v)                                                                                               \
  TESSERA_ATOMIC_SEL(p, atomicAdd_i, atomicAdd_u, atomicAdd_l, atomicAdd_ul, atomicAdd_ll, atomicAdd_ull, atomicAddf) \
  ((p), (v))
#define atomicSub(p, v)                                                                                   \
  TESSERA_ATOMIC_SEL(p, atomicSub_i, atomicSub_u, atomicSub_l, atomicSub_ul, atomicSub_ll, atomicSub_ull, \
                     tessera_atomic_bad_fn)                                                               \
  ((p), (v))
#define atomicExch(p, v)                                                                                        \
  TESSERA_ATOMIC_SEL(p, atomicExch_i, atomicExch_u, atomicExch_l, atomicExch_ul, atomicExch_ll, atomicExch_ull, \
                     atomicExchf)                                                                               \
  ((p), (v))
#define atomicMin(p, v)                                                                                   \
  TESSERA_ATOMIC_SEL(p, atomicMin_i, atomicMin_u, atomicMin_l, atomicMin_ul, atomicMin_ll, atomicMin_ull, \
                     tessera_atomic_bad_fn)                                                               \
  ((p), (v))
#define atomicMax(p, v)                                                                                   \
  TESSERA_ATOMIC_SEL(p, atomicMax_i, atomicMax_u, atomicMax_l, atomicMax_ul, atomicMax_ll, atomicMax_ull, \
                     tessera_atomic_bad_fn)                                                               \
  ((p), (v))
#define atomicAnd(p, v)                                                                                   \
  TESSERA_ATOMIC_SEL(p, atomicAnd_i, atomicAnd_u, atomicAnd_l, atomicAnd_ul, atomicAnd_ll, atomicAnd_ull, \
                     tessera_atomic_bad_fn)                                                               \
  ((p), (v))
#define atomicOr(p, v)                                                                              \
  TESSERA_ATOMIC_SEL(p, atomicOr_i, atomicOr_u, atomicOr_l, atomicOr_ul, atomicOr_ll, atomicOr_ull, \
                     tessera_atomic_bad_fn)                                                         \
  ((p), (v))
#define atomicXor(p, v)                                                                                   \
  TESSERA_ATOMIC_SEL(p, atomicXor_i, atomicXor_u, atomicXor_l, atomicXor_ul, atomicXor_ll, atomicXor_ull, \
                     tessera_atomic_bad_fn)                                                               \
  ((p), (v))
#define atomicInc(p, v)                                                                             \
  TESSERA_ATOMIC_SEL(p, atomicInc_i, atomicInc_u, atomicInc_l, atomicInc_ul, tessera_atomic_bad_fn, \
                     tessera_atomic_bad_fn, tessera_atomic_bad_fn)                                  \
  ((p), (v))
#define atomicDec(p, v)                                                                             \
  TESSERA_ATOMIC_SEL(p, atomicDec_i, atomicDec_u, atomicDec_l, atomicDec_ul, tessera_atomic_bad_fn, \
                     tessera_atomic_bad_fn, tessera_atomic_bad_fn)                                  \
  ((p), (v))
#define atomicCAS(p, c, v)                                                                                \
  TESSERA_ATOMIC_SEL(p, atomicCAS_i, atomicCAS_u, atomicCAS_l, atomicCAS_ul, atomicCAS_ll, atomicCAS_ull, \
                     tessera_atomic_bad_fn)                                                               \
  ((p), (c), (v))
#endif /* !__cplusplus */

/* ------------------------------------------------------------------------ */
/* Read-only global loads (ldg.*). Not volatile: the data must not change   */
/* while the kernel runs, so repeated loads may be merged.                  */
/* ------------------------------------------------------------------------ */

#define TESSERA_LDG(name, T, R, funct3)                                          \
  TESSERA_INLINE T name(const T* p) {                                            \
    R v;                                                                         \
    __asm__(".insn i 0x2B, " #funct3 ", %0, 0(%1)" : "=r"(v) : "r"(p), "m"(*p)); \
    return (T)v;                                                                 \
  }

TESSERA_LDG(__ldg_i, int, int, 2)
TESSERA_LDG(__ldgu, unsigned, unsigned, 2)
TESSERA_LDG(__ldg_sc, signed char, int, 0)
TESSERA_LDG(__ldg_uc, unsigned char, unsigned, 4)
TESSERA_LDG(__ldg_c, char, int, 4) /* char is unsigned on RISC-V */
TESSERA_LDG(__ldg_s, short, int, 1)
TESSERA_LDG(__ldg_us, unsigned short, unsigned, 5)

TESSERA_INLINE float __ldgf(const float* p) { return tessera_u2f(__ldgu((const unsigned*)p)); }

TESSERA_LDG(__ldg_l, long, int, 2)                /* int32_t on RV32 */
TESSERA_LDG(__ldg_ul, unsigned long, unsigned, 2) /* uint32_t on RV32 */

/* 64-bit types: two ldg.w of the (8-byte aligned) doubleword. */
TESSERA_INLINE unsigned long long __ldg_ull(const unsigned long long* p) {
  unsigned lo, hi;
  __asm__(".insn i 0x2B, 2, %0, 0(%2)\n\t.insn i 0x2B, 2, %1, 4(%2)" : "=&r"(lo), "=r"(hi) : "r"(p), "m"(*p));
  return ((unsigned long long)hi << 32) | lo;
}
TESSERA_INLINE long long __ldg_ll(const long long* p) {
  return (long long)__ldg_ull((const unsigned long long*)(uintptr_t)p);
}
TESSERA_INLINE double __ldg_d(const double* p) {
  union {
    unsigned long long u;
    double d;
  } c = {.u = __ldg_ull((const unsigned long long*)(uintptr_t)p)};
  return c.d;
}

#ifndef __cplusplus /* C++: tessera_cxx.h */
const void* tessera_ldg_bad_type(const volatile void* p) __attribute__((
    error("__ldg: unsupported element type: __ldg takes a pointer to an integer type (char .. long long), float or "
          "double")));

/* __ldg(p): a read-only global load of *p, for every integer type, float
 * and double. */
#define __ldg(p)                          \
  _Generic(*(p), int                      \
           : __ldg_i, unsigned            \
           : __ldgu, float                \
           : __ldgf, char                 \
           : __ldg_c, signed char         \
           : __ldg_sc, unsigned char      \
           : __ldg_uc, short              \
           : __ldg_s, unsigned short      \
           : __ldg_us, long               \
           : __ldg_l, unsigned long       \
           : __ldg_ul, long long          \
           : __ldg_ll, unsigned long long \
           : __ldg_ull, double            \
           : __ldg_d, default             \
           : tessera_ldg_bad_type)(p)
#endif /* !__cplusplus */

/* ------------------------------------------------------------------------ */
/* Special function unit                                                    */
/* ------------------------------------------------------------------------ */

#define TESSERA_SFU(name, funct7)                                           \
  TESSERA_INLINE float name(float x) {                                      \
    float r;                                                                \
    __asm__(".insn r 0x0B, 0, " #funct7 ", %0, %1, f0" : "=f"(r) : "f"(x)); \
    return r;                                                               \
  }

TESSERA_SFU(__sinf, 0)   /* sin(x), x in radians */
TESSERA_SFU(__cosf, 1)   /* cos(x) */
TESSERA_SFU(__exp2f, 2)  /* 2^x */
TESSERA_SFU(__log2f, 3)  /* log2(x) */
TESSERA_SFU(__frcp, 4)   /* 1/x */
TESSERA_SFU(__frsqrt, 5) /* 1/sqrt(x) */

/* CUDA's fast math and integer intrinsics. */
#define TESSERA_LOG2E 1.4426950408889634f
TESSERA_INLINE float __expf(float x) { return __exp2f(x * TESSERA_LOG2E); } /* ex2(x * log2 e) */
TESSERA_INLINE float __fdividef(float a, float b) { return a * __frcp(b); }
TESSERA_INLINE float rsqrtf(float x) { return __frsqrt(x); }
TESSERA_INLINE int __popc(unsigned x) { return __builtin_popcount(x); }
TESSERA_INLINE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
TESSERA_INLINE int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
TESSERA_INLINE int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
TESSERA_INLINE int __ffs(int x) { return __builtin_ffs(x); }
TESSERA_INLINE int __ffsll(long long x) { return __builtin_ffsll(x); }
TESSERA_INLINE unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  return (x >> 16) | (x << 16);
}
TESSERA_INLINE unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}

/* min(a, b) and max(a, b) for any arithmetic types: each operand evaluated
 * once, compared in the type of a + b (so min(int, unsigned) is unsigned, as
 * CUDA's overloads choose). Define TESSERA_NO_MIN_MAX before including this
 * header to keep the names free (C++: templates in tessera_cxx.h). */
#if !defined(TESSERA_NO_MIN_MAX) && !defined(min) && !defined(max) && !defined(__cplusplus)
#define min(a, b)                                                      \
  __extension__({                                                      \
    __typeof__((a) + (b)) tessera_min_a_ = (a);                        \
    __typeof__((a) + (b)) tessera_min_b_ = (b);                        \
    tessera_min_b_ < tessera_min_a_ ? tessera_min_b_ : tessera_min_a_; \
  })
#define max(a, b)                                                      \
  __extension__({                                                      \
    __typeof__((a) + (b)) tessera_max_a_ = (a);                        \
    __typeof__((a) + (b)) tessera_max_b_ = (b);                        \
    tessera_max_b_ > tessera_max_a_ ? tessera_max_b_ : tessera_max_a_; \
  })
#endif

/* ------------------------------------------------------------------------ */
/* Cycle counter                                                            */
/* ------------------------------------------------------------------------ */

/* The cycle CSR of the SM or control core running the caller (low word). */
TESSERA_INLINE unsigned tessera_clock(void) {
  unsigned v;
  __asm__ volatile("csrr %0, cycle" : "=r"(v));
  return v;
}

TESSERA_INLINE uint64_t tessera_clock64(void) {
  unsigned hi, lo, hi2;
  do {
    __asm__ volatile("csrr %0, cycleh" : "=r"(hi));
    __asm__ volatile("csrr %0, cycle" : "=r"(lo));
    __asm__ volatile("csrr %0, cycleh" : "=r"(hi2));
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

/* CUDA's clock(). A function-like macro so that it replaces picolibc's
 * clock() in code that includes this header; runtime.c also defines the
 * function clock() the same way for code that does not. */
#define clock() tessera_clock()

/* ------------------------------------------------------------------------ */
/* printf (kernels and control cores)                                       */
/* ------------------------------------------------------------------------ */

/* 1 when the caller runs on an SM thread: its stack pointer is in the local
 * memory window (0x3000_0000), a control core's in global memory. */
TESSERA_INLINE int tessera_on_sm(void) {
  uintptr_t sp;
  __asm__("mv %0, sp" : "=r"(sp));
  return (sp >> 28) == (TESSERA_LOCAL_BASE >> 28);
}

/* printf works in kernels as in CUDA. On a control core it is picolibc's
 * vprintf to the console. On an SM thread the formatted text is appended to
 * the kernel printf buffer (TESSERA_PRINTF_BYTES of global memory by
 * default, like CUDA's cudaLimitPrintfFifoSize; a program links another size
 * with -Wl,--defsym=__tessera_printf_size=N), space
 * reserved with an atomic add) with the caller's block and thread;
 * tessera_wait() (or a launch that finds the buffer more than half full)
 * prints the buffer to the console, every line prefixed
 * "[block (x,y,z) thread (x,y,z)] ". Each call is a line (a newline is
 * added when the text has none); lines that do not fit are dropped and
 * counted, and the flush prints the count. */
#define TESSERA_PRINTF_BYTES (1u << 20)
int tessera_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
#define printf(...) tessera_printf(__VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Host side (control core)                                                 */
/* ------------------------------------------------------------------------ */

/* The SM thread trampoline in crt0.S (DISP_START). */
extern void __tessera_kernel_entry(void);

/* The raw launch: kernel over grid x block threads, args passed by
 * reference and the dims as given (tessera_launch() ends here). Extra
 * dynamic_shared_bytes of shared memory per block are reachable via
 * tessera_dynamic_shared(). A launch while a kernel runs is queued (kernels
 * run one at a time, in order). */
void tessera_launch_dim3(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                         const void* args);

TESSERA_INLINE dim3 tessera_dim3_of_dim3(dim3 d) { return d; }
TESSERA_INLINE dim3 tessera_dim3_of_uint(unsigned n) { return dim3_make(n, 1, 1); }
#ifndef __cplusplus /* C++: tessera_cxx.h */
/* A dim3, or an integer n meaning (n, 1, 1). */
#define TESSERA_DIM3(v) _Generic((v), dim3 : tessera_dim3_of_dim3, default : tessera_dim3_of_uint)(v)
#endif /* !__cplusplus */

/* ---- kernel parameters --------------------------------------------------- */

/* Kernel parameters are captured at launch, as CUDA copies them: every
 * queued launch has its own parameter slot of TESSERA_PARAM_BYTES (CUDA's
 * 4 KiB limit) in a ring of TESSERA_PARAM_SLOTS; a slot is reused only after
 * DISP_DONE_COUNT says its launch finished (the launch waits for that). */
#define TESSERA_PARAM_BYTES 4096u
#define TESSERA_PARAM_SLOTS 16u

/* The launch every form below ends in: normalises dims (y, z of 0 become 1),
 * copies args_bytes bytes from args into the next parameter slot and
 * launches with a0 = the slot (args_bytes 0: a0 = args itself, by
 * reference; args NULL: a0 = NULL). Flushes kernel printf output first if
 * the buffer is more than half full. */
void tessera_launch_bytes(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                          const void* args, size_t args_bytes);

/* tessera_launch_bytes() with the threads starting at `start` instead of
 * __tessera_kernel_entry (a0 = the captured arguments, a1 = kernel; start
 * sets up gp and tp and ends the thread): CUDA launches (cuda_runtime.h)
 * start at an entry that passes the arguments in the kernel's own
 * parameter list. */
void tessera_launch_at(const void* start, tessera_kernel_fn kernel, dim3 grid, dim3 block,
                       unsigned dynamic_shared_bytes, const void* args, size_t args_bytes);

#ifndef __cplusplus /* C++: tessera_cxx.h */
/* Reported when tessera_launch()'s args cannot be captured. */
void tessera_launch_void_args(tessera_kernel_fn, dim3, dim3, unsigned, const void*, size_t) __attribute__((
    error("tessera_launch: args is a void pointer, so the size of the arguments to capture is unknown: pass a pointer "
          "to the argument struct (&a), NULL, or call tessera_launch_bytes(kernel, grid, block, shm, args, size)")));
void tessera_launch_int_args(tessera_kernel_fn, dim3, dim3, unsigned, const void*, size_t)
    __attribute__((error("tessera_launch: args must be a pointer to the kernel's argument struct (or NULL / 0)")));

/* args as a pointer whose target sizeof can measure: a void pointer or an
 * integer becomes a char pointer (not used for them). */
#define TESSERA_ARGS_PTR_(a) \
  _Generic((a), int : (const char*)0, void* : (const char*)0, const void* : (const char*)0, default : (a))
#define TESSERA_ARGS_SIZE_(a) \
  _Generic((a), int : (size_t)0, void* : (size_t)0, const void* : (size_t)0, default : sizeof(*TESSERA_ARGS_PTR_(a)))
/* A null pointer constant (0, NULL) keeps the type int* in `1 ? (int*)0 : x`;
 * anything else makes it void*. */
#define TESSERA_ARGS_NULLC_(a) _Generic((a), void* : (a), const void* : (a), int : (void*)(a), default : (void*)1)
#define TESSERA_ARGS_FN_(a) \
  _Generic((1 ? (int*)0 : TESSERA_ARGS_NULLC_(a)), int* : tessera_launch_bytes,               \
           default : _Generic((a), void* : tessera_launch_void_args, const void* : tessera_launch_void_args, \
                              int : tessera_launch_int_args, default : tessera_launch_bytes))
/* Compile-time checks: the arguments fit a parameter slot, and args is not
 * an array (which would capture only its first element). */
#define TESSERA_ARGS_CHECK_(a)                                                                                         \
  sizeof(struct {                                                                                                      \
    _Static_assert(TESSERA_ARGS_SIZE_(a) <= TESSERA_PARAM_BYTES,                                                       \
                   "tessera_launch: the kernel arguments are larger than the 4096-byte parameter area");               \
    _Static_assert(__builtin_types_compatible_p(__typeof__(TESSERA_ARGS_PTR_(a)), __typeof__(&*TESSERA_ARGS_PTR_(a))), \
                   "tessera_launch: args is an array; pass a pointer to the argument struct (or use "                  \
                   "tessera_launch_ref for data the kernel reads and writes in place)");                               \
    char tessera_c_;                                                                                                   \
  })

/* A kernel launched from C takes one void * (TESSERA_KERNEL void k(void *args)):
 * a kernel with a parameter list of its own would read its first parameter
 * from the argument block's address, so it is a compile error. */
#define TESSERA_KERNEL_CHECK_(kernel)                                                                        \
  sizeof(struct {                                                                                            \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&*(kernel)), tessera_kernel_fn),                  \
                   "tessera_launch: the kernel must be declared TESSERA_KERNEL void k(void *args) and read " \
                   "its parameters from the struct args points to");                                         \
    char tessera_c_;                                                                                         \
  })

/* tessera_launch(kernel, grid, block, dynamic_shared_bytes, args): grid and
 * block are dim3 values or integers; args points to the kernel's argument
 * struct, whose sizeof(*args) bytes are copied at the launch (the caller may
 * change or free it at once), or is NULL / 0. A void pointer or an array as
 * args, or arguments larger than TESSERA_PARAM_BYTES, is a compile error.
 * The last two arguments may be left out: tessera_launch(k, grid, block). */
#define tessera_launch(...) \
  TESSERA_LAUNCH_PICK_(__VA_ARGS__, tessera_launch5_, tessera_launch4_, tessera_launch3_, )(__VA_ARGS__)
#define TESSERA_LAUNCH_PICK_(a1, a2, a3, a4, a5, name, ...) name
#define tessera_launch3_(kernel, grid, block) tessera_launch5_(kernel, grid, block, 0u, NULL)
#define tessera_launch4_(kernel, grid, block, shm) tessera_launch5_(kernel, grid, block, shm, NULL)
#define tessera_launch5_(kernel, grid, block, dynamic_shared_bytes, args)                            \
  ((void)TESSERA_KERNEL_CHECK_(kernel), (void)TESSERA_ARGS_CHECK_(args),                             \
   TESSERA_ARGS_FN_(args)((kernel), TESSERA_DIM3(grid), TESSERA_DIM3(block), (dynamic_shared_bytes), \
                          (const void*)TESSERA_ARGS_PTR_(args), TESSERA_ARGS_SIZE_(args)))
#endif /* !__cplusplus */

#ifndef __cplusplus /* C++: tessera_cxx.h */
/* By reference: the kernel gets ptr itself and reads (and may write) *ptr
 * while its blocks run, so *ptr must stay unchanged until tessera_wait(). For
 * results returned through the argument block. */
#define tessera_launch_ref(kernel, grid, block, dynamic_shared_bytes, ptr) \
  ((void)TESSERA_KERNEL_CHECK_(kernel),                                    \
   tessera_launch_bytes((kernel), TESSERA_DIM3(grid), TESSERA_DIM3(block), (dynamic_shared_bytes), (ptr), 0u))
#endif /* !__cplusplus */

/* Waits (wfi between polls of DISP_STATUS) until no kernel runs. Afterwards
 * the kernels' writes to global memory are visible to the caller. */
void tessera_wait(void);

/* Bracket the region whose statistics are reported. */
void tessera_roi_begin(void);
void tessera_roi_end(void);

/* ---- control-core cluster ---- */

/* The control core running the caller (0 runs main()). */
TESSERA_INLINE unsigned tessera_hart_id(void) {
  unsigned v;
  __asm__("csrr %0, mhartid" : "=r"(v));
  return v;
}

/* cluster.cores: the number of control cores. */
unsigned tessera_num_cores(void);

/* Starts parked control core `hart` (1 .. tessera_num_cores()-1) running
 * fn(arg) on its own 16 KiB stack; when fn returns the core parks again.
 * Every store made before the call is visible to fn. Starting a core that
 * does not exist or is running stops the simulation with an error. */
void tessera_core_start(unsigned hart, void (*fn)(void* arg), void* arg);

/* Waits (wfi between polls) until core `hart` has parked; afterwards its
 * stores are visible to the caller. */
void tessera_core_join(unsigned hart);

/* ---- devices (netlist type rtl_device, docs/rtl-devices.md) ---- */

/* A 32-bit register of a device whose register window is at `base` (the
 * netlist's base: attribute). Each access is a coherence point of the
 * cores' caches, so the device reads what the cores wrote and the cores
 * then read what it wrote. */
#define TESSERA_DEVICE_REG(base, off) (*(volatile uint32_t*)(uintptr_t)((base) + (off)))

/* Sleeps until an interrupt (a device's irq, a kernel's end) while a
 * device or a kernel is busy; returns at once when none is. Wait for a
 * device with: while (!(TESSERA_DEVICE_REG(base, STATUS) & DONE)) tessera_wfi(); */
TESSERA_INLINE void tessera_wfi(void) { __asm__ volatile("wfi"); }

/* The cluster's bus counters since the start (low 32 bits): transactions
 * ordered on the bus, and cached copies invalidated by another cache. */
TESSERA_INLINE unsigned tessera_bus_transactions(void) { return TESSERA_MMIO(TESSERA_BUS_TRANSACTIONS); }
TESSERA_INLINE unsigned tessera_bus_invalidations(void) { return TESSERA_MMIO(TESSERA_BUS_INVALIDATIONS); }

/* Ends the simulation with this exit status (like returning from main). */
__attribute__((noreturn)) void tessera_exit(int status);

#include "tessera_htm.h"
#include "tessera_vec.h"
#include "tessera_warp.h"

#ifdef __cplusplus
} /* extern "C" */
#include "tessera_cxx.h"
#endif

#endif /* TESSERA_H */
