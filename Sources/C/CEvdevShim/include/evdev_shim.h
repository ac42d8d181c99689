// The Linux input (evdev) character devices for Fermata's controls, without libevdev: open a /dev/input/event*
// node with monotonic timestamps, ask its name, ids and physical path, grab it, read its events, read which keys are
// down (after SYN_DROPPED), and watch /dev/input for devices coming and going (inotify) behind one epoll descriptor.
//
// The ioctl request numbers are macros (EVIOCGNAME(len), ...) that Swift cannot import; that is the reason for the
// shim. Nothing here blocks: every descriptor is non-blocking. Errors come back as negative errno values.
// Thread safety: a descriptor is used by one thread at a time (the controls thread); the functions keep no state.
#ifndef FERMATA_EVDEV_SHIM_H
#define FERMATA_EVDEV_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One `struct input_event`, with its time as CLOCK_MONOTONIC nanoseconds.
typedef struct {
    uint64_t time_ns;
    uint16_t type;
    uint16_t code;
    int32_t value;
} fevdev_event;

/// What a device says about itself.
typedef struct {
    char name[256];
    char phys[256];
    uint16_t bustype;
    uint16_t vendor;
    uint16_t product;
    uint16_t version;
} fevdev_info;

/// Opens an event device read-only, non-blocking, close-on-exec, with CLOCK_MONOTONIC event times.
/// Returns the descriptor or -errno.
int fevdev_open(const char *path);
/// Fills `info` (name, phys, ids). Returns 0 or -errno.
int fevdev_info_read(int fd, fevdev_info *info);
/// EVIOCGRAB: 1 takes the device for this descriptor alone (no console, no other reader), 0 gives it back.
int fevdev_grab(int fd, int on);
/// Reads up to `max` events. Returns the count (0: nothing pending), or -errno (-ENODEV: the device is gone).
int fevdev_read(int fd, fevdev_event *events, int max);
/// EVIOCGKEY: one bit per key code that is down now, into `bits` (`length` bytes; KEY_MAX/8+1 covers all).
int fevdev_keys_down(int fd, uint8_t *bits, int length);

/// An inotify descriptor watching `directory` for entries created, deleted or changed in mode (udev's chmod).
int fevdev_watch_create(const char *directory);
/// Drains the inotify descriptor. Returns how many events were read, or -errno.
int fevdev_watch_drain(int fd);

/// epoll: one descriptor that is readable when any of its members is.
int fevdev_epoll_create(void);
int fevdev_epoll_add(int epoll, int fd);
int fevdev_epoll_remove(int epoll, int fd);
/// Descriptors ready now (never waits). Returns how many were written to `fds`, or -errno.
int fevdev_epoll_ready(int epoll, int *fds, int max);

#ifdef __cplusplus
}
#endif

#endif
