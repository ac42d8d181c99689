#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include "thread_shim.h"

void fermata_set_thread_name(const char *name) {
    char shortName[16];
    strncpy(shortName, name, sizeof shortName - 1);
    shortName[sizeof shortName - 1] = 0;
    pthread_setname_np(pthread_self(), shortName);
}
