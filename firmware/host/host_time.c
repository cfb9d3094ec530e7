/*
 * Simulated time on control core 0 (docs/firmware-abi.md, "Host-side C
 * library"): CLOCK_KHZ, and gettimeofday(), clock_gettime(), clock(),
 * getrusage() and time() read at known cycles.
 *
 *   host_time.elf -- CYCLES_PER_MS BASE_MS
 *
 * CYCLES_PER_MS is the clock the caller set (cycles in a millisecond). The
 * program waits for the cycle counter to pass BASE_MS milliseconds, reads
 * one clock, waits for the next millisecond, reads the next (gettimeofday,
 * CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_PROCESS_CPUTIME_ID, the function
 * clock(), getrusage's ru_utime, time()), then the same from BASE_MS + 10.
 * Each read follows its millisecond by the few hundred cycles the call
 * takes. Output: RESULT lines (times in microseconds, rounded down), FAIL
 * lines for failed checks, then PASS or FAIL host_time.
 *
 *   host_time.elf -- write_khz     writes CLOCK_KHZ, which is read-only
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <tessera.h>
#include <time.h>

static int failures;

#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      printf("FAIL %s (host_time.c line %d)\n", #cond, __LINE__); \
      ++failures;                                                 \
    }                                                             \
  } while (0)

static void wait_for_cycle(uint64_t cycle) {
  while (tessera_clock64() < cycle) {
  }
}

static long long us_of(const struct timespec* t) { return (long long)t->tv_sec * 1000000 + t->tv_nsec / 1000; }
static long long us_of_tv(const struct timeval* t) { return (long long)t->tv_sec * 1000000 + t->tv_usec; }

/* The seven clocks read one millisecond apart from `ms`. */
struct reading {
  long long tod, mono, real, cpu, clock_fn, rusage, time_s;
};

static struct reading read_clocks(uint64_t cycles_per_ms, uint64_t ms) {
  struct reading r;
  struct timeval tv;
  struct timezone tz = {-1, -1};
  struct timespec ts;
  struct rusage ru;
  wait_for_cycle(ms * cycles_per_ms);
  CHECK(gettimeofday(&tv, &tz) == 0);
  r.tod = us_of_tv(&tv);
  CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000);
  CHECK(tz.tz_minuteswest == 0 && tz.tz_dsttime == 0);
  wait_for_cycle((ms + 1) * cycles_per_ms);
  CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
  r.mono = us_of(&ts);
  CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
  wait_for_cycle((ms + 2) * cycles_per_ms);
  CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0);
  r.real = us_of(&ts);
  wait_for_cycle((ms + 3) * cycles_per_ms);
  CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0);
  r.cpu = us_of(&ts);
  wait_for_cycle((ms + 4) * cycles_per_ms);
  r.clock_fn = (long long)(clock)(); /* the function, not tessera.h's macro */
  wait_for_cycle((ms + 5) * cycles_per_ms);
  CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
  r.rusage = us_of_tv(&ru.ru_utime);
  CHECK(ru.ru_stime.tv_sec == 0 && ru.ru_stime.tv_usec == 0 && ru.ru_maxrss == 0 && ru.ru_nivcsw == 0);
  wait_for_cycle((ms + 6) * cycles_per_ms);
  time_t t_arg = 0;
  r.time_s = (long long)time(&t_arg);
  CHECK((long long)t_arg == r.time_s);
  return r;
}

static void print_reading(const char* name, const struct reading* r) {
  printf("RESULT %s %lld %lld %lld %lld %lld %lld %lld\n", name, r->tod, r->mono, r->real, r->cpu, r->clock_fn,
         r->rusage, r->time_s);
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "write_khz") == 0) {
    TESSERA_MMIO(TESSERA_CLOCK_KHZ) = 5; /* read-only: a guest fault */
    printf("write_khz: survived\n");
    return 0;
  }
  if (argc != 3) {
    printf("usage: host_time.elf -- CYCLES_PER_MS BASE_MS | write_khz\n");
    return 2;
  }
  const uint64_t cycles_per_ms = strtoull(argv[1], NULL, 0), base_ms = strtoull(argv[2], NULL, 0);
  const uint32_t khz = TESSERA_MMIO(TESSERA_CLOCK_KHZ);

  /* Warm the caches, without waiting: the first call of each function
   * fetches its code. */
  (void)read_clocks(0, 0);

  const struct reading first = read_clocks(cycles_per_ms, base_ms);
  const struct reading second = read_clocks(cycles_per_ms, base_ms + 10);

  /* Every call against the cycle counter read just before and after it:
   * ns = cycles * 10^6 / khz, rounded down, for some cycle in between. */
  uint64_t most_cycles = 0;
  for (int i = 0; i < 100; ++i) {
    struct timespec ts;
    const uint64_t c0 = tessera_clock64();
    CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
    const uint64_t c1 = tessera_clock64();
    const uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    CHECK(c0 * 1000000u / khz <= ns && ns <= c1 * 1000000u / khz);
    if (c1 - c0 > most_cycles) most_cycles = c1 - c0;
    /* tessera.h's clock() stays CUDA's: the cycle counter (low word). */
    const uint32_t m0 = (uint32_t)tessera_clock64();
    const unsigned macro = clock();
    const uint32_t m1 = (uint32_t)tessera_clock64();
    CHECK(macro - m0 <= m1 - m0);
  }
  /* Non-decreasing, call after call. */
  struct timespec prev = {0, 0};
  for (int i = 0; i < 100; ++i) {
    struct timespec ts;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
    CHECK(ts.tv_sec > prev.tv_sec || (ts.tv_sec == prev.tv_sec && ts.tv_nsec >= prev.tv_nsec));
    prev = ts;
  }

  /* Clocks that are not offered, and bad arguments. */
  struct timespec ts = {7, 7};
  for (int id = -1; id <= 12; ++id) {
    const int known = id == 0 || id == CLOCK_REALTIME || id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_MONOTONIC ||
                      id == 5 || id == 6 || id == 7;
    errno = 0;
    const int r = clock_gettime((clockid_t)id, &ts);
    if (known) {
      CHECK(r == 0 && errno == 0);
    } else {
      CHECK(r == -1 && errno == EINVAL);
      errno = 0;
      CHECK(clock_getres((clockid_t)id, &ts) == -1 && errno == EINVAL);
    }
  }
  errno = 0;
  CHECK(clock_gettime(CLOCK_MONOTONIC, NULL) == -1 && errno == EFAULT);
  CHECK(clock_getres(CLOCK_MONOTONIC, NULL) == 0);
  CHECK(gettimeofday(NULL, NULL) == 0);
  CHECK(time(NULL) >= 0);

  struct timespec res;
  CHECK(clock_getres(CLOCK_MONOTONIC, &res) == 0);
  struct rusage children;
  CHECK(getrusage(RUSAGE_CHILDREN, &children) == 0);
  CHECK(children.ru_utime.tv_sec == 0 && children.ru_utime.tv_usec == 0);
  errno = 0;
  CHECK(getrusage(7, &children) == -1 && errno == EINVAL);

  printf("RESULT khz %u\n", (unsigned)khz);
  printf("RESULT res %lld %ld\n", (long long)res.tv_sec, res.tv_nsec);
  printf("RESULT clocks_per_sec %ld\n", (long)CLOCKS_PER_SEC);
  print_reading("first", &first);
  print_reading("second", &second);
  printf("RESULT call_cycles %llu\n", (unsigned long long)most_cycles);
  printf("%s host_time\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
