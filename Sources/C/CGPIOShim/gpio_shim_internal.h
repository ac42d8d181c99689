// Shared between the parts of the libgpiod shim (not exported to Swift).
#ifndef FERMATA_GPIO_SHIM_INTERNAL_H
#define FERMATA_GPIO_SHIM_INTERNAL_H

#include "gpio_shim.h"

#include <gpiod.h>

// The API is chosen from the installed <gpiod.h>: GPIOD_LINE_BULK_MAX_LINES exists only in v1.
#ifdef GPIOD_LINE_BULK_MAX_LINES
#define FGPIO_V1 1
#else
#define FGPIO_V1 0
#endif

#define FGPIO_READ_BATCH 32

void fgpio_copy_string(char *out, size_t capacity, const char *in);
int fgpio_set_nonblocking(int fd);
// Implemented once per API: the chip's name, label and line count; a line's offset by name (0, -ENOENT, -errno).
int fgpio_chip_describe(const char *path, fgpio_location *out);
int fgpio_chip_offset_of(const char *path, const char *name, uint32_t *offset);

#endif
