/*
 * <sys/resource.h> for Tessera firmware, in place of picolibc's (whose
 * struct rusage has ru_utime and ru_stime only): getrusage() with the
 * fields programs written for Linux read (ru_maxrss and the rest), as the
 * Tessera runtime fills them (firmware/runtime/runtime.c,
 * docs/firmware-abi.md, "Host-side C library"): RUSAGE_SELF's ru_utime is
 * the simulated time since the start, every other field 0.
 */
#ifndef _SYS_RESOURCE_H_ /* picolibc's guard: its header is replaced, not added to */
#define _SYS_RESOURCE_H_

/* A system header, as picolibc's: tessera-cc finds it through -I, since
 * picolibc.specs puts picolibc's directory before any -isystem. */
#pragma GCC system_header

#include <sys/time.h>

#define RUSAGE_SELF 0      /* the calling process */
#define RUSAGE_CHILDREN -1 /* its terminated children (there are none) */

struct rusage {
  struct timeval ru_utime; /* user time used */
  struct timeval ru_stime; /* system time used */
  long ru_maxrss;          /* maximum resident set size, KiB */
  long ru_ixrss;           /* integral shared memory size */
  long ru_idrss;           /* integral unshared data size */
  long ru_isrss;           /* integral unshared stack size */
  long ru_minflt;          /* page reclaims */
  long ru_majflt;          /* page faults */
  long ru_nswap;           /* swaps */
  long ru_inblock;         /* block input operations */
  long ru_oublock;         /* block output operations */
  long ru_msgsnd;          /* messages sent */
  long ru_msgrcv;          /* messages received */
  long ru_nsignals;        /* signals received */
  long ru_nvcsw;           /* voluntary context switches */
  long ru_nivcsw;          /* involuntary context switches */
};

#ifdef __cplusplus
extern "C" {
#endif
int getrusage(int who, struct rusage* usage);
#ifdef __cplusplus
}
#endif

#endif /* _SYS_RESOURCE_H_ */
