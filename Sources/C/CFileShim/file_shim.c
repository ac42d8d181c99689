#define _GNU_SOURCE
#include <fcntl.h>
#include "file_shim.h"

int fermata_open_direct(const char *path) {
    return open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
}
