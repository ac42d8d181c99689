// libgpiod v1/v2 behind gpio_shim.h: the parts both APIs share (chip scan, the GPIO thread's descriptors).
// Requests and events have one implementation per API: gpio_shim_v1.c and gpio_shim_v2.c, of which the installed
// <gpiod.h> enables one.
#define _GNU_SOURCE
#include "gpio_shim_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

void fgpio_copy_string(char *out, size_t capacity, const char *in) {
    if (capacity == 0) return;
    snprintf(out, capacity, "%s", in ? in : "");
}

int fgpio_set_nonblocking(int fd) {
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

struct find_line_context {
    const char *name;
    fgpio_location *out;
    int last_error;
    int opened;
};

static int find_line_visit(const char *path, void *raw) {
    struct find_line_context *c = raw;
    uint32_t offset;
    int rc = fgpio_chip_offset_of(path, c->name, &offset);
    if (rc == -ENOENT) { c->opened++; return 0; }
    if (rc < 0) { c->last_error = rc; return 0; }
    c->opened++;
    if (fgpio_chip_describe(path, c->out) < 0) return 0;
    fgpio_copy_string(c->out->chip_path, sizeof c->out->chip_path, path);
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
    int rc = fgpio_chip_describe(path, &info);
    if (rc < 0) { c->last_error = rc; return 0; }
    c->opened++;
    if (strcmp(c->chip, path) && strcmp(c->chip, info.chip_name) && strcmp(c->chip, info.chip_label)) return 0;
    *c->out = info;
    fgpio_copy_string(c->out->chip_path, sizeof c->out->chip_path, path);
    return 1;
}

int fgpio_find_chip_line(const char *chip, uint32_t offset, fgpio_location *out) {
    struct find_chip_context c = { chip, out, 0, 0 };
    memset(out, 0, sizeof *out);
    int rc;
    if (chip[0] == '/') {
        rc = fgpio_chip_describe(chip, out);
        if (rc < 0) return rc;
        fgpio_copy_string(out->chip_path, sizeof out->chip_path, chip);
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
    int rc = fgpio_chip_describe(path, &info);
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
