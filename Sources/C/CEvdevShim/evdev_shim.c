#include "evdev_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int fevdev_open(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    int clock = CLOCK_MONOTONIC;
    if (ioctl(fd, EVIOCSCLOCKID, &clock) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int fevdev_info_read(int fd, fevdev_info *info) {
    memset(info, 0, sizeof *info);
    if (ioctl(fd, EVIOCGNAME(sizeof info->name - 1), info->name) < 0) return -errno;
    // A device without a physical path (uinput, some Bluetooth stacks) answers ENOENT: the path stays empty.
    if (ioctl(fd, EVIOCGPHYS(sizeof info->phys - 1), info->phys) < 0 && errno != ENOENT) return -errno;
    struct input_id id;
    if (ioctl(fd, EVIOCGID, &id) < 0) return -errno;
    info->bustype = id.bustype;
    info->vendor = id.vendor;
    info->product = id.product;
    info->version = id.version;
    return 0;
}

int fevdev_grab(int fd, int on) {
    return ioctl(fd, EVIOCGRAB, (void *)(long)on) < 0 ? -errno : 0;
}

int fevdev_read(int fd, fevdev_event *events, int max) {
    struct input_event raw[64];
    if (max > 64) max = 64;
    ssize_t n = read(fd, raw, sizeof raw[0] * (size_t)max);
    if (n < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
    if (n == 0) return -ENODEV;
    int count = (int)(n / (ssize_t)sizeof raw[0]);
    for (int i = 0; i < count; i++) {
        events[i].time_ns = (uint64_t)raw[i].input_event_sec * 1000000000u + (uint64_t)raw[i].input_event_usec * 1000u;
        events[i].type = raw[i].type;
        events[i].code = raw[i].code;
        events[i].value = raw[i].value;
    }
    return count;
}

int fevdev_keys_down(int fd, uint8_t *bits, int length) {
    memset(bits, 0, (size_t)length);
    return ioctl(fd, EVIOCGKEY(length), bits) < 0 ? -errno : 0;
}

int fevdev_watch_create(const char *directory) {
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return -errno;
    if (inotify_add_watch(fd, directory, IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int fevdev_watch_drain(int fd) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int events = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0) return (errno == EAGAIN || errno == EINTR) ? events : -errno;
        for (ssize_t at = 0; at < n;) {
            const struct inotify_event *event = (const struct inotify_event *)(buffer + at);
            at += (ssize_t)sizeof *event + event->len;
            events++;
        }
    }
}

int fevdev_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int fevdev_epoll_add(int epoll, int fd) {
    struct epoll_event event = { .events = EPOLLIN, .data = { .fd = fd } };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) < 0 ? -errno : 0;
}

int fevdev_epoll_remove(int epoll, int fd) {
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL) < 0 ? -errno : 0;
}

int fevdev_epoll_ready(int epoll, int *fds, int max) {
    struct epoll_event events[32];
    if (max > 32) max = 32;
    int n = epoll_wait(epoll, events, max, 0);
    if (n < 0) return errno == EINTR ? 0 : -errno;
    for (int i = 0; i < n; i++) fds[i] = events[i].data.fd;
    return n;
}
