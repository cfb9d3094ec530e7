/*
 * <sched.h>: picolibc's, plus the scheduling calls benchmark harnesses make,
 * which a bare-metal picolibc does not declare (no _POSIX_PRIORITY_SCHEDULING)
 * and the Tessera runtime provides (firmware/runtime/runtime.c): on a chip
 * that runs one program, alone on its control cores, they succeed and change
 * nothing (docs/firmware-abi.md, "Host-side C library").
 */
#ifndef TESSERA_RUNTIME_SCHED_H
#define TESSERA_RUNTIME_SCHED_H

/* A system header, as picolibc's: tessera-cc finds it through -I, since
 * picolibc.specs puts picolibc's directory before any -isystem. */
#pragma GCC system_header

#include_next <sched.h>

#if !defined(_POSIX_PRIORITY_SCHEDULING)
#ifdef __cplusplus
extern "C" {
#endif
int sched_setscheduler(pid_t pid, int policy, const struct sched_param* param);
int sched_get_priority_max(int policy);
int sched_get_priority_min(int policy);
#if !defined(_POSIX_THREADS)
int sched_yield(void);
#endif
#ifdef __cplusplus
}
#endif
#endif

#endif /* TESSERA_RUNTIME_SCHED_H */
