/*
 * The POSIX calls of benchmark harnesses on control core 0
 * (docs/firmware-abi.md, "Host-side C library"): posix_memalign,
 * getrusage, sched_setscheduler, sched_get_priority_max/min, sched_yield,
 * sysconf, and the file calls of a chip without a file system. Each check that fails prints a FAIL line; RESULT lines
 * give what depends on the platform; PASS or FAIL host_posix ends the output.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <tessera.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                \
  do {                                                             \
    if (!(cond)) {                                                 \
      printf("FAIL %s (host_posix.c line %d)\n", #cond, __LINE__); \
      ++failures;                                                  \
    }                                                              \
  } while (0)

/* The return value and errno of a call that must fail. */
#define CHECK_ERROR(call, error) \
  do {                           \
    errno = 0;                   \
    CHECK((call) == -1);         \
    CHECK(errno == (error));     \
  } while (0)

int main(void) {
  /* posix_memalign: picolibc's, on the heap. */
  void* p = NULL;
  const size_t aligns[] = {4, 8, 64, 256, 4096};
  for (unsigned i = 0; i < sizeof aligns / sizeof aligns[0]; ++i) {
    CHECK(posix_memalign(&p, aligns[i], 1000) == 0);
    CHECK(p != NULL && (uintptr_t)p % aligns[i] == 0);
    memset(p, 0x5A, 1000); /* usable */
    free(p);
  }
  p = (void*)1;
  CHECK(posix_memalign(&p, 3, 16) == EINVAL);                 /* not a power of two */
  CHECK(posix_memalign(&p, 2, 16) == EINVAL);                 /* not a multiple of sizeof(void *) */
  CHECK(p == (void*)1);                                       /* untouched on failure */
  CHECK(posix_memalign(&p, 64, (size_t)512 << 20) == ENOMEM); /* more than global memory */

  /* getrusage */
  struct rusage ru;
  memset(&ru, 0xFF, sizeof ru);
  CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
  CHECK(ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0); /* the program has run */
  CHECK(ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000);
  CHECK(ru.ru_stime.tv_sec == 0 && ru.ru_stime.tv_usec == 0);
  CHECK(ru.ru_maxrss == 0 && ru.ru_ixrss == 0 && ru.ru_idrss == 0 && ru.ru_isrss == 0);
  CHECK(ru.ru_minflt == 0 && ru.ru_majflt == 0 && ru.ru_nswap == 0 && ru.ru_inblock == 0);
  CHECK(ru.ru_oublock == 0 && ru.ru_msgsnd == 0 && ru.ru_msgrcv == 0 && ru.ru_nsignals == 0);
  CHECK(ru.ru_nvcsw == 0 && ru.ru_nivcsw == 0);
  memset(&ru, 0xFF, sizeof ru);
  CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0);
  CHECK(ru.ru_utime.tv_sec == 0 && ru.ru_utime.tv_usec == 0 && ru.ru_maxrss == 0 && ru.ru_nivcsw == 0);
  CHECK_ERROR(getrusage(1, &ru), EINVAL);
  CHECK_ERROR(getrusage(RUSAGE_SELF, NULL), EFAULT);

  /* Scheduling: Linux's priority ranges; any request succeeds unchanged. */
  CHECK(sched_get_priority_max(SCHED_FIFO) == 99);
  CHECK(sched_get_priority_min(SCHED_FIFO) == 1);
  CHECK(sched_get_priority_max(SCHED_RR) == 99);
  CHECK(sched_get_priority_min(SCHED_RR) == 1);
  CHECK(sched_get_priority_max(SCHED_OTHER) == 0);
  CHECK(sched_get_priority_min(SCHED_OTHER) == 0);
  CHECK_ERROR(sched_get_priority_max(42), EINVAL);
  CHECK_ERROR(sched_get_priority_min(-1), EINVAL);
  struct sched_param sp;
  memset(&sp, 0, sizeof sp);
  sp.sched_priority = sched_get_priority_max(SCHED_FIFO);
  CHECK(sched_setscheduler(0, SCHED_FIFO, &sp) == 0);
  CHECK(sched_setscheduler(getpid(), SCHED_RR, &sp) == 0);
  sp.sched_priority = 0;
  CHECK(sched_setscheduler(0, SCHED_OTHER, &sp) == 0);
  CHECK_ERROR(sched_setscheduler(0, SCHED_FIFO, &sp), EINVAL); /* 0 is below FIFO's range */
  sp.sched_priority = 100;
  CHECK_ERROR(sched_setscheduler(0, SCHED_FIFO, &sp), EINVAL);
  sp.sched_priority = 1;
  CHECK_ERROR(sched_setscheduler(0, 42, &sp), EINVAL);
  CHECK_ERROR(sched_setscheduler(0, SCHED_FIFO, NULL), EINVAL);
  CHECK_ERROR(sched_setscheduler(2, SCHED_FIFO, &sp), ESRCH); /* no such process */
  for (int i = 0; i < 3; ++i) CHECK(sched_yield() == 0);

  /* sysconf */
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  CHECK(online == (long)tessera_num_cores());
  CHECK(sysconf(_SC_NPROCESSORS_CONF) == online);
  CHECK_ERROR(sysconf(_SC_PAGESIZE), EINVAL);

  /* Files: none; descriptors 1 and 2 are the console. */
  errno = 0;
  CHECK(fopen("input.txt", "r") == NULL);
  CHECK(errno == ENOENT);
  CHECK_ERROR(open("input.txt", O_RDONLY), ENOENT);
  CHECK_ERROR(close(3), EBADF);
  CHECK_ERROR(lseek(1, 0, SEEK_SET), ESPIPE);
  char byte;
  CHECK(read(0, &byte, 1) == 0); /* the console has no input */
  CHECK_ERROR(read(5, &byte, 1), EBADF);
  CHECK(write(1, "console by write()\n", 19) == 19);
  CHECK_ERROR(write(4, "x", 1), EBADF);

  printf("RESULT nprocessors_onln %ld\n", online);
  printf("%s host_posix\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
