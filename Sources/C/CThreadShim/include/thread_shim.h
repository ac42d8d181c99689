#ifndef FERMATA_THREAD_SHIM_H
#define FERMATA_THREAD_SHIM_H
#include <semaphore.h>
#include <stdint.h>

/// Names the calling thread (at most 15 bytes are kept), for `top -H` and crash reports.
void fermata_set_thread_name(const char *name);

/// Waits on `sem` until it can be decremented or `nanoseconds` have passed on CLOCK_MONOTONIC (`sem_clockwait`,
/// glibc 2.30, which Swift's Glibc module leaves out), so a step of the wall clock (a board without a real-time
/// clock setting its time from the network at boot) neither stretches nor cuts the wait. Retries after signals.
/// Returns 0 when decremented, else the errno of the failure (ETIMEDOUT when the time ran out).
int fermata_sem_wait_monotonic(sem_t *sem, int64_t nanoseconds);

/// Returns the heap's free memory to the kernel (glibc's malloc_trim(0), which Swift's Glibc module leaves out).
/// Returns 1 when memory was released.
int fermata_malloc_trim(void);

/// Caps glibc's malloc arenas at `count` (mallopt M_ARENA_MAX) unless the environment sets MALLOC_ARENA_MAX (the
/// owner's setting wins). Returns 1 when set.
int fermata_limit_malloc_arenas(int count);
#endif
