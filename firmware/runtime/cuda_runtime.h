/*
 * cuda_runtime.h - CUDA's runtime API and launch syntax on Tessera (C++17).
 *
 * tessera-cc includes this header in every .cu file, as nvcc does, and
 * rewrites kernel<<<grid, block, shared, stream>>>(args) into a call of the
 * operator| below (firmware/tessera-cudafe). docs/cuda.md lists what is
 * supported, with the semantics each call has in simulated time. In short:
 *
 *   - There is one device: the chip's SMs, sharing global memory with the
 *     control core that runs main(). Device memory is global memory, so
 *     every cudaMemcpy kind is a copy by the control core, after the work
 *     queued before it has finished (as on the default stream).
 *   - Kernels run one at a time in launch order, whatever their stream:
 *     streams are in-order queues that the chip serialises.
 *   - Events record when the work before them ended, in simulated time.
 *   - A launch the runtime can see is invalid (threads, dimensions, dynamic
 *     shared memory) is refused with its cudaError_t, readable through
 *     cudaGetLastError() / cudaPeekAtLastError(); a program that makes any
 *     other runtime call first stops with exit status 4, naming the launch
 *     (an unchecked refused launch would compute nothing silently).
 */
#ifndef TESSERA_CUDA_RUNTIME_H
#define TESSERA_CUDA_RUNTIME_H

#ifndef __cplusplus
#error \
    "cuda_runtime.h is C++: name the file .cu (or .cpp) so that tessera-cc compiles it as C++; C programs include tessera.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

#define CUDART_VERSION 12000
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH_LIST__ 520

/* ------------------------------------------------------------------------ */
/* Qualifiers and built-in variables                                         */
/* ------------------------------------------------------------------------ */

#define __managed__
#define __align__(n) __attribute__((aligned(n)))
#define __inline__ inline
#define __thread__
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))

constexpr int warpSize = 32;

/* ------------------------------------------------------------------------ */
/* Vector types (vector_types.h), with CUDA's alignment                      */
/* ------------------------------------------------------------------------ */

/* tessera_vec.h has float2 float4 int2 int4 uint2 uint4 (and their make_
 * functions); tessera.h has uint3. */
#define TESSERA_VEC1(_Tp, name) \
  struct name##1 {              \
    _Tp x;                      \
  };                            \
  constexpr TESSERA_CXX_INLINE name##1 make_##name##1(_Tp x) { return name##1 {x}; }
#define TESSERA_VEC2(_Tp, name, align)             \
  struct __attribute__((aligned(align))) name##2 { \
    _Tp x, y;                                      \
  };                                               \
  constexpr TESSERA_CXX_INLINE name##2 make_##name##2(_Tp x, _Tp y) { return name##2 {x, y}; }
#define TESSERA_VEC3(_Tp, name) \
  struct name##3 {              \
    _Tp x, y, z;                \
  };                            \
  constexpr TESSERA_CXX_INLINE name##3 make_##name##3(_Tp x, _Tp y, _Tp z) { return name##3 {x, y, z}; }
#define TESSERA_VEC4(_Tp, name, align)             \
  struct __attribute__((aligned(align))) name##4 { \
    _Tp x, y, z, w;                                \
  };                                               \
  constexpr TESSERA_CXX_INLINE name##4 make_##name##4(_Tp x, _Tp y, _Tp z, _Tp w) { return name##4 {x, y, z, w}; }
#define TESSERA_VEC_ALL(_Tp, name, a2, a4) \
  TESSERA_VEC1(_Tp, name) TESSERA_VEC2(_Tp, name, a2) TESSERA_VEC3(_Tp, name) TESSERA_VEC4(_Tp, name, a4)

TESSERA_VEC_ALL(signed char, char, 2, 4)
TESSERA_VEC_ALL(unsigned char, uchar, 2, 4)
TESSERA_VEC_ALL(short, short, 4, 8)
TESSERA_VEC_ALL(unsigned short, ushort, 4, 8)
TESSERA_VEC1(int, int)
TESSERA_VEC3(int, int)
TESSERA_VEC1(unsigned, uint)
TESSERA_VEC_ALL(long, long, 8, 16)
TESSERA_VEC_ALL(unsigned long, ulong, 8, 16)
TESSERA_VEC_ALL(long long, longlong, 16, 16)
TESSERA_VEC_ALL(unsigned long long, ulonglong, 16, 16)
TESSERA_VEC1(float, float)
TESSERA_VEC3(float, float)
TESSERA_VEC_ALL(double, double, 16, 16)
#undef TESSERA_VEC_ALL
#undef TESSERA_VEC1
#undef TESSERA_VEC2
#undef TESSERA_VEC3
#undef TESSERA_VEC4
constexpr TESSERA_CXX_INLINE uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

/* ------------------------------------------------------------------------ */
/* Device functions: the CUDA Math API's float overloads and intrinsics      */
/* ------------------------------------------------------------------------ */

/* C++ callers of sqrt(float) and the like get the float function, as with
 * CUDA's math API (C's double functions would run in software). */
#define TESSERA_MATH_F1(name) \
  TESSERA_CXX_INLINE float name(float x) { return name##f(x); }
#define TESSERA_MATH_F2(name) \
  TESSERA_CXX_INLINE float name(float x, float y) { return name##f(x, y); }
TESSERA_MATH_F1(sqrt)
TESSERA_MATH_F1(cbrt)
TESSERA_MATH_F1(exp)
TESSERA_MATH_F1(exp2)
TESSERA_MATH_F1(expm1)
TESSERA_MATH_F1(log)
TESSERA_MATH_F1(log2)
TESSERA_MATH_F1(log10)
TESSERA_MATH_F1(log1p)
TESSERA_MATH_F1(sin)
TESSERA_MATH_F1(cos)
TESSERA_MATH_F1(tan)
TESSERA_MATH_F1(asin)
TESSERA_MATH_F1(acos)
TESSERA_MATH_F1(atan)
TESSERA_MATH_F1(sinh)
TESSERA_MATH_F1(cosh)
TESSERA_MATH_F1(tanh)
TESSERA_MATH_F1(fabs)
TESSERA_MATH_F1(floor)
TESSERA_MATH_F1(ceil)
TESSERA_MATH_F1(trunc)
TESSERA_MATH_F1(round)
TESSERA_MATH_F1(rint)
TESSERA_MATH_F1(erf)
TESSERA_MATH_F1(erfc)
TESSERA_MATH_F2(pow)
TESSERA_MATH_F2(atan2)
TESSERA_MATH_F2(fmod)
TESSERA_MATH_F2(fmin)
TESSERA_MATH_F2(fmax)
TESSERA_MATH_F2(hypot)
TESSERA_MATH_F2(copysign)
#undef TESSERA_MATH_F1
#undef TESSERA_MATH_F2
TESSERA_CXX_INLINE float abs(float x) { return fabsf(x); }
TESSERA_CXX_INLINE double abs(double x) { return fabs(x); }
TESSERA_CXX_INLINE float fma(float x, float y, float z) { return fmaf(x, y, z); }
TESSERA_CXX_INLINE float rsqrt(float x) { return __frsqrt(x); }
TESSERA_CXX_INLINE double rsqrt(double x) { return 1.0 / sqrt(x); }
TESSERA_CXX_INLINE float exp10f(float x) { return __exp2f(x * 3.3219280948873623f); }
TESSERA_CXX_INLINE void sincosf(float x, float* s, float* c) {
  *s = sinf(x);
  *c = cosf(x);
}

/* Fast intrinsics (the SFU). */
TESSERA_CXX_INLINE float __logf(float x) { return __log2f(x) * 0.6931471805599453f; }
TESSERA_CXX_INLINE float __log10f(float x) { return __log2f(x) * 0.30102999566398120f; }
TESSERA_CXX_INLINE float __powf(float x, float y) { return __exp2f(y * __log2f(x)); }
TESSERA_CXX_INLINE float __tanf(float x) { return __sinf(x) * __frcp(__cosf(x)); }
TESSERA_CXX_INLINE void __sincosf(float x, float* s, float* c) {
  *s = __sinf(x);
  *c = __cosf(x);
}
TESSERA_CXX_INLINE float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
TESSERA_CXX_INLINE float fdividef(float a, float b) { return __fdividef(a, b); }
TESSERA_CXX_INLINE float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }

/* The IEEE rounding forms (_rn nearest even, _rz toward zero, _ru up, _rd
 * down): one instruction with a static rounding mode, on the SP lanes for
 * float and the FP64 unit for double (docs/firmware-abi.md, "Floating
 * point"). */
#define TESSERA_RM_FORMS(define, ...)                                                             \
  define(_rn, "rne", __VA_ARGS__) define(_rz, "rtz", __VA_ARGS__) define(_ru, "rup", __VA_ARGS__) \
      define(_rd, "rdn", __VA_ARGS__)
#define TESSERA_RM_UNARY(sfx, rm, name, to, from, insn, out, in) \
  TESSERA_CXX_INLINE to name##sfx(from a) {                      \
    to r;                                                        \
    __asm__(insn " %0, %1, " rm : "=" out(r) : in(a));           \
    return r;                                                    \
  }
#define TESSERA_RM_BINARY(sfx, rm, name, type, insn)             \
  TESSERA_CXX_INLINE type name##sfx(type a, type b) {            \
    type r;                                                      \
    __asm__(insn " %0, %1, %2, " rm : "=f"(r) : "f"(a), "f"(b)); \
    return r;                                                    \
  }
#define TESSERA_RM_FMA(sfx, rm, name, type, insn)                            \
  TESSERA_CXX_INLINE type name##sfx(type a, type b, type c) {                \
    type r;                                                                  \
    __asm__(insn " %0, %1, %2, %3, " rm : "=f"(r) : "f"(a), "f"(b), "f"(c)); \
    return r;                                                                \
  }
#define TESSERA_RM_RCP(sfx, rm, name, type, div) \
  TESSERA_CXX_INLINE type name##sfx(type a) { return div##sfx((type)1, a); }
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __fadd, float, "fadd.s")
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __fsub, float, "fsub.s")
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __fmul, float, "fmul.s")
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __fdiv, float, "fdiv.s")
TESSERA_RM_FORMS(TESSERA_RM_FMA, __fmaf, float, "fmadd.s")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __fsqrt, float, float, "fsqrt.s", "f", "f")
TESSERA_RM_FORMS(TESSERA_RM_RCP, __frcp, float, __fdiv)
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __dadd, double, "fadd.d")
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __dsub, double, "fsub.d")
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __dmul, double, "fmul.d")
TESSERA_RM_FORMS(TESSERA_RM_BINARY, __ddiv, double, "fdiv.d")
TESSERA_RM_FORMS(TESSERA_RM_FMA, __fma, double, "fmadd.d")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __dsqrt, double, double, "fsqrt.d", "f", "f")
TESSERA_RM_FORMS(TESSERA_RM_RCP, __drcp, double, __ddiv)
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __float2int, int, float, "fcvt.w.s", "r", "f")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __float2uint, unsigned, float, "fcvt.wu.s", "r", "f")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __double2int, int, double, "fcvt.w.d", "r", "f")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __double2uint, unsigned, double, "fcvt.wu.d", "r", "f")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __int2float, float, int, "fcvt.s.w", "f", "r")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __uint2float, float, unsigned, "fcvt.s.wu", "f", "r")
TESSERA_RM_FORMS(TESSERA_RM_UNARY, __double2float, float, double, "fcvt.s.d", "f", "f")
#undef TESSERA_RM_FORMS
#undef TESSERA_RM_UNARY
#undef TESSERA_RM_BINARY
#undef TESSERA_RM_FMA
#undef TESSERA_RM_RCP
/* Exact conversions, and the 64-bit integer ones RV32 has no instruction
 * for (the C conversions: libgcc, to nearest and toward zero). */
TESSERA_CXX_INLINE double __int2double_rn(int x) { return (double)x; }
TESSERA_CXX_INLINE double __uint2double_rn(unsigned x) { return (double)x; }
TESSERA_CXX_INLINE double __ll2double_rn(long long x) { return (double)x; }
TESSERA_CXX_INLINE double __ull2double_rn(unsigned long long x) { return (double)x; }
TESSERA_CXX_INLINE long long __double2ll_rz(double x) { return (long long)x; }
TESSERA_CXX_INLINE unsigned long long __double2ull_rz(double x) { return (unsigned long long)x; }
TESSERA_CXX_INLINE float __ll2float_rn(long long x) { return (float)x; }
TESSERA_CXX_INLINE long long __float2ll_rz(float x) { return (long long)x; }

TESSERA_CXX_INLINE int __float_as_int(float x) { return (int)tessera_f2u(x); }
TESSERA_CXX_INLINE unsigned __float_as_uint(float x) { return tessera_f2u(x); }
TESSERA_CXX_INLINE float __int_as_float(int x) { return tessera_u2f((unsigned)x); }
TESSERA_CXX_INLINE float __uint_as_float(unsigned x) { return tessera_u2f(x); }
TESSERA_CXX_INLINE long long __double_as_longlong(double x) {
  long long r;
  memcpy(&r, &x, sizeof r);
  return r;
}
TESSERA_CXX_INLINE double __longlong_as_double(long long x) {
  double r;
  memcpy(&r, &x, sizeof r);
  return r;
}
TESSERA_CXX_INLINE int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
TESSERA_CXX_INLINE int __double2loint(double x) { return (int)__double_as_longlong(x); }
TESSERA_CXX_INLINE double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)((unsigned long long)(unsigned)hi << 32 | (unsigned)lo));
}
TESSERA_CXX_INLINE int __mul24(int a, int b) { return (int)((unsigned)(a << 8 >> 8) * (unsigned)(b << 8 >> 8)); }
TESSERA_CXX_INLINE unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
TESSERA_CXX_INLINE int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
TESSERA_CXX_INLINE unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
TESSERA_CXX_INLINE unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  const unsigned long long a0 = (unsigned)a, a1 = a >> 32, b0 = (unsigned)b, b1 = b >> 32;
  const unsigned long long p01 = a0 * b1, p10 = a1 * b0;
  const unsigned long long mid = (a0 * b0 >> 32) + (unsigned)p01 + (unsigned)p10;
  return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
TESSERA_CXX_INLINE long long __mul64hi(long long a, long long b) {
  unsigned long long hi = __umul64hi((unsigned long long)a, (unsigned long long)b);
  if (a < 0) hi -= (unsigned long long)b;
  if (b < 0) hi -= (unsigned long long)a;
  return (long long)hi;
}
TESSERA_CXX_INLINE unsigned __sad(int a, int b, unsigned c) {
  return (a > b ? (unsigned)(a - b) : (unsigned)(b - a)) + c;
}
TESSERA_CXX_INLINE unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
TESSERA_CXX_INLINE unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (((s >> (4 * i)) & 7u) * 8)) & 0xFFu) << (8 * i);
  return r;
}
TESSERA_CXX_INLINE int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
TESSERA_CXX_INLINE int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
TESSERA_CXX_INLINE unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
TESSERA_CXX_INLINE unsigned __urhadd(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}

/* The other fences (Tessera's SMs perform a thread's accesses in order). */
TESSERA_CXX_INLINE void __threadfence_system(void) { __threadfence(); }
/* The 64-bit cycle counter of the SM running the caller. */
TESSERA_CXX_INLINE long long clock64(void) { return (long long)tessera_clock64(); }

/* ------------------------------------------------------------------------ */
/* Runtime API types                                                         */
/* ------------------------------------------------------------------------ */

/* CUDA's values (driver_types.h), so that programs printing them see the
 * numbers they know. */
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};

#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate; /* kHz */
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate; /* kHz */
  int memoryBusWidth;  /* bits */
  int l2CacheSize;     /* bytes */
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int singleToDoublePrecisionPerfRatio;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106
};

struct tessera_cuda_stream {
  int flags;
};
typedef struct tessera_cuda_stream* cudaStream_t;
struct tessera_cuda_event {
  unsigned kernel;       /* the last kernel launched before the record (0: none pending) */
  unsigned long long ps; /* when the work before the record ended; ~0: not yet known */
  int recorded;
  int flags;
};
typedef struct tessera_cuda_event* cudaEvent_t;

#define cudaStreamLegacy ((cudaStream_t)0)
#define cudaStreamPerThread ((cudaStream_t)0)

/* ------------------------------------------------------------------------ */
/* The runtime's state and registers (docs/firmware-abi.md, "Block           */
/* dispatcher" and "Device properties")                                      */
/* ------------------------------------------------------------------------ */

#define TESSERA_DISP_DONE_QUERY 0x138u
#define TESSERA_DISP_DONE_TIME_LO 0x13Cu
#define TESSERA_DISP_DONE_TIME_HI 0x140u
#define TESSERA_DISP_NOW_LO 0x144u
#define TESSERA_DISP_NOW_HI 0x148u
#define TESSERA_DISP_LAUNCHED 0x14Cu
#define TESSERA_DEV_SMS 0x180u
#define TESSERA_DEV_WARP_SIZE 0x184u
#define TESSERA_DEV_MAX_THREADS_PER_BLOCK 0x188u
#define TESSERA_DEV_MAX_THREADS_PER_SM 0x18Cu
#define TESSERA_DEV_MAX_BLOCKS_PER_SM 0x190u
#define TESSERA_DEV_SHARED_PER_SM 0x194u
#define TESSERA_DEV_REGS_PER_SM 0x198u
#define TESSERA_DEV_SM_CLOCK_KHZ 0x19Cu
#define TESSERA_DEV_L2_BYTES 0x1A0u
#define TESSERA_DEV_MEM_CLOCK_KHZ 0x1A4u
#define TESSERA_DEV_MEM_BUS_BITS 0x1A8u
#define TESSERA_DEV_GLOBAL_MIB 0x1ACu
#define TESSERA_DEV_LOCAL_BYTES 0x1B0u

namespace tessera_cuda {

struct State {
  cudaError_t last_error = cudaSuccess;
  /* The refused launch not yet read through cudaGetLastError(). */
  const char* unread_launch = nullptr;
  int device = 0;
};
inline State state;

/* Records err as the last error and returns it. */
TESSERA_CXX_INLINE cudaError_t fail(cudaError_t err) {
  state.last_error = err;
  return err;
}

/* Every runtime call but cudaGetLastError / cudaPeekAtLastError /
 * cudaGetErrorString starts here: a refused launch nobody read stops the run. */
inline void check_unread_launch(const char* call) {
  if (state.unread_launch == nullptr) return;
  fprintf(stdout,
          "tessera: %s after a refused kernel launch (%s) whose error was not read with cudaGetLastError(): "
          "the kernel did not run\n",
          call, state.unread_launch);
  tessera_exit(4);
}

/* The simulated time now, in picoseconds (the dispatcher's NOW register). */
inline unsigned long long now_ps() {
  const unsigned lo = TESSERA_MMIO(TESSERA_DISP_NOW_LO);
  return (unsigned long long)TESSERA_MMIO(TESSERA_DISP_NOW_HI) << 32 | lo;
}

/* Kernels launched so far (C and CUDA launches, queued ones included). */
inline unsigned kernels_launched() { return TESSERA_MMIO(TESSERA_DISP_LAUNCHED); }
inline unsigned kernels_done() { return TESSERA_MMIO(TESSERA_DISP_DONE_COUNT); }

/* When kernel n (1-based) ended; ~0 if it has not ended (or is too old). */
inline unsigned long long kernel_end_ps(unsigned n) {
  TESSERA_MMIO(TESSERA_DISP_DONE_QUERY) = n;
  const unsigned lo = TESSERA_MMIO(TESSERA_DISP_DONE_TIME_LO);
  return (unsigned long long)TESSERA_MMIO(TESSERA_DISP_DONE_TIME_HI) << 32 | lo;
}

/* The work queued before a synchronous call has finished. */
inline void synchronize() { tessera_wait(); }

/* ---- kernel parameters, as the kernel's parameter list has them ---------- */

template <class... _Pp>
struct Params;
template <>
struct Params<> {
  template <class _Kp, class... _Dp>
  TESSERA_CXX_INLINE void call(_Kp k, const _Dp&... d) const {
    k(d...);
  }
};
template <class _Hp, class... _Tp>
struct Params<_Hp, _Tp...> {
  _Hp head;
  Params<_Tp...> tail;
  template <class _Ap, class... _Bp>
  TESSERA_CXX_INLINE explicit Params(_Ap&& a, _Bp&&... b)
      : head(static_cast<_Ap&&>(a)), tail(static_cast<_Bp&&>(b)...) {}
  /* By reference down to the call, where each argument is copied once (a
   * struct larger than 8 bytes to the thread's stack, as the RISC-V calling
   * convention passes it). */
  template <class _Kp, class... _Dp>
  TESSERA_CXX_INLINE void call(_Kp k, const _Dp&... d) const {
    tail.call(k, d..., head);
  }
};

/* Where a CUDA launch's threads start (DISP_START): a0 = the captured
 * parameters, a1 = the kernel. Sets gp and tp as crt0's kernel entry does,
 * calls the kernel with its own parameter list, and ends the thread. The
 * dispatcher charges the kernel's record (a1), not this entry. */
template <class... _Pp>
[[noreturn]] __attribute__((used)) void entry(const Params<_Pp...>* params, void (*kernel)(_Pp...)) {
  __asm__ volatile(
      ".option push\n\t.option norelax\n\tla gp, __global_pointer$\n\t.option pop\n\t"
      "la tp, __tls_base" ::
          : "memory");
  params->call(kernel);
  tessera_thread_exit();
}

struct LaunchConfig {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
};

/* The refusals the runtime can see before launching. */
inline cudaError_t check_config(const LaunchConfig& c, const char** why) {
  const unsigned max_threads = TESSERA_MMIO(TESSERA_DEV_MAX_THREADS_PER_BLOCK);
  const unsigned long long threads = (unsigned long long)c.block.x * c.block.y * c.block.z;
  if (c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 || c.block.x == 0 || c.block.y == 0 || c.block.z == 0) {
    *why = "a grid or block dimension is 0";
    return cudaErrorInvalidConfiguration;
  }
  if (threads > max_threads || c.block.z > 64) {
    *why = "more threads per block than the device allows (maxThreadsPerBlock, block.z <= 64)";
    return cudaErrorInvalidConfiguration;
  }
  if (c.grid.x > 0x7FFFFFFFu || c.grid.y > 65535u || c.grid.z > 65535u) {
    *why = "a grid dimension larger than the device allows (maxGridSize)";
    return cudaErrorInvalidConfiguration;
  }
  if (c.shared > TESSERA_MMIO(TESSERA_DEV_SHARED_PER_SM)) {
    *why = "more dynamic shared memory than an SM has (sharedMemPerBlock)";
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

template <class... _Pp, class... _Ap>
inline cudaError_t launch(void (*kernel)(_Pp...), const LaunchConfig& c, _Ap&&... args) {
  static_assert(sizeof...(_Ap) == sizeof...(_Pp),
                "kernel launch: the number of arguments differs from the kernel's parameter list");
  static_assert((__is_trivially_copyable(_Pp) && ... && true),
                "kernel launch: every kernel parameter must be trivially copyable (CUDA copies them at the launch)");
  static_assert(sizeof(Params<_Pp...>) <= TESSERA_PARAM_BYTES,
                "kernel launch: the kernel's parameters are larger than CUDA's 4096-byte limit");
  check_unread_launch("a kernel launch");
  const char* why = nullptr;
  const cudaError_t err = check_config(c, &why);
  if (err != cudaSuccess) {
    state.unread_launch = why;
    return fail(err);
  }
  /* Converted to the parameter types as a call would, copied by the launch. */
  const Params<_Pp...> params(static_cast<_Ap&&>(args)...);
  tessera_launch_at((const void*)&entry<_Pp...>, (tessera_kernel_fn)(void*)kernel, c.grid, c.block, (unsigned)c.shared,
                    &params, sizeof params);
  return cudaSuccess;
}

/* launch_config(grid, block[, shared[, stream]])(args...): what <<<...>>>
 * becomes; the kernel then meets the arguments in operator| below. */
template <class... _Ap>
struct LaunchArgs;
template <>
struct LaunchArgs<> {
  template <class _Fp, class... _Dp>
  TESSERA_CXX_INLINE auto apply(_Fp&& f, _Dp&&... d) const {
    return f(static_cast<_Dp&&>(d)...);
  }
};
template <class _Hp, class... _Tp>
struct LaunchArgs<_Hp, _Tp...> {
  _Hp&& head;
  LaunchArgs<_Tp...> tail;
  template <class _Fp, class... _Dp>
  TESSERA_CXX_INLINE auto apply(_Fp&& f, _Dp&&... d) const {
    return tail.apply(f, static_cast<_Dp&&>(d)..., static_cast<_Hp&&>(head));
  }
};
template <class... _Ap>
struct PendingLaunch {
  LaunchConfig config;
  LaunchArgs<_Ap...> args;
};
struct LaunchConfigBuilder {
  LaunchConfig config;
  template <class... _Ap>
  TESSERA_CXX_INLINE PendingLaunch<_Ap&&...> operator()(_Ap&&... a) const {
    return PendingLaunch<_Ap&&...>{config, make_args<_Ap&&...>(static_cast<_Ap&&>(a)...)};
  }
  template <class... _Ap, class... _Bp>
  static TESSERA_CXX_INLINE LaunchArgs<_Ap...> make_args(_Bp&&... b) {
    return LaunchArgs<_Ap...>{static_cast<_Bp&&>(b)...};
  }
};
TESSERA_CXX_INLINE LaunchConfigBuilder launch_config(dim3 grid, dim3 block, size_t shared = 0,
                                                     cudaStream_t stream = nullptr) {
  return LaunchConfigBuilder{LaunchConfig{grid, block, shared, stream}};
}

template <class... _Pp, class... _Ap>
TESSERA_CXX_INLINE void operator|(void (*kernel)(_Pp...), PendingLaunch<_Ap...>&& launch_) {
  launch_.args.apply([&](auto&&... a) { return launch(kernel, launch_.config, static_cast<decltype(a)&&>(a)...); });
}

inline bool valid_kind(cudaMemcpyKind kind) { return (unsigned)kind <= (unsigned)cudaMemcpyDefault; }

}  // namespace tessera_cuda

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

inline cudaError_t cudaGetLastError(void) {
  const cudaError_t e = tessera_cuda::state.last_error;
  tessera_cuda::state.last_error = cudaSuccess;
  tessera_cuda::state.unread_launch = nullptr;
  return e;
}
inline cudaError_t cudaPeekAtLastError(void) {
  tessera_cuda::state.unread_launch = nullptr;
  return tessera_cuda::state.last_error;
}
inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError:
      return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol:
      return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevicePointer:
      return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidDeviceFunction:
      return "cudaErrorInvalidDeviceFunction";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    case cudaErrorLaunchOutOfResources:
      return "cudaErrorLaunchOutOfResources";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported:
      return "cudaErrorNotSupported";
    case cudaErrorUnknown:
      return "cudaErrorUnknown";
  }
  return "unrecognized error code";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInitializationError:
      return "initialization error";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidSymbol:
      return "invalid device symbol";
    case cudaErrorInvalidDevicePointer:
      return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction:
      return "invalid device function";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorLaunchOutOfResources:
      return "too many resources requested for launch";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    case cudaErrorNotSupported:
      return "operation not supported";
    case cudaErrorUnknown:
      return "unknown error";
  }
  return "unrecognized error code";
}

/* ------------------------------------------------------------------------ */
/* Device management                                                         */
/* ------------------------------------------------------------------------ */

inline cudaError_t cudaGetDeviceCount(int* count) {
  tessera_cuda::check_unread_launch("cudaGetDeviceCount");
  if (count == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  tessera_cuda::check_unread_launch("cudaSetDevice");
  return device == 0 ? cudaSuccess : tessera_cuda::fail(cudaErrorInvalidDevice);
}
inline cudaError_t cudaGetDevice(int* device) {
  tessera_cuda::check_unread_launch("cudaGetDevice");
  if (device == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }

/* The chip's parameters (docs/cuda.md, "Device properties"). Compute
 * capability 5.2: the SM model follows Maxwell. */
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  tessera_cuda::check_unread_launch("cudaGetDeviceProperties");
  if (p == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  if (device != 0) return tessera_cuda::fail(cudaErrorInvalidDevice);
  memset(p, 0, sizeof *p);
  const unsigned sms = TESSERA_MMIO(TESSERA_DEV_SMS);
  snprintf(p->name, sizeof p->name, "Tessera (%u SMs)", sms);
  p->totalGlobalMem = (size_t)TESSERA_MMIO(TESSERA_DEV_GLOBAL_MIB) << 20;
  p->sharedMemPerBlock = TESSERA_MMIO(TESSERA_DEV_SHARED_PER_SM);
  p->sharedMemPerBlockOptin = p->sharedMemPerBlock;
  p->sharedMemPerMultiprocessor = p->sharedMemPerBlock;
  p->regsPerMultiprocessor = (int)TESSERA_MMIO(TESSERA_DEV_REGS_PER_SM);
  p->regsPerBlock = p->regsPerMultiprocessor;
  p->warpSize = (int)TESSERA_MMIO(TESSERA_DEV_WARP_SIZE);
  p->memPitch = 0x7FFFFFFF;
  p->maxThreadsPerBlock = (int)TESSERA_MMIO(TESSERA_DEV_MAX_THREADS_PER_BLOCK);
  p->maxThreadsDim[0] = p->maxThreadsPerBlock;
  p->maxThreadsDim[1] = p->maxThreadsPerBlock;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7FFFFFFF;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->clockRate = (int)TESSERA_MMIO(TESSERA_DEV_SM_CLOCK_KHZ);
  p->totalConstMem = 65536;
  p->major = 5;
  p->minor = 2;
  p->textureAlignment = 512;
  p->multiProcessorCount = (int)sms;
  p->integrated = 1; /* the control cores and the SMs share memory */
  p->canMapHostMemory = 1;
  p->unifiedAddressing = 1;
  p->managedMemory = 1;
  p->concurrentManagedAccess = 1;
  p->pageableMemoryAccess = 1;
  p->memoryClockRate = (int)TESSERA_MMIO(TESSERA_DEV_MEM_CLOCK_KHZ);
  p->memoryBusWidth = (int)TESSERA_MMIO(TESSERA_DEV_MEM_BUS_BITS);
  p->l2CacheSize = (int)TESSERA_MMIO(TESSERA_DEV_L2_BYTES);
  p->maxThreadsPerMultiProcessor = (int)TESSERA_MMIO(TESSERA_DEV_MAX_THREADS_PER_SM);
  p->maxBlocksPerMultiProcessor = (int)TESSERA_MMIO(TESSERA_DEV_MAX_BLOCKS_PER_SM);
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->singleToDoublePrecisionPerfRatio = 32;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  cudaDeviceProp p;
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) return e;
  if (value == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = (int)p.sharedMemPerBlock;
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = (int)p.totalConstMem;
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = p.clockRate;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = p.memoryClockRate;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = (int)p.sharedMemPerMultiprocessor;
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    default:
      return tessera_cuda::fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize(void) {
  tessera_cuda::check_unread_launch("cudaDeviceSynchronize");
  tessera_cuda::synchronize();
  return cudaSuccess;
}
inline cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
inline cudaError_t cudaDeviceReset(void) {
  tessera_cuda::check_unread_launch("cudaDeviceReset");
  tessera_cuda::synchronize();
  tessera_cuda::state.last_error = cudaSuccess;
  return cudaSuccess;
}
inline cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

/* The L1/shared split and bank width are platform parameters (sm.*): these
 * accept every value and change nothing. */
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
template <class _Fp>
inline cudaError_t cudaFuncSetCacheConfig(_Fp*, cudaFuncCache) {
  return cudaSuccess;
}
template <class _Fp>
inline cudaError_t cudaFuncSetSharedMemConfig(_Fp*, cudaSharedMemConfig) {
  return cudaSuccess;
}

/* ------------------------------------------------------------------------ */
/* Memory: device memory is global memory                                    */
/* ------------------------------------------------------------------------ */

namespace tessera_cuda {
/* 256-byte aligned and a multiple of 256 bytes, so that no device buffer
 * shares a cache line with a host allocation. */
inline void* device_alloc(size_t size) { return aligned_alloc(256, (size + 255) / 256 * 256); }
}  // namespace tessera_cuda

inline cudaError_t cudaMalloc(void** p, size_t size) {
  tessera_cuda::check_unread_launch("cudaMalloc");
  if (p == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *p = tessera_cuda::device_alloc(size);
  return *p != nullptr || size == 0 ? cudaSuccess : tessera_cuda::fail(cudaErrorMemoryAllocation);
}
template <class _Tp>
inline cudaError_t cudaMalloc(_Tp** p, size_t size) {
  return cudaMalloc((void**)(void*)p, size);
}
inline cudaError_t cudaMallocManaged(void** p, size_t size, unsigned = cudaMemAttachGlobal) {
  return cudaMalloc(p, size);
}
template <class _Tp>
inline cudaError_t cudaMallocManaged(_Tp** p, size_t size, unsigned flags = cudaMemAttachGlobal) {
  return cudaMallocManaged((void**)(void*)p, size, flags);
}
inline cudaError_t cudaMallocHost(void** p, size_t size) { return cudaMalloc(p, size); }
template <class _Tp>
inline cudaError_t cudaMallocHost(_Tp** p, size_t size) {
  return cudaMalloc((void**)(void*)p, size);
}
inline cudaError_t cudaHostAlloc(void** p, size_t size, unsigned) { return cudaMalloc(p, size); }
template <class _Tp>
inline cudaError_t cudaHostAlloc(_Tp** p, size_t size, unsigned flags) {
  return cudaHostAlloc((void**)(void*)p, size, flags);
}
inline cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *pitch = (width + 255) / 256 * 256;
  return cudaMalloc(p, *pitch * height);
}
template <class _Tp>
inline cudaError_t cudaMallocPitch(_Tp** p, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch((void**)(void*)p, pitch, width, height);
}
/* The memory may still be read by queued kernels: free it after them. */
inline cudaError_t cudaFree(void* p) {
  tessera_cuda::check_unread_launch("cudaFree");
  tessera_cuda::synchronize();
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }
inline cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned) {
  if (device == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *device = host;
  return cudaSuccess;
}
inline cudaError_t cudaHostRegister(void*, size_t, unsigned) { return cudaSuccess; }
inline cudaError_t cudaHostUnregister(void*) { return cudaSuccess; }
inline cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t = nullptr) { return cudaSuccess; }
inline cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  if (free_bytes == nullptr || total == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *total = (size_t)TESSERA_MMIO(TESSERA_DEV_GLOBAL_MIB) << 20;
  *free_bytes = *total; /* the allocator does not report what is left */
  return cudaSuccess;
}

/* Synchronous copies and sets: the queued work first, then the control core
 * copies (its cycles are the copy's simulated cost). */
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  tessera_cuda::check_unread_launch("cudaMemcpy");
  if (!tessera_cuda::valid_kind(kind)) return tessera_cuda::fail(cudaErrorInvalidMemcpyDirection);
  if (count != 0 && (dst == nullptr || src == nullptr)) return tessera_cuda::fail(cudaErrorInvalidValue);
  tessera_cuda::synchronize();
  memmove(dst, src, count);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(dst, src, count, kind);
}
inline cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                                cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return tessera_cuda::fail(cudaErrorInvalidValue);
  for (size_t r = 0; r < height; ++r) {
    const cudaError_t e = cudaMemcpy((char*)dst + r * dpitch, (const char*)src + r * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* p, int value, size_t count) {
  tessera_cuda::check_unread_launch("cudaMemset");
  if (count != 0 && p == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  tessera_cuda::synchronize();
  memset(p, value, count);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* p, int value, size_t count, cudaStream_t = nullptr) {
  return cudaMemset(p, value, count);
}

/* __device__ and __constant__ variables are ordinary globals: the symbol is
 * its own address. */
template <class _Tp>
inline cudaError_t cudaMemcpyToSymbol(const _Tp& symbol, const void* src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (offset + count > sizeof(_Tp)) return tessera_cuda::fail(cudaErrorInvalidValue);
  return cudaMemcpy((char*)(void*)&symbol + offset, src, count, kind);
}
template <class _Tp>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const _Tp& symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (offset + count > sizeof(_Tp)) return tessera_cuda::fail(cudaErrorInvalidValue);
  return cudaMemcpy(dst, (const char*)(const void*)&symbol + offset, count, kind);
}
template <class _Tp>
inline cudaError_t cudaMemcpyToSymbolAsync(const _Tp& symbol, const void* src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class _Tp>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const _Tp& symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = nullptr) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class _Tp>
inline cudaError_t cudaGetSymbolAddress(void** p, const _Tp& symbol) {
  if (p == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *p = (void*)&symbol;
  return cudaSuccess;
}
template <class _Tp>
inline cudaError_t cudaGetSymbolSize(size_t* size, const _Tp&) {
  if (size == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *size = sizeof(_Tp);
  return cudaSuccess;
}

/* ------------------------------------------------------------------------ */
/* Streams and events                                                        */
/* ------------------------------------------------------------------------ */

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  tessera_cuda::check_unread_launch("cudaStreamCreate");
  if (s == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *s = (cudaStream_t)malloc(sizeof(tessera_cuda_stream));
  if (*s == nullptr) return tessera_cuda::fail(cudaErrorMemoryAllocation);
  (*s)->flags = (int)flags;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int) {
  return cudaStreamCreateWithFlags(s, flags);
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  tessera_cuda::check_unread_launch("cudaStreamDestroy");
  if (s == nullptr) return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  free(s);
  return cudaSuccess;
}
/* Kernels run in launch order, so a stream's work is done when all is. */
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
inline cudaError_t cudaStreamQuery(cudaStream_t) {
  tessera_cuda::check_unread_launch("cudaStreamQuery");
  return TESSERA_MMIO(TESSERA_DISP_STATUS) == 0 ? cudaSuccess : cudaErrorNotReady;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { return cudaSuccess; }

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  tessera_cuda::check_unread_launch("cudaEventCreate");
  if (e == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  *e = (cudaEvent_t)calloc(1, sizeof(tessera_cuda_event));
  if (*e == nullptr) return tessera_cuda::fail(cudaErrorMemoryAllocation);
  (*e)->flags = (int)flags;
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }
inline cudaError_t cudaEventCreate(cudaEvent_t* e, unsigned flags) { return cudaEventCreateWithFlags(e, flags); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (e == nullptr) return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  free(e);
  return cudaSuccess;
}
/* The event completes when the kernels launched before it have ended; its
 * time is the end of the last of them, or now if they all had ended. */
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) {
  tessera_cuda::check_unread_launch("cudaEventRecord");
  if (e == nullptr) return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  const unsigned launched = tessera_cuda::kernels_launched();
  e->recorded = 1;
  if (tessera_cuda::kernels_done() == launched) {
    e->kernel = 0;
    e->ps = tessera_cuda::now_ps();
  } else {
    e->kernel = launched;
    e->ps = ~0ull;
  }
  return cudaSuccess;
}
namespace tessera_cuda {
/* Fills in the event's time once its kernel has ended; true if known. */
inline bool event_done(cudaEvent_t e) {
  if (e->ps != ~0ull) return true;
  if ((int)(kernels_done() - e->kernel) < 0) return false;
  e->ps = kernel_end_ps(e->kernel);
  if (e->ps == ~0ull) {
    fprintf(stdout, "tessera: cudaEvent: the end of kernel %u is no longer known (more than 1024 kernels ago)\n",
            e->kernel);
    tessera_exit(4);
  }
  return true;
}
}  // namespace tessera_cuda
inline cudaError_t cudaEventQuery(cudaEvent_t e) {
  tessera_cuda::check_unread_launch("cudaEventQuery");
  if (e == nullptr) return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  return !e->recorded || tessera_cuda::event_done(e) ? cudaSuccess : cudaErrorNotReady;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  tessera_cuda::check_unread_launch("cudaEventSynchronize");
  if (e == nullptr) return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  while (e->recorded && !tessera_cuda::event_done(e)) __asm__ volatile("wfi" ::: "memory");
  return cudaSuccess;
}
/* Milliseconds of simulated time between two completed events. */
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  tessera_cuda::check_unread_launch("cudaEventElapsedTime");
  if (ms == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  if (start == nullptr || end == nullptr) return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded || (start->flags | end->flags) & cudaEventDisableTiming)
    return tessera_cuda::fail(cudaErrorInvalidResourceHandle);
  if (!tessera_cuda::event_done(start) || !tessera_cuda::event_done(end)) return cudaErrorNotReady;
  *ms = (float)((double)(long long)(end->ps - start->ps) * 1e-9);
  return cudaSuccess;
}

/* ------------------------------------------------------------------------ */
/* Launch without <<<>>>                                                     */
/* ------------------------------------------------------------------------ */

namespace tessera_cuda {
template <unsigned... _Ip>
struct Indices {};
template <unsigned _Np, unsigned... _Ip>
struct MakeIndices : MakeIndices<_Np - 1, _Np - 1, _Ip...> {};
template <unsigned... _Ip>
struct MakeIndices<0, _Ip...> {
  using type = Indices<_Ip...>;
};
template <class... _Pp, unsigned... _Ip>
inline cudaError_t launch_from_pointers(void (*kernel)(_Pp...), const LaunchConfig& c, void** args, Indices<_Ip...>) {
  return launch(kernel, c, *static_cast<_Pp*>(args[_Ip])...);
}
}  // namespace tessera_cuda

/* args[i] points to the i-th argument, of the kernel's i-th parameter type
 * (the kernel itself, not a void pointer to it: its type gives the
 * parameter list). */
template <class... _Pp>
inline cudaError_t cudaLaunchKernel(void (*kernel)(_Pp...), dim3 grid, dim3 block, void** args, size_t shared = 0,
                                    cudaStream_t stream = nullptr) {
  if (sizeof...(_Pp) != 0 && args == nullptr) return tessera_cuda::fail(cudaErrorInvalidValue);
  return tessera_cuda::launch_from_pointers(kernel, tessera_cuda::LaunchConfig{grid, block, shared, stream}, args,
                                            typename tessera_cuda::MakeIndices<sizeof...(_Pp)>::type{});
}

/* ------------------------------------------------------------------------ */
/* Profiler (cuda_profiler_api.h): the region of interest                    */
/* ------------------------------------------------------------------------ */

inline cudaError_t cudaProfilerStart(void) {
  tessera_roi_begin();
  return cudaSuccess;
}
inline cudaError_t cudaProfilerStop(void) {
  tessera_roi_end();
  return cudaSuccess;
}

#endif /* TESSERA_CUDA_RUNTIME_H */
