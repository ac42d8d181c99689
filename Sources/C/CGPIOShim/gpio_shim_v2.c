// libgpiod v2 (2.x: Debian 13, current Raspberry Pi OS) behind gpio_shim.h; compiled only when the
// installed <gpiod.h> is that API.
#define _GNU_SOURCE
#include "gpio_shim_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if !FGPIO_V1

struct fgpio_request {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    size_t count;
    uint32_t offsets[];
};

int fgpio_api_major(void) { return 2; }
const char *fgpio_library_version(void) { return gpiod_api_version(); }
bool fgpio_kernel_debounce(void) { return true; }

int fgpio_chip_describe(const char *path, fgpio_location *out) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -errno;
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    int rc = info ? 0 : -errno;
    if (info) {
        fgpio_copy_string(out->chip_name, sizeof out->chip_name, gpiod_chip_info_get_name(info));
        fgpio_copy_string(out->chip_label, sizeof out->chip_label, gpiod_chip_info_get_label(info));
        out->chip_lines = (uint32_t)gpiod_chip_info_get_num_lines(info);
        gpiod_chip_info_free(info);
    }
    gpiod_chip_close(chip);
    return rc;
}

int fgpio_chip_offset_of(const char *path, const char *name, uint32_t *offset) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -errno;
    errno = 0;
    int found = gpiod_chip_get_line_offset_from_name(chip, name);
    int rc = found >= 0 ? 0 : (errno && errno != ENOENT ? -errno : -ENOENT);
    if (found >= 0) *offset = (uint32_t)found;
    gpiod_chip_close(chip);
    return rc;
}

int fgpio_line_status(const char *chip_path, uint32_t offset, char *name, size_t name_capacity, char *consumer,
                      size_t consumer_capacity) {
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    if (!chip) return -errno;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) { int e = errno; gpiod_chip_close(chip); return -e; }
    fgpio_copy_string(name, name_capacity, gpiod_line_info_get_name(info));
    bool used = gpiod_line_info_is_used(info);
    fgpio_copy_string(consumer, consumer_capacity, used ? gpiod_line_info_get_consumer(info) : "");
    gpiod_line_info_free(info);
    gpiod_chip_close(chip);
    return used ? 1 : 0;
}

fgpio_request *fgpio_request_inputs(const char *chip_path, const uint32_t *offsets, size_t count,
                                    const fgpio_input_config *config, int *error) {
    if (count == 0) { *error = EINVAL; return NULL; }
    fgpio_request *r = calloc(1, sizeof *r + count * sizeof(uint32_t));
    struct gpiod_chip *chip = gpiod_chip_open(chip_path);
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *request = gpiod_request_config_new();
    int rc = -1;
    errno = 0;
    if (!r || !chip || !settings || !lines || !request) goto done;
    r->count = count;
    memcpy(r->offsets, offsets, count * sizeof(uint32_t));
    enum gpiod_line_bias bias = GPIOD_LINE_BIAS_AS_IS;
    switch (config->bias) {
    case FGPIO_BIAS_DISABLED: bias = GPIOD_LINE_BIAS_DISABLED; break;
    case FGPIO_BIAS_PULL_UP: bias = GPIOD_LINE_BIAS_PULL_UP; break;
    case FGPIO_BIAS_PULL_DOWN: bias = GPIOD_LINE_BIAS_PULL_DOWN; break;
    default: break;
    }
    if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) < 0
        || gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) < 0
        || gpiod_line_settings_set_bias(settings, bias) < 0
        || gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) < 0) goto done;
    gpiod_line_settings_set_active_low(settings, config->active_low);
    gpiod_line_settings_set_debounce_period_us(settings, config->debounce_us);
    if (gpiod_line_config_add_line_settings(lines, r->offsets, count, settings) < 0) goto done;
    gpiod_request_config_set_consumer(request, config->consumer);
    gpiod_request_config_set_event_buffer_size(request, 64);
    r->request = gpiod_chip_request_lines(chip, request, lines);
    if (!r->request) goto done;
    r->buffer = gpiod_edge_event_buffer_new(FGPIO_READ_BATCH);
    if (!r->buffer) goto done;
    rc = fgpio_set_nonblocking(gpiod_line_request_get_fd(r->request));
    if (rc < 0) errno = -rc;
done:
    *error = rc == 0 ? 0 : (errno ? errno : EIO);
    gpiod_request_config_free(request);
    gpiod_line_config_free(lines);
    gpiod_line_settings_free(settings);
    if (chip) gpiod_chip_close(chip);
    if (rc != 0 && r) {
        if (r->request) gpiod_line_request_release(r->request);
        if (r->buffer) gpiod_edge_event_buffer_free(r->buffer);
        free(r);
        r = NULL;
    }
    return r;
}

size_t fgpio_request_fd_count(const fgpio_request *r) { (void)r; return 1; }

int fgpio_request_fd(const fgpio_request *r, size_t i) {
    return i == 0 ? gpiod_line_request_get_fd(r->request) : -1;
}

int fgpio_request_read(fgpio_request *r, size_t i, fgpio_event *events, size_t capacity) {
    if (i != 0) return -EINVAL;
    size_t want = capacity < FGPIO_READ_BATCH ? capacity : FGPIO_READ_BATCH;
    int n = gpiod_line_request_read_edge_events(r->request, r->buffer, want);
    if (n < 0) return errno == EAGAIN ? 0 : -errno;
    for (int k = 0; k < n; k++) {
        struct gpiod_edge_event *e = gpiod_edge_event_buffer_get_event(r->buffer, (unsigned long)k);
        unsigned int offset = gpiod_edge_event_get_line_offset(e);
        uint32_t index = 0;
        while (index < r->count && r->offsets[index] != offset) index++;
        events[k].index = index;
        events[k].rising = gpiod_edge_event_get_event_type(e) == GPIOD_EDGE_EVENT_RISING_EDGE;
        events[k].timestamp_ns = gpiod_edge_event_get_timestamp_ns(e);
    }
    return n;
}

int fgpio_request_values(fgpio_request *r, int *values) {
    enum gpiod_line_value raw[64];
    if (r->count > 64) return -EINVAL;
    if (gpiod_line_request_get_values(r->request, raw) < 0) return -errno;
    for (size_t i = 0; i < r->count; i++) values[i] = raw[i] == GPIOD_LINE_VALUE_ACTIVE;
    return 0;
}

void fgpio_request_release(fgpio_request *r) {
    if (!r) return;
    gpiod_line_request_release(r->request);
    gpiod_edge_event_buffer_free(r->buffer);
    free(r);
}

#endif
