/*
 * Tessera runtime: kernel launch with captured parameters, kernel printf,
 * console stdio for picolibc, exit, simulated time and the POSIX calls
 * benchmark harnesses make. Runs on the control core, except
 * tessera_printf() and clock(), which kernels call too (MMIO is unreachable
 * from them).
 */
#include "tessera.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- kernel launch ------------------------------------------------------ */

#ifdef TESSERA_RUNTIME_CXX
/* Programs with C++ code (tessera-cc defines TESSERA_RUNTIME_CXX for them):
 * a CUDA launch starts its threads at an entry of its own
 * (tessera_launch_at). C programs keep the code below unchanged. */
static const void* launch_start = (const void*)&__tessera_kernel_entry;
#define TESSERA_LAUNCH_START launch_start
#else
#define TESSERA_LAUNCH_START (&__tessera_kernel_entry)
#endif

void tessera_launch_dim3(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                         const void* args) {
  /* DISP_SHARED_BYTES is the dynamic area only: the dispatcher adds the
   * kernel's static window from the kernel record (docs/firmware-abi.md). */
  unsigned shared_bytes = dynamic_shared_bytes;

  /* The kernel must see every store made before the launch. */
  __asm__ volatile("fence rw, rw" ::: "memory");

  TESSERA_MMIO(TESSERA_DISP_START) = (uint32_t)(uintptr_t)TESSERA_LAUNCH_START;
  TESSERA_MMIO(TESSERA_DISP_KERNEL) = (uint32_t)(uintptr_t)kernel;
  TESSERA_MMIO(TESSERA_DISP_ARGS) = (uint32_t)(uintptr_t)args;
  TESSERA_MMIO(TESSERA_DISP_GRID_X) = grid.x;
  TESSERA_MMIO(TESSERA_DISP_GRID_Y) = grid.y;
  TESSERA_MMIO(TESSERA_DISP_GRID_Z) = grid.z;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_X) = block.x;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Y) = block.y;
  TESSERA_MMIO(TESSERA_DISP_BLOCK_Z) = block.z;
  TESSERA_MMIO(TESSERA_DISP_SHARED_BYTES) = shared_bytes;
  TESSERA_MMIO(TESSERA_DISP_REGS) = 0; /* sm.regs_per_thread_default */
  TESSERA_MMIO(TESSERA_DISP_LAUNCH) = 1;
}

/* ---- launch state -------------------------------------------------------- */

/* The runtime's own variables, written while kernels run: alone in their
 * cache lines (256 bytes, aligned), so that writing them never writes back a
 * stale copy of data a kernel writes (a control core must not write a line a
 * kernel writes: docs/firmware-abi.md). */
static struct {
  unsigned launches;  /* tessera_launch_bytes() calls so far */
  unsigned done_base; /* DISP_DONE_COUNT when none of them had finished */
  int printf_ready;   /* the printf buffer's header is initialised */
  char pad[256 - 3 * sizeof(unsigned)];
} rt __attribute__((aligned(256)));

/* ---- kernel printf buffer (tessera.ld: __tessera_printf_buffer) --------- */

/* The buffer: this header, then records appended by kernels. A record is
 * its size (bytes, a multiple of 4, header and NUL included), the block and
 * thread of the caller, the text length and the text. */
struct tessera_printf_header {
  volatile unsigned used;    /* bytes reserved (may pass the capacity) */
  volatile unsigned dropped; /* calls whose record did not fit */
  unsigned pad[2];
};
struct tessera_printf_record {
  unsigned size;
  unsigned block[3];
  unsigned short thread[3];
  unsigned short len;
  char text[];
};

extern char __tessera_printf_buffer[];
extern char __tessera_printf_size[]; /* its address is the buffer's size (tessera.ld) */
#define PRINTF_BYTES ((unsigned)(uintptr_t)__tessera_printf_size)
#define PRINTF_HEADER ((struct tessera_printf_header*)(uintptr_t)__tessera_printf_buffer)
#define PRINTF_DATA (__tessera_printf_buffer + sizeof(struct tessera_printf_header))
#define PRINTF_CAPACITY (PRINTF_BYTES - (unsigned)sizeof(struct tessera_printf_header))
#define PRINTF_LINE 256u

/* On an SM thread: format, reserve the record's space with one atomic add,
 * write it. A record that does not fit is dropped and counted; if its size
 * word fits it is written, so the flush stops there. */
static int device_vprintf(const char* format, va_list ap) {
  char line[PRINTF_LINE];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(line, sizeof line, format, ap);
  if (n < 0) n = 0;
  if (n > 0xFFFF) n = 0xFFFF;
  const unsigned len = (unsigned)n;
  const unsigned size = ((unsigned)sizeof(struct tessera_printf_record) + len + 1u + 3u) & ~3u;
  const unsigned at = atomicAdd(&PRINTF_HEADER->used, size);
  if (at > PRINTF_CAPACITY || size > PRINTF_CAPACITY - at) {
    if (at <= PRINTF_CAPACITY - 4u) *(volatile unsigned*)(uintptr_t)(PRINTF_DATA + at) = size;
    atomicAdd(&PRINTF_HEADER->dropped, 1u);
    va_end(again);
    return -1;
  }
  struct tessera_printf_record* r = (struct tessera_printf_record*)(uintptr_t)(PRINTF_DATA + at);
  r->size = size;
  r->block[0] = tessera_ctaid_x();
  r->block[1] = tessera_ctaid_y();
  r->block[2] = tessera_ctaid_z();
  r->thread[0] = (unsigned short)tessera_tid_x();
  r->thread[1] = (unsigned short)tessera_tid_y();
  r->thread[2] = (unsigned short)tessera_tid_z();
  r->len = (unsigned short)len;
  if (len < sizeof line)
    memcpy(r->text, line, len + 1u);
  else
    vsnprintf(r->text, len + 1u, format, again); /* longer than the line: format in place */
  va_end(again);
  return n;
}

int tessera_printf(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int n = tessera_on_sm() ? device_vprintf(format, ap) : vfprintf(stdout, format, ap);
  va_end(ap);
  return n;
}

/* Prints the records kernels appended (no kernel may be running), each line
 * prefixed with its block and thread, then the count of dropped calls, and
 * empties the buffer. */
static void printf_flush(void) {
  struct tessera_printf_header* h = PRINTF_HEADER;
  const unsigned used = h->used, dropped = h->dropped;
  if (used == 0 && dropped == 0) return;
  const unsigned end = used < PRINTF_CAPACITY ? used : PRINTF_CAPACITY;
  unsigned at = 0;
  while (at + sizeof(struct tessera_printf_record) <= end) {
    const struct tessera_printf_record* r = (const struct tessera_printf_record*)(uintptr_t)(PRINTF_DATA + at);
    if (r->size < sizeof(struct tessera_printf_record) || r->size > end - at) break;
    const char* text = r->text;
    const char* stop = text + r->len;
    do {
      fprintf(stdout, "[block (%u,%u,%u) thread (%u,%u,%u)] ", r->block[0], r->block[1], r->block[2], r->thread[0],
              r->thread[1], r->thread[2]);
      const char* nl = memchr(text, '\n', (size_t)(stop - text));
      const char* line_end = nl ? nl : stop;
      fwrite(text, 1, (size_t)(line_end - text), stdout);
      putc('\n', stdout);
      text = nl ? nl + 1 : stop;
    } while (text < stop);
    at += r->size;
  }
  if (dropped != 0)
    fprintf(stdout, "[tessera: %u kernel printf call%s dropped: the %u-byte printf buffer was full]\n", dropped,
            dropped == 1 ? "" : "s", PRINTF_BYTES);
  h->used = 0;
  h->dropped = 0;
}

/* ---- launch with captured parameters ----------------------------------- */

extern char __tessera_params[];

void tessera_launch_bytes(tessera_kernel_fn kernel, dim3 grid, dim3 block, unsigned dynamic_shared_bytes,
                          const void* args, size_t args_bytes) {
  if (args_bytes > TESSERA_PARAM_BYTES) {
    fprintf(stdout, "tessera_launch: %u bytes of kernel arguments; the parameter area holds %u (TESSERA_PARAM_BYTES)\n",
            (unsigned)args_bytes, TESSERA_PARAM_BYTES);
    tessera_exit(4);
  }
  if (!rt.printf_ready) {
    PRINTF_HEADER->used = 0;
    PRINTF_HEADER->dropped = 0;
    rt.printf_ready = 1;
    rt.done_base = TESSERA_MMIO(TESSERA_DISP_DONE_COUNT) - rt.launches;
  } else if (PRINTF_HEADER->used > PRINTF_CAPACITY / 2u || PRINTF_HEADER->dropped != 0) {
    tessera_wait(); /* prints the buffer before it overflows */
  }
  /* dim3 b = {16, 16} leaves z 0: CUDA's missing dimensions are 1. */
  if (grid.y == 0) grid.y = 1;
  if (grid.z == 0) grid.z = 1;
  if (block.y == 0) block.y = 1;
  if (block.z == 0) block.z = 1;

  const void* a0 = args;
  if (args != NULL && args_bytes != 0) {
    const unsigned n = rt.launches;
    if (n >= TESSERA_PARAM_SLOTS) {
      /* The slot's previous launch (n - SLOTS) must have finished. */
      const unsigned need = rt.done_base + (n - TESSERA_PARAM_SLOTS) + 1u;
      while ((int)(TESSERA_MMIO(TESSERA_DISP_DONE_COUNT) - need) < 0) __asm__ volatile("wfi" ::: "memory");
    }
    char* slot = __tessera_params + (n % TESSERA_PARAM_SLOTS) * TESSERA_PARAM_BYTES;
    memcpy(slot, args, args_bytes);
    a0 = slot;
  }
  ++rt.launches;
  tessera_launch_dim3(kernel, grid, block, dynamic_shared_bytes, a0);
}

#ifdef TESSERA_RUNTIME_CXX
void tessera_launch_at(const void* start, tessera_kernel_fn kernel, dim3 grid, dim3 block,
                       unsigned dynamic_shared_bytes, const void* args, size_t args_bytes) {
  launch_start = start;
  tessera_launch_bytes(kernel, grid, block, dynamic_shared_bytes, args, args_bytes);
  launch_start = (const void*)&__tessera_kernel_entry;
}
#endif

void tessera_wait(void) {
  while (TESSERA_MMIO(TESSERA_DISP_STATUS) != 0) __asm__ volatile("wfi" ::: "memory");
  /* Order the reads of the kernel's results after the status read. */
  __asm__ volatile("fence rw, rw" ::: "memory");
  if (rt.printf_ready) {
    rt.done_base = TESSERA_MMIO(TESSERA_DISP_DONE_COUNT) - rt.launches; /* every launch has finished */
    printf_flush();
  }
}

void tessera_roi_begin(void) {
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_ROI) = 1;
}

void tessera_roi_end(void) {
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_ROI) = 0;
}

/* ---- control-core cluster ------------------------------------------------ */

extern void __tessera_hart_entry(void);
extern char __stack_bottom[];
extern char __hart_stack_size[];

unsigned tessera_num_cores(void) { return TESSERA_MMIO(TESSERA_NUM_CORES); }

void tessera_core_start(unsigned hart, void (*fn)(void* arg), void* arg) {
  uintptr_t sp = (uintptr_t)__stack_bottom - (uintptr_t)(hart - 1u) * (uintptr_t)__hart_stack_size;
  /* The started core must see every store made before (TSO buffers). */
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_HART_PC) = (uint32_t)(uintptr_t)&__tessera_hart_entry;
  TESSERA_MMIO(TESSERA_HART_FN) = (uint32_t)(uintptr_t)fn;
  TESSERA_MMIO(TESSERA_HART_ARG) = (uint32_t)(uintptr_t)arg;
  TESSERA_MMIO(TESSERA_HART_SP) = (uint32_t)sp;
  TESSERA_MMIO(TESSERA_HART_START) = hart;
}

void tessera_core_join(unsigned hart) {
  while (TESSERA_MMIO(TESSERA_HART_RUNNING) & (1u << hart)) __asm__ volatile("wfi" ::: "memory");
  __asm__ volatile("fence rw, rw" ::: "memory");
}

/* ---- exit ---------------------------------------------------------------- */

void tessera_exit(int status) {
  __asm__ volatile("fence rw, rw" ::: "memory");
  TESSERA_MMIO(TESSERA_EXIT) = (uint32_t)status;
  for (;;) __asm__ volatile("wfi");
}

/* picolibc's exit() ends here. */
void _exit(int status) { tessera_exit(status); }

/* ---- signals: abort() and assert() --------------------------------------- */

/* The chip runs one process, number 1. picolibc's abort(), and so a failed
 * assert() after printing its message, raises SIGABRT, whose default action
 * is kill(getpid(), SIGABRT): the run ends with status 128 + the signal (134
 * for abort), as a shell reports a process a signal ended. */
pid_t getpid(void) { return 1; }

int kill(pid_t pid, int sig) {
  if (pid != 1 && pid != 0 && pid != -1) {
    errno = ESRCH;
    return -1;
  }
  if (sig == 0) return 0;
  printf("tessera: the program raised signal %d%s: exit status %d\n", sig, sig == SIGABRT ? " (abort)" : "", 128 + sig);
  tessera_exit(128 + sig);
  return 0;
}

/* A failed assert(). On a control core: picolibc's message, then abort()
 * (status 134). On an SM thread, which cannot reach the console: ebreak
 * with the file, line, function and expression in a0..a3 and
 * TESSERA_ASSERT_MAGIC in a7; the SM stops the run with them (a guest
 * fault, status 3, naming block and thread). */
#define TESSERA_ASSERT_MAGIC 0x41535254u /* "ASRT": isa::kAssertMagic */
void __assert_func(const char* file, int line, const char* func, const char* expr) {
  if (tessera_on_sm()) {
    register const char* a0 __asm__("a0") = file;
    register int a1 __asm__("a1") = line;
    register const char* a2 __asm__("a2") = func;
    register const char* a3 __asm__("a3") = expr;
    register unsigned a7 __asm__("a7") = TESSERA_ASSERT_MAGIC;
    __asm__ volatile("ebreak" ::"r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(a7) : "memory");
    __builtin_unreachable();
  }
  fprintf(stderr, "assertion \"%s\" failed: file \"%s\", line %d%s%s\n", expr, file, line, func ? ", function: " : "",
          func ? func : "");
  abort();
}

/* ---- console stdio (picolibc tinystdio) ---------------------------------- */

static int tessera_console_put(char c, FILE* file) {
  (void)file;
  TESSERA_MMIO(TESSERA_CONSOLE_TX) = (uint32_t)(unsigned char)c;
  return (unsigned char)c;
}

/* The console has no input: reads see end of file. */
static int tessera_console_get(FILE* file) {
  (void)file;
  return _FDEV_EOF;
}

static FILE tessera_console = FDEV_SETUP_STREAM(tessera_console_put, tessera_console_get, NULL, _FDEV_SETUP_RW);

FILE* const stdin = &tessera_console;
FILE* const stdout = &tessera_console;
FILE* const stderr = &tessera_console;

/* ---- files: there is no file system ---------------------------------------- */

/* Firmware cannot reach the host's files (docs/firmware-abi.md, "Host-side
 * C library"): fopen() and open() fail with ENOENT, so a program that takes
 * an optional input file links and reports the failure its own way. Writes
 * to descriptors 1 and 2 go to the console; there is nothing to read. */
int open(const char* path, int flags, ...) {
  (void)path;
  (void)flags;
  errno = ENOENT;
  return -1;
}
int close(int fd) {
  (void)fd;
  errno = EBADF;
  return -1;
}
ssize_t read(int fd, void* buf, size_t count) {
  (void)buf;
  (void)count;
  errno = fd == 0 ? 0 : EBADF;
  return fd == 0 ? 0 : -1;
}
ssize_t write(int fd, const void* buf, size_t count) {
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  for (size_t i = 0; i < count; ++i) tessera_console_put(((const char*)buf)[i], stdout);
  return (ssize_t)count;
}
off_t lseek(int fd, off_t offset, int whence) {
  (void)fd;
  (void)offset;
  (void)whence;
  errno = ESPIPE;
  return -1;
}

/* ---- simulated time (docs/firmware-abi.md, "Host-side C library") -------- */

/* n / d, and n % d in *remainder, for d < 2^28 (CLOCK_KHZ is at most 10^8)
 * with 32-bit divides: one when n fits in 32 bits, else one per 4 bits of
 * its low word. The runtime calls no library function (libgcc's
 * __udivdi3, memset) that programs do not link already: the linker would
 * pull it in earlier and so move code in every program, whose timing
 * depends on where its code lies (the L1I lines it fetches). */
static uint64_t divide(uint64_t n, uint32_t d, uint32_t* remainder) {
  const uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
  if (hi == 0) {
    const uint32_t q = lo / d;
    *remainder = lo - q * d;
    return q;
  }
  const uint32_t q_hi = hi / d;
  uint32_t r = hi - q_hi * d, q_lo = 0;
  for (int shift = 28; shift >= 0; shift -= 4) {
    const uint32_t t = (r << 4) | ((lo >> shift) & 15u); /* r < d < 2^28: fits */
    const uint32_t q = t / d;                            /* < 16 */
    r = t - q * d;
    q_lo = (q_lo << 4) | q;
  }
  *remainder = r;
  return ((uint64_t)q_hi << 32) | q_lo;
}

/* The control core's cycle counter over its clock (CLOCK_KHZ: cycles per
 * millisecond): seconds and nanoseconds since cycle 0, the start of the
 * simulation, rounded down. */
static struct timespec simulated_time(void) {
  const uint32_t khz = TESSERA_MMIO(TESSERA_CLOCK_KHZ);
  const uint64_t cycles = tessera_clock64();
  uint32_t cycles_rest, ms_rest, us_rest, ns_rest;
  const uint64_t ms = divide(cycles, khz, &cycles_rest);
  struct timespec t;
  t.tv_sec = (time_t)divide(ms, 1000u, &ms_rest);
  /* cycles_rest / khz of a millisecond, in ns: two steps of three digits. */
  const uint32_t us = (uint32_t)divide((uint64_t)cycles_rest * 1000u, khz, &us_rest);
  const uint32_t ns = (uint32_t)divide((uint64_t)us_rest * 1000u, khz, &ns_rest);
  t.tv_nsec = (long)(ms_rest * 1000000u + us * 1000u + ns);
  return t;
}

int gettimeofday(struct timeval* restrict tv, void* restrict tz) {
  if (tv) {
    const struct timespec t = simulated_time();
    tv->tv_sec = t.tv_sec;
    tv->tv_usec = (suseconds_t)(t.tv_nsec / 1000);
  }
  if (tz) {
    struct timezone* z = tz;
    z->tz_minuteswest = 0; /* UTC, no daylight saving */
    z->tz_dsttime = 0;
  }
  return 0;
}

/* Every clock reads the same simulated time: the chip runs one process,
 * alone on its cores since the start, so its CPU time is its age.
 * CLOCK_THREAD_CPUTIME_ID (a started core's own time) is not offered. */
static int known_clock(clockid_t id) {
  switch (id) {
    case 0: /* CLOCK_REALTIME_COARSE */
    case CLOCK_REALTIME:
    case CLOCK_PROCESS_CPUTIME_ID:
    case CLOCK_MONOTONIC:
    case 5: /* CLOCK_MONOTONIC_RAW */
    case 6: /* CLOCK_MONOTONIC_COARSE */
    case 7: /* CLOCK_BOOTTIME */
      return 1;
    default:
      return 0;
  }
}

int clock_gettime(clockid_t clock_id, struct timespec* tp) {
  if (!known_clock(clock_id)) {
    errno = EINVAL;
    return -1;
  }
  if (!tp) {
    errno = EFAULT;
    return -1;
  }
  *tp = simulated_time();
  return 0;
}

/* One cycle, rounded up to a whole nanosecond. */
int clock_getres(clockid_t clock_id, struct timespec* res) {
  if (!known_clock(clock_id)) {
    errno = EINVAL;
    return -1;
  }
  if (res) {
    const uint32_t khz = TESSERA_MMIO(TESSERA_CLOCK_KHZ);
    res->tv_sec = 0;
    res->tv_nsec = (long)((1000000u + khz - 1u) / khz); /* 32-bit: khz <= 10^8 */
  }
  return 0;
}

/* picolibc's time() calls gettimeofday(). */

/* The function clock(), for code that does not include tessera.h (whose
 * clock() macro is CUDA's: the cycle counter on both core types); the
 * parentheses keep the macro from expanding. On a control core, C's
 * processor time: simulated time in CLOCKS_PER_SEC units (picolibc's 10^6:
 * microseconds), (clock_t)-1 once it no longer fits (2^32 - 1 us, about 71
 * simulated minutes). On an SM thread, which cannot reach CLOCK_KHZ, the
 * SM's cycle counter, as the macro. */
_Static_assert(1000000000 % CLOCKS_PER_SEC == 0, "CLOCKS_PER_SEC divides a second into whole nanoseconds");
clock_t(clock)(void) {
  if (tessera_on_sm()) return (clock_t)tessera_clock();
  const struct timespec t = simulated_time();
  const uint64_t ticks =
      (uint64_t)t.tv_sec * CLOCKS_PER_SEC + (uint32_t)t.tv_nsec / (1000000000u / (uint32_t)CLOCKS_PER_SEC);
  return ticks > (clock_t)-1 - 1u ? (clock_t)-1 : (clock_t)ticks;
}

/* ---- POSIX calls of benchmark harnesses ---------------------------------- */

/* The process's own usage: its user time is its age in simulated time (it
 * never waits for another process, nor for a kernel: the chip is its own),
 * nothing else is counted. It has no children. */
int getrusage(int who, struct rusage* usage) {
  if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN) {
    errno = EINVAL;
    return -1;
  }
  if (!usage) {
    errno = EFAULT;
    return -1;
  }
  /* Field by field: an aggregate clear may become a call of memset. */
  usage->ru_utime.tv_sec = 0;
  usage->ru_utime.tv_usec = 0;
  if (who == RUSAGE_SELF) {
    const struct timespec t = simulated_time();
    usage->ru_utime.tv_sec = t.tv_sec;
    usage->ru_utime.tv_usec = (suseconds_t)(t.tv_nsec / 1000);
  }
  usage->ru_stime.tv_sec = 0;
  usage->ru_stime.tv_usec = 0;
  usage->ru_maxrss = usage->ru_ixrss = usage->ru_idrss = usage->ru_isrss = 0;
  usage->ru_minflt = usage->ru_majflt = usage->ru_nswap = 0;
  usage->ru_inblock = usage->ru_oublock = usage->ru_msgsnd = usage->ru_msgrcv = 0;
  usage->ru_nsignals = usage->ru_nvcsw = usage->ru_nivcsw = 0;
  return 0;
}

/* Scheduling: the program is the only one, alone on its control cores, so
 * whatever policy and priority it asks for, it already has (as Linux
 * numbers them: SCHED_FIFO and SCHED_RR 1..99, SCHED_OTHER 0). */
static int priority_range(int policy, int* min, int* max) {
  switch (policy) {
    case SCHED_FIFO:
    case SCHED_RR:
      *min = 1;
      *max = 99;
      return 1;
    case SCHED_OTHER:
      *min = 0;
      *max = 0;
      return 1;
    default:
      errno = EINVAL;
      return 0;
  }
}

int sched_get_priority_max(int policy) {
  int min, max;
  return priority_range(policy, &min, &max) ? max : -1;
}

int sched_get_priority_min(int policy) {
  int min, max;
  return priority_range(policy, &min, &max) ? min : -1;
}

/* Returns 0, the former policy (SCHED_OTHER), as POSIX asks and Linux does. */
int sched_setscheduler(pid_t pid, int policy, const struct sched_param* param) {
  int min, max;
  if (pid != 0 && pid != getpid()) {
    errno = ESRCH;
    return -1;
  }
  if (!param || !priority_range(policy, &min, &max) || param->sched_priority < min || param->sched_priority > max) {
    errno = EINVAL;
    return -1;
  }
  return SCHED_OTHER;
}

/* Nothing else wants the core. */
int sched_yield(void) { return 0; }

/* _SC_NPROCESSORS_CONF and _ONLN: the control cores (cluster.cores), on
 * which the host program can run code. Other names are not offered. */
long sysconf(int name) {
  switch (name) {
    case _SC_NPROCESSORS_CONF:
    case _SC_NPROCESSORS_ONLN:
      return (long)tessera_num_cores();
    default:
      errno = EINVAL;
      return -1;
  }
}

/* ---- transactional memory (tessera_htm.h) --------------------------------- */

/* TESSERA_ATOMIC's per-core counters. With the linker's --gc-sections these
 * and the undo logs below are linked only into programs that use them. */
tessera_tx_counters_t __tessera_tx_counters[16];

/* The undo logs of the 16 control cores (cluster.cores is at most 16), 4 KiB
 * (512 entries of 8 bytes) each. Section .tessera_txlog sits after __bss_end
 * (tessera.ld): never loaded nor zeroed, a log is written before it is read. */
#define TESSERA_TX_LOG_BYTES 4096u
__attribute__((section(".tessera_txlog"), aligned(64))) char __tessera_tx_log[16][TESSERA_TX_LOG_BYTES];

void __tessera_tx_log_setup(void) {
  char* base = __tessera_tx_log[tessera_hart_id() & 15u];
  __asm__ volatile("csrw 0x8C0, %0" : : "r"(base));
  __asm__ volatile("csrw 0x8C1, %0" : : "r"(TESSERA_TX_LOG_BYTES));
}

#ifdef TESSERA_RUNTIME_CXX
/* ---- C++ support (no C++ standard library in the toolchain) -------------- */

/* operator new / delete on picolibc's malloc. Without exceptions there is
 * no std::bad_alloc: running out of memory ends the run (abort, 134). */
static void* cxx_new(size_t size, size_t align) {
  if (size == 0) size = 1;
  void* p = align > 8 ? aligned_alloc(align, (size + align - 1) / align * align) : malloc(size);
  if (p == NULL) {
    fprintf(stdout, "tessera: operator new: out of memory (%u bytes)\n", (unsigned)size);
    abort();
  }
  return p;
}
/* The Itanium C++ ABI names of the operators for a 32-bit size_t. */
void* _Znwj(size_t size) { return cxx_new(size, 0); }                          /* new(size_t) */
void* _Znaj(size_t size) { return cxx_new(size, 0); }                          /* new[](size_t) */
void* _ZnwjSt11align_val_t(size_t size, size_t a) { return cxx_new(size, a); } /* new(size_t, align_val_t) */
void* _ZnajSt11align_val_t(size_t size, size_t a) { return cxx_new(size, a); }
void _ZdlPv(void* p) { free(p); } /* delete(void*) */
void _ZdaPv(void* p) { free(p); } /* delete[](void*) */
void _ZdlPvj(void* p, size_t size) {
  (void)size;
  free(p);
} /* delete(void*, size_t) */
void _ZdaPvj(void* p, size_t size) {
  (void)size;
  free(p);
}
void _ZdlPvSt11align_val_t(void* p, size_t a) {
  (void)a;
  free(p);
}
void _ZdaPvSt11align_val_t(void* p, size_t a) {
  (void)a;
  free(p);
}
void _ZdlPvjSt11align_val_t(void* p, size_t size, size_t a) {
  (void)size;
  (void)a;
  free(p);
}
void _ZdaPvjSt11align_val_t(void* p, size_t size, size_t a) {
  (void)size;
  (void)a;
  free(p);
}

/* A call through a pure virtual function (an object used while being
 * constructed or destroyed). */
void __cxa_pure_virtual(void) {
  fprintf(stdout, "tessera: a pure virtual function was called\n");
  abort();
}
void __cxa_deleted_virtual(void) {
  fprintf(stdout, "tessera: a deleted virtual function was called\n");
  abort();
}
#endif
