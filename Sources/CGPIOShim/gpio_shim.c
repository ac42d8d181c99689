// libgpiod v1/v2 behind gpio_shim.h. The API is chosen from the installed <gpiod.h>: GPIOD_LINE_BULK_MAX_LINES
// exists only in v1. The chip scan is shared; requests and events have one implementation per API.
#define _GNU_SOURCE
#include "gpio_shim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define FGPIO_V1 1
#else
#define FGPIO_V1 0
#endif

#define FGPIO_READ_BATCH 32

static void copy_string(char *out, size_t capacity, const char *in) {
    if (capacity == 0) return;
    snprintf(out, capacity, "%s", in ? in : "");
}

static int set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return -errno;
    return 0;
}

// ---- thread helpers (shared) ----

int fgpio_wake_create(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

void fgpio_wake_signal(int fd) {
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof one);
    (void)n;
}

int fgpio_timer_create(void) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

int fgpio_timer_arm(int fd, uint64_t deadline_ns) {
    struct itimerspec spec = { { 0, 0 }, { (time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u) } };
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL) < 0 ? -errno : 0;
}

void fgpio_timer_clear(int fd) {
    uint64_t expirations;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    (void)n;
}

void fgpio_name_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

int fgpio_thread_realtime(int priority) {
    struct sched_param param = { .sched_priority = priority };
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
}

// ---- chip scan (shared) ----

static int is_chip_entry(const struct dirent *entry) {
    return strncmp(entry->d_name, "gpiochip", 8) == 0;
}

// "gpiochip2" < "gpiochip10": by number, not alphabetically.
static int chip_order(const struct dirent **a, const struct dirent **b) {
    long na = strtol((*a)->d_name + 8, NULL, 10), nb = strtol((*b)->d_name + 8, NULL, 10);
    return (na > nb) - (na < nb);
}

typedef int (*chip_visitor)(const char *path, void *context);

// Calls `visit` for each /dev/gpiochip* in number order until it returns non-zero (that value is returned).
static int for_each_chip(chip_visitor visit, void *context) {
    struct dirent **entries;
    int count = scandir("/dev", &entries, is_chip_entry, chip_order);
    if (count < 0) return -errno;
    int result = 0;
    for (int i = 0; i < count; i++) {
        char path[300];
        snprintf(path, sizeof path, "/dev/%.250s", entries[i]->d_name);
        if (result == 0) result = visit(path, context);
        free(entries[i]);
    }
    free(entries);
    return result;
}

// Version-specific pieces used by the scan.
static int chip_describe(const char *path, fgpio_location *out);          // name, label, lines; 0 or -errno
static int chip_offset_of(const char *path, const char *name, uint32_t *offset);  // 0, -ENOENT or -errno

struct find_line_context {
    const char *name;
    fgpio_location *out;
    int last_error;
    int opened;
};

static int find_line_visit(const char *path, void *raw) {
    struct find_line_context *c = raw;
    uint32_t offset;
    int rc = chip_offset_of(path, c->name, &offset);
    if (rc == -ENOENT) { c->opened++; return 0; }
    if (rc < 0) { c->last_error = rc; return 0; }
    c->opened++;
    if (chip_describe(path, c->out) < 0) return 0;
    copy_string(c->out->chip_path, sizeof c->out->chip_path, path);
    c->out->offset = offset;
    return 1;
}

int fgpio_find_line(const char *name, fgpio_location *out) {
    struct find_line_context c = { name, out, 0, 0 };
    memset(out, 0, sizeof *out);
    int rc = for_each_chip(find_line_visit, &c);
    if (rc == 1) return 0;
    if (rc < 0) return rc;
    return (c.opened == 0 && c.last_error) ? c.last_error : -ENOENT;
}

struct find_chip_context {
    const char *chip;
    fgpio_location *out;
    int last_error;
    int opened;
};

static int find_chip_visit(const char *path, void *raw) {
    struct find_chip_context *c = raw;
    fgpio_location info;
    memset(&info, 0, sizeof info);
    int rc = chip_describe(path, &info);
    if (rc < 0) { c->last_error = rc; return 0; }
    c->opened++;
    if (strcmp(c->chip, path) && strcmp(c->chip, info.chip_name) && strcmp(c->chip, info.chip_label)) return 0;
    *c->out = info;
    copy_string(c->out->chip_path, sizeof c->out->chip_path, path);
    return 1;
}

int fgpio_find_chip_line(const char *chip, uint32_t offset, fgpio_location *out) {
    struct find_chip_context c = { chip, out, 0, 0 };
    memset(out, 0, sizeof *out);
    int rc;
    if (chip[0] == '/') {
        rc = chip_describe(chip, out);
        if (rc < 0) return rc;
        copy_string(out->chip_path, sizeof out->chip_path, chip);
    } else {
        rc = for_each_chip(find_chip_visit, &c);
        if (rc < 0) return rc;
        if (rc == 0) return c.opened == 0 && c.last_error ? c.last_error : -ENOENT;
    }
    out->offset = offset;
    return offset < out->chip_lines ? 0 : -ERANGE;
}

struct describe_context {
    char *buffer;
    size_t capacity;
    size_t used;
    int count;
};

static int describe_visit(const char *path, void *raw) {
    struct describe_context *c = raw;
    fgpio_location info;
    memset(&info, 0, sizeof info);
    char item[160];
    int rc = chip_describe(path, &info);
    if (rc < 0) {
        snprintf(item, sizeof item, "%s (cannot open: %s)", path + 5, strerror(-rc));
    } else {
        snprintf(item, sizeof item, "%s [%s] (%u lines)", info.chip_name, info.chip_label, info.chip_lines);
    }
    if (c->used < c->capacity) {
        int n = snprintf(c->buffer + c->used, c->capacity - c->used, "%s%s", c->count ? "; " : "", item);
        if (n > 0) c->used += (size_t)n;
    }
    c->count++;
    return 0;
}

int fgpio_describe_chips(char *buffer, size_t capacity) {
    struct describe_context c = { buffer, capacity, 0, 0 };
    if (capacity) buffer[0] = 0;
    for_each_chip(describe_visit, &c);
    return c.count;
}

#if FGPIO_V1
// ---- libgpiod v1 ----

struct fgpio_request {
    struct gpiod_chip *chip;
    struct gpiod_line_bulk bulk;
    size_t count;
};

int fgpio_api_major(void) { return 1; }
const char *fgpio_library_version(void) { return gpiod_version_string(); }
bool fgpio_kernel_debounce(void) { return false; }

static int chip_describe(const char *path, fgpio_location *out) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -errno;
    copy_string(out->chip_name, sizeof out->chip_name, gpiod_chip_name(chip));
    copy_string(out->chip_label, sizeof out->chip_label, gpiod_chip_label(chip));
    out->chip_lines = gpiod_chip_num_lines(chip);
    gpiod_chip_close(chip);
    return 0;
}

static int chip_offset_of(const char *path, const char *name, uint32_t *offset) {
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
    copy_string(name, name_capacity, gpiod_line_name(line));
    bool used = gpiod_line_is_used(line);
    copy_string(consumer, consumer_capacity, used ? gpiod_line_consumer(line) : "");
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
        int rc = set_nonblocking(gpiod_line_event_get_fd(r->bulk.lines[i]));
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

#else
// ---- libgpiod v2 ----

struct fgpio_request {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    size_t count;
    uint32_t offsets[];
};

int fgpio_api_major(void) { return 2; }
const char *fgpio_library_version(void) { return gpiod_api_version(); }
bool fgpio_kernel_debounce(void) { return true; }

static int chip_describe(const char *path, fgpio_location *out) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -errno;
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    int rc = info ? 0 : -errno;
    if (info) {
        copy_string(out->chip_name, sizeof out->chip_name, gpiod_chip_info_get_name(info));
        copy_string(out->chip_label, sizeof out->chip_label, gpiod_chip_info_get_label(info));
        out->chip_lines = (uint32_t)gpiod_chip_info_get_num_lines(info);
        gpiod_chip_info_free(info);
    }
    gpiod_chip_close(chip);
    return rc;
}

static int chip_offset_of(const char *path, const char *name, uint32_t *offset) {
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
    copy_string(name, name_capacity, gpiod_line_info_get_name(info));
    bool used = gpiod_line_info_is_used(info);
    copy_string(consumer, consumer_capacity, used ? gpiod_line_info_get_consumer(info) : "");
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
    rc = set_nonblocking(gpiod_line_request_get_fd(r->request));
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
