/*
 * Tessera kernel resources (docs/firmware-abi.md, "Kernel record"): the
 * marks tessera-cc's kernel record reads. Included at the end of tessera.h.
 *
 *   __global__ void k(void *args)                      a kernel (= TESSERA_KERNEL)
 *   __global__ void __launch_bounds__(256, 2) k(...)   at most 256 threads per block,
 *                                                      at least 2 blocks per SM
 *   __global__ void TESSERA_MAXRREG(32) k(...)         at most 32 registers per thread
 *   __global__ void TESSERA_KERNEL_LIMITS(256, 2, 32) k(...)   both
 *   extern __shared__ float s[];                       the dynamic shared area
 *
 * A kernel is marked by one nop placed before its entry and listed in the
 * section __patchable_function_entries (patchable_function_entry(1, 1)); the
 * nop is never executed. The limits are carried in the name of the kernel's
 * code section, .text.tessera.kres.THREADS.BLOCKS.MAXRREG, which tessera-cc
 * keeps apart in the linked ELF (ld --unique). The arguments must be integer
 * constants (or macros that expand to them). A kernel takes one of the three
 * limit macros: two would give it two sections (a compile error).
 */
#ifndef TESSERA_KERNEL_H
#define TESSERA_KERNEL_H

/* A kernel: TESSERA_KERNEL void name(void *args). noinline keeps it a real
 * function whose address the dispatcher jumps to; used keeps it when only
 * its address is taken; the patchable entry marks it for the kernel record. */
#define TESSERA_KERNEL __attribute__((noinline, used, patchable_function_entry(1, 1)))

#define __global__ TESSERA_KERNEL

#define TESSERA_KRES_STR_(x) #x
#define TESSERA_KRES_STR(x) TESSERA_KRES_STR_(x)
#define TESSERA_KRES_(t, b, r) \
  __attribute__((section(".text.tessera.kres." TESSERA_KRES_STR(t) "." TESSERA_KRES_STR(b) "." TESSERA_KRES_STR(r))))
#define TESSERA_LAUNCH_BOUNDS_(t, b, ...) TESSERA_KRES_(t, b, 0)

/* CUDA's __launch_bounds__(maxThreadsPerBlock[, minBlocksPerMultiprocessor]):
 * a launch with more threads per block is refused; the kernel is charged at
 * most floor(65536 / (minBlocks * threads rounded up to a warp)) registers
 * per thread (64 at most; tessera-cc --sm-registers N changes 65536). */
#define __launch_bounds__(...) TESSERA_LAUNCH_BOUNDS_(__VA_ARGS__, 0, 0)

/* Like nvcc -maxrregcount, for one kernel: charged at most n registers per thread. */
#define TESSERA_MAXRREG(n) TESSERA_KRES_(0, 0, n)

/* __launch_bounds__(t, b) and TESSERA_MAXRREG(r) together. */
#define TESSERA_KERNEL_LIMITS(t, b, r) TESSERA_KRES_(t, b, r)

#endif /* TESSERA_KERNEL_H */
