// libgpiod v1 (1.x: Debian 12, Raspberry Pi OS Bookworm) behind gpio_shim.h; compiled only when the
// installed <gpiod.h> is that API.
#define _GNU_SOURCE
#include "gpio_shim_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if FGPIO_V1

struct fgpio_request {
    struct gpiod_chip *chip;
    struct gpiod_line_bulk bulk;
    size_t count;
};

int fgpio_api_major(void) { return 1; }
const char *fgpio_library_version(void) { return gpiod_version_string(); }
bool fgpio_kernel_debounce(void) { return false; }

int fgpio_chip_describe(const char *path, fgpio_location *out) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -errno;
    fgpio_copy_string(out->chip_name, sizeof out->chip_name, gpiod_chip_name(chip));
    fgpio_copy_string(out->chip_label, sizeof out->chip_label, gpiod_chip_label(chip));
    out->chip_lines = gpiod_chip_num_lines(chip);
    gpiod_chip_close(chip);
    return 0;
}

int fgpio_chip_offset_of(const char *path, const char *name, uint32_t *offset) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -errno;
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip, name);
    int rc = line ? 0 : (errno && errno != ENOENT ? -errno : -ENOENT);
    if (line) *offset = gpiod_line_offset(line);
    gpiod_chip_close(chip);
    return rc;
}

int fgpio_line_status(const char *chip_path, uint32_t offset, char *name, size_t name_capacity, char *consumer,
                      size_t consumer_capacity) {
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    if (!chip) return -errno;
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) { int e = errno; gpiod_chip_close(chip); return -e; }
    fgpio_copy_string(name, name_capacity, gpiod_line_name(line));
    bool used = gpiod_line_is_used(line);
    fgpio_copy_string(consumer, consumer_capacity, used ? gpiod_line_consumer(line) : "");
    gpiod_chip_close(chip);
    return used ? 1 : 0;
}

fgpio_request *fgpio_request_inputs(const char *chip_path, const uint32_t *offsets, size_t count,
                                    const fgpio_input_config *config, int *error) {
    if (count == 0 || count > GPIOD_LINE_BULK_MAX_LINES) { *error = EINVAL; return NULL; }
    fgpio_request *r = calloc(1, sizeof *r);
    if (!r) { *error = ENOMEM; return NULL; }
    r->count = count;
    r->chip = gpiod_chip_open(chip_path);
    if (!r->chip) { *error = errno; free(r); return NULL; }
    unsigned int u_offsets[GPIOD_LINE_BULK_MAX_LINES];
    for (size_t i = 0; i < count; i++) u_offsets[i] = offsets[i];
    if (gpiod_chip_get_lines(r->chip, u_offsets, (unsigned int)count, &r->bulk) < 0) goto fail;
    int flags = config->active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    switch (config->bias) {
    case FGPIO_BIAS_DISABLED: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case FGPIO_BIAS_PULL_UP: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case FGPIO_BIAS_PULL_DOWN: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    default: break;
    }
    struct gpiod_line_request_config request = { config->consumer, GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES, flags };
    if (gpiod_line_request_bulk(&r->bulk, &request, NULL) < 0) goto fail;
    for (size_t i = 0; i < count; i++) {
        int rc = fgpio_set_nonblocking(gpiod_line_event_get_fd(r->bulk.lines[i]));
        if (rc < 0) { gpiod_line_release_bulk(&r->bulk); errno = -rc; goto fail; }
    }
    return r;
fail:
    *error = errno ? errno : EIO;
    gpiod_chip_close(r->chip);
    free(r);
    return NULL;
}

size_t fgpio_request_fd_count(const fgpio_request *r) { return r->count; }

int fgpio_request_fd(const fgpio_request *r, size_t i) {
    return i < r->count ? gpiod_line_event_get_fd(r->bulk.lines[i]) : -1;
}

int fgpio_request_read(fgpio_request *r, size_t i, fgpio_event *events, size_t capacity) {
    if (i >= r->count) return -EINVAL;
    struct gpiod_line_event raw[FGPIO_READ_BATCH];
    unsigned int want = (unsigned int)(capacity < FGPIO_READ_BATCH ? capacity : FGPIO_READ_BATCH);
    int n = gpiod_line_event_read_fd_multiple(gpiod_line_event_get_fd(r->bulk.lines[i]), raw, want);
    if (n < 0) return errno == EAGAIN ? 0 : -errno;
    for (int k = 0; k < n; k++) {
        events[k].index = (uint32_t)i;
        events[k].rising = raw[k].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        events[k].timestamp_ns = (uint64_t)raw[k].ts.tv_sec * 1000000000u + (uint64_t)raw[k].ts.tv_nsec;
    }
    return n;
}

int fgpio_request_values(fgpio_request *r, int *values) {
    return gpiod_line_get_value_bulk(&r->bulk, values) < 0 ? -errno : 0;
}

void fgpio_request_release(fgpio_request *r) {
    if (!r) return;
    gpiod_line_release_bulk(&r->bulk);
    gpiod_chip_close(r->chip);
    free(r);
}

#endif
