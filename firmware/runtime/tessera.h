/*
 * tessera.h - CUDA-like programming interface for Tessera firmware (C11).
 *
 * The contract behind every name here is docs/firmware-abi.md: the CSR
 * numbers, the custom instruction encodings and the MMIO registers.
 *
 * Device side (inside a TESSERA_KERNEL function, run by SM threads):
 *   threadIdx blockIdx blockDim gridDim, __shared__, __syncthreads(), __threadfence(),
 *   atomicAdd/Sub/Exch/Min/Max/And/Or/Xor/CAS/Inc/Dec, atomicAddf,
 *   __ldg __ldgu __ldgf, __sinf __cosf __exp2f __log2f __frcp __frsqrt,
 *   clock(), tessera_lane_id() tessera_warp_id() tessera_sm_id(),
 *   tessera_dynamic_shared().
 * Host side (main(), run by control core 0):
 *   tessera_launch(kernel, grid, block, dynamic_shared_bytes, args),
 *   tessera_wait(), tessera_roi_begin(), tessera_roi_end(), tessera_exit(),
 *   tessera_num_cores() tessera_hart_id() tessera_core_start() tessera_core_join(),
 *   tessera_bus_transactions() tessera_bus_invalidations(),
 *   printf and the rest of picolibc's stdio on the console.
 *
 * Kernels must not touch MMIO (no printf) and have a small stack (the
 * thread's local memory, 4 KiB by default).
 */
#ifndef TESSERA_H
#define TESSERA_H

#ifdef __cplusplus
#error "tessera.h is a C11 header (it uses _Generic); compile firmware as C"
#endif
#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "tessera.h needs C11 or later (-std=c11/gnu11 or newer)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
/* picolibc's <time.h> declares clock(); it must be seen before the clock()
 * macro below, and its include guard keeps a later #include <time.h> from
 * declaring it again. */
#include <time.h>

/* ------------------------------------------------------------------------ */
/* Common                                                                   */
/* ------------------------------------------------------------------------ */

#define TESSERA_INLINE static inline __attribute__((always_inline))

/* A kernel: TESSERA_KERNEL void name(void *args). noinline keeps it a real
 * function whose address the dispatcher jumps to; used keeps it when only
 * its address is taken. */
#define TESSERA_KERNEL __attribute__((noinline, used))

typedef void (*tessera_kernel_fn)(void* args);

typedef struct dim3 {
  unsigned x, y, z;
} dim3;

TESSERA_INLINE dim3 dim3_make(unsigned x, unsigned y, unsigned z) {
  dim3 d = {x, y, z};
  return d;
}
#define DIM3(x, y, z) ((dim3){(unsigned)(x), (unsigned)(y), (unsigned)(z)})

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

/* _Generic on *(p): the lvalue conversion drops qualifiers, so volatile and
 * const-less pointers to int, unsigned (and float where it exists) all match. */
#define atomicAdd(p, v) _Generic(*(p), int : atomicAdd_i, unsigned : atomicAdd_u, float : atomicAddf)((p), (v))
#define atomicSub(p, v) _Generic(*(p), int : atomicSub_i, unsigned : atomicSub_u)((p), (v))
#define atomicExch(p, v) _Generic(*(p), int : atomicExch_i, unsigned : atomicExch_u, float : atomicExchf)((p), (v))
#define atomicMin(p, v) _Generic(*(p), int : atomicMin_i, unsigned : atomicMin_u)((p), (v))
#define atomicMax(p, v) _Generic(*(p), int : atomicMax_i, unsigned : atomicMax_u)((p), (v))
#define atomicAnd(p, v) _Generic(*(p), int : atomicAnd_i, unsigned : atomicAnd_u)((p), (v))
#define atomicOr(p, v) _Generic(*(p), int : atomicOr_i, unsigned : atomicOr_u)((p), (v))
#define atomicXor(p, v) _Generic(*(p), int : atomicXor_i, unsigned : atomicXor_u)((p), (v))
#define atomicInc(p, v) _Generic(*(p), int : atomicInc_i, unsigned : atomicInc_u)((p), (v))
#define atomicDec(p, v) _Generic(*(p), int : atomicDec_i, unsigned : atomicDec_u)((p), (v))
#define atomicCAS(p, c, v) _Generic(*(p), int : atomicCAS_i, unsigned : atomicCAS_u)((p), (c), (v))

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

#define __ldg(p)                     \
  _Generic(*(p), int                 \
           : __ldg_i, unsigned       \
           : __ldgu, float           \
           : __ldgf, char            \
           : __ldg_c, signed char    \
           : __ldg_sc, unsigned char \
           : __ldg_uc, short         \
           : __ldg_s, unsigned short \
           : __ldg_us)(p)

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
/* Host side (control core)                                                 */
/* ------------------------------------------------------------------------ */

/* The SM thread trampoline in crt0.S (DISP_START). */
extern void __tessera_kernel_entry(void);

/* Launches kernel over grid x block threads. dynamic_shared_bytes extra bytes
 * of shared memory per block are reachable via tessera_dynamic_shared().
 * A launch while a kernel runs waits for it (kernels run one at a time). */
void tessera_launch_dim3(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                         const void* args);

TESSERA_INLINE dim3 tessera_dim3_of_dim3(dim3 d) { return d; }
TESSERA_INLINE dim3 tessera_dim3_of_uint(unsigned n) { return dim3_make(n, 1, 1); }
/* A dim3, or an integer n meaning (n, 1, 1). */
#define TESSERA_DIM3(v) _Generic((v), dim3 : tessera_dim3_of_dim3, default : tessera_dim3_of_uint)(v)

#define tessera_launch(kernel, grid, block, dynamic_shared_bytes, args) \
  tessera_launch_dim3((kernel), TESSERA_DIM3(grid), TESSERA_DIM3(block), (dynamic_shared_bytes), (args))

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

/* The cluster's bus counters since the start (low 32 bits): transactions
 * ordered on the bus, and cached copies invalidated by another cache. */
TESSERA_INLINE unsigned tessera_bus_transactions(void) { return TESSERA_MMIO(TESSERA_BUS_TRANSACTIONS); }
TESSERA_INLINE unsigned tessera_bus_invalidations(void) { return TESSERA_MMIO(TESSERA_BUS_INVALIDATIONS); }

/* Ends the simulation with this exit status (like returning from main). */
__attribute__((noreturn)) void tessera_exit(int status);

#include "tessera_kernel.h"

#endif /* TESSERA_H */
