#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "thread_shim.h"

void fermata_set_thread_name(const char *name) {
    char shortName[16];
    strncpy(shortName, name, sizeof shortName - 1);
    shortName[sizeof shortName - 1] = 0;
    pthread_setname_np(pthread_self(), shortName);
}

int fermata_sem_wait_monotonic(sem_t *sem, int64_t nanoseconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (nanoseconds < 0) nanoseconds = 0;
    if (nanoseconds > INT64_MAX - 1000000000) nanoseconds = INT64_MAX - 1000000000;
    int64_t total = (int64_t)deadline.tv_nsec + nanoseconds;
    deadline.tv_sec += (time_t)(total / 1000000000);
    deadline.tv_nsec = (long)(total % 1000000000);
    while (sem_clockwait(sem, CLOCK_MONOTONIC, &deadline) != 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}

int fermata_malloc_trim(void) {
    return malloc_trim(0);
}

int fermata_limit_malloc_arenas(int count) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) return 0;
    return mallopt(M_ARENA_MAX, count);
}
