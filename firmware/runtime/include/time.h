/*
 * <time.h>: picolibc's, plus what a bare-metal picolibc leaves out and the
 * Tessera runtime provides on the control cores (firmware/runtime/runtime.c,
 * docs/firmware-abi.md, "Host-side C library"): clock_gettime() and
 * clock_getres() with CLOCK_MONOTONIC and CLOCK_PROCESS_CPUTIME_ID beside
 * picolibc's CLOCK_REALTIME. Every clock reads simulated time since the
 * start of the simulation.
 */
#ifndef TESSERA_RUNTIME_TIME_H
#define TESSERA_RUNTIME_TIME_H

/* A system header, as picolibc's: tessera-cc finds it through -I, since
 * picolibc.specs puts picolibc's directory before any -isystem. */
#pragma GCC system_header

#include_next <time.h>

/* picolibc declares these only where _POSIX_TIMERS, _POSIX_MONOTONIC_CLOCK
 * and _POSIX_CPUTIME are defined, which they are not for bare-metal RISC-V;
 * the values are picolibc's own. */
#if !defined(_POSIX_TIMERS)
#ifdef __cplusplus
extern "C" {
#endif
int clock_gettime(clockid_t clock_id, struct timespec* tp);
int clock_getres(clockid_t clock_id, struct timespec* res);
#ifdef __cplusplus
}
#endif
#endif
#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC ((clockid_t)4)
#endif
#ifndef CLOCK_PROCESS_CPUTIME_ID
#define CLOCK_PROCESS_CPUTIME_ID ((clockid_t)2)
#endif

#endif /* TESSERA_RUNTIME_TIME_H */
