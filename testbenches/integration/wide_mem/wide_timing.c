/* Timing of the wide shared-memory accesses and the coalescing of wide
 * global accesses, one warp (32 threads, one block). Each timed sequence is
 * `csrr t0; access; add (reads the last register of the group); csrr t1`:
 * the access dual-issues with the first clock read, the add issues when the
 * group is readable, the second clock read the cycle after. The expected
 * values are derived by hand in wide_mem_test.cpp. */
#include <tessera.h>

static volatile unsigned result[16];

__shared__ uint4 sbuf[32 * 2]; /* 1 KiB: room for a 32-byte stride */
__shared__ unsigned long long scount[32];

/* Lets an address register and operands become readable (ALU latency 6). */
#define SETTLE ".rept 8\n nop\n .endr\n"

#define TIMED(slot, access, use)                                                                                 \
  do {                                                                                                           \
    unsigned t0, t1;                                                                                             \
    __asm__ volatile(SETTLE "csrr %0, cycle\n" access "\n" use "\ncsrr %1, cycle\n"                              \
                     : "=&r"(t0), "=&r"(t1)                                                                      \
                     : "r"(a)                                                                                    \
                     : "a0", "a1", "a2", "a3", "a4", "a5", "t3", "t4", "t5", "t6", "ft8", "ft9", "ft10", "ft11", \
                       "memory");                                                                                \
    if (lane == 0) result[slot] = t1 - t0;                                                                       \
  } while (0)

TESSERA_KERNEL void shared_timing(void* argp) {
  (void)argp;
  const unsigned lane = tessera_lane_id();
  char* base = (char*)sbuf;
  const char* a;
  /* Scalar lw, consecutive words: the baseline, one pass. */
  a = base + 4 * lane;
  TIMED(0, "lw a0, 0(%2)", "add a2, a0, zero");
  /* ld.v2, consecutive 8-byte elements: two half-warp passes. */
  a = base + 8 * lane;
  TIMED(1, ".insn i 0x5B, 0, a0, 0(%2)", "add a2, a1, zero");
  /* ld.v4, consecutive 16-byte elements: four quarter-warp passes. */
  a = base + 16 * lane;
  TIMED(2, ".insn i 0x5B, 1, t3, 0(%2)", "add a2, t6, zero");
  /* fld.v4, the same addresses: four passes. */
  TIMED(3, ".insn i 0x5B, 3, ft8, 0(%2)", "fmv.x.w a2, ft11");
  /* ld.v2 with a 16-byte stride: two-way conflicts in each half-warp. */
  TIMED(4, ".insn i 0x5B, 0, a0, 0(%2)", "add a2, a1, zero");
  /* ld.v4 with a 32-byte stride: two-way conflicts in each quarter-warp. */
  a = base + 32 * lane;
  TIMED(5, ".insn i 0x5B, 1, t3, 0(%2)", "add a2, t6, zero");
  /* ld.v2, every lane the same 8 bytes: one broadcast pass per half-warp. */
  a = base;
  TIMED(6, ".insn i 0x5B, 0, a0, 0(%2)", "add a2, a1, zero");
  /* atom.add64 on consecutive 64-bit counters: two atomic passes. */
  a = (const char*)&scount[lane];
  {
    unsigned t0, t1;
    __asm__ volatile("li a4, 1\n li a5, 0\n" SETTLE
                     "csrr %0, cycle\n"
                     ".insn r 0x2B, 3, 0, a0, %2, a4\n"
                     "add a2, a1, zero\n"
                     "csrr %1, cycle\n"
                     : "=&r"(t0), "=&r"(t1)
                     : "r"(a)
                     : "a0", "a1", "a2", "a4", "a5", "memory");
    if (lane == 0) result[7] = t1 - t0;
  }
}

/* One warp: ld.v4 of 32 consecutive float4 (512 bytes), then st.v4 of them
 * elsewhere; ld.v2 of 32 consecutive uint2 (256 bytes). */
TESSERA_KERNEL void global_coalescing(void* argp) {
  float4* v = (float4*)argp;
  const unsigned i = threadIdx.x;
  const float4 x = tessera_ld_float4(&v[i]);
  tessera_st_float4(&v[32 + i], x);
  const uint2 y = tessera_ld_uint2((const uint2*)&v[64] + i);
  if (y.x != 2 * i || y.y != 2 * i + 1) result[8] = 1;
}

static float4 gbuf[96] __attribute__((aligned(128))); /* line-aligned */

int main(void) {
  tessera_launch(shared_timing, 1, 32, 0, 0);
  tessera_wait();
  uint2* u = (uint2*)&gbuf[64];
  for (unsigned k = 0; k < 32; ++k) u[k] = make_uint2(2 * k, 2 * k + 1);
  for (unsigned k = 0; k < 32; ++k) gbuf[k] = make_float4(k, k + 0.25f, k + 0.5f, k + 0.75f);
  tessera_launch_ref(global_coalescing, 1, 32, 0, gbuf);
  tessera_wait();
  unsigned copy_errors = 0;
  for (unsigned k = 0; k < 32; ++k)
    if (gbuf[32 + k].x != k || gbuf[32 + k].w != k + 0.75f) ++copy_errors;
  static const char* const names[] = {"shared_lw",         "shared_ld_v2",          "shared_ld_v4",
                                      "shared_fld_v4",     "shared_ld_v2_stride16", "shared_ld_v4_stride32",
                                      "shared_ld_v2_same", "shared_atom_add64"};
  for (unsigned k = 0; k < 8; ++k) printf("RESULT %s %u\n", names[k], result[k]);
  printf("RESULT global_copy_errors %u\n", copy_errors + result[8]);
  return copy_errors + result[8] ? 1 : 0;
}
