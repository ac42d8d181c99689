// A version-neutral interface to libgpiod for Fermata's controls.
//
// gpio_shim.c compiles against whichever <gpiod.h> the build finds: libgpiod 1.x (v1 API; Debian 12, Raspberry Pi
// OS Bookworm) or 2.x (v2 API; Debian 13, current Raspberry Pi OS). Nothing here names a libgpiod type, so the Swift
// side is the same for both. All functions are blocking-free except the chip scans (a few open/ioctl calls each).
// Thread safety: a request is used by one thread at a time; the lookup functions may run on any thread.
#ifndef FERMATA_GPIO_SHIM_H
#define FERMATA_GPIO_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Bias applied to the requested input lines.
typedef enum {
    FGPIO_BIAS_AS_IS = 0,
    FGPIO_BIAS_DISABLED = 1,
    FGPIO_BIAS_PULL_UP = 2,
    FGPIO_BIAS_PULL_DOWN = 3,
} fgpio_bias;

/// One edge, as read from a request.
typedef struct {
    /// The line's position in the offsets given to fgpio_request_inputs.
    uint32_t index;
    /// 1: the logical value became 1 (active: pressed, for an active-low button); 0: it became 0.
    uint32_t rising;
    /// Kernel timestamp, CLOCK_MONOTONIC nanoseconds.
    uint64_t timestamp_ns;
} fgpio_event;

/// Where a line is.
typedef struct {
    char chip_path[64];   // "/dev/gpiochip0"
    char chip_name[32];   // "gpiochip0"
    char chip_label[64];  // "pinctrl-bcm2711"
    uint32_t offset;
    uint32_t chip_lines;
} fgpio_location;

/// How to request input lines.
typedef struct {
    fgpio_bias bias;
    bool active_low;
    /// Kernel debounce period; 0 for none. The v1 API has none: the caller debounces (see fgpio_kernel_debounce).
    uint32_t debounce_us;
    const char *consumer;
} fgpio_input_config;

typedef struct fgpio_request fgpio_request;

/// 1 or 2: the libgpiod API this build was compiled against.
int fgpio_api_major(void);
/// The library's version string, e.g. "1.6.3".
const char *fgpio_library_version(void);
/// Whether requests honour debounce_us in the kernel (v2 API only).
bool fgpio_kernel_debounce(void);

/// Finds the first line called `name` on any /dev/gpiochip* (in chip-number order).
/// Returns 0, -ENOENT when no chip has such a line, or another -errno (e.g. -EACCES when no chip could be opened).
int fgpio_find_line(const char *name, fgpio_location *out);
/// Finds a chip by label ("pinctrl-bcm2711"), name ("gpiochip0") or path ("/dev/gpiochip0") and checks `offset`.
/// Returns 0, -ENOENT (no such chip), -ERANGE (offset beyond the chip's lines) or another -errno.
int fgpio_find_chip_line(const char *chip, uint32_t offset, fgpio_location *out);
/// Lists the chips as "gpiochip0 [label] (N lines)" separated by "; ", for error messages. Returns the count.
int fgpio_describe_chips(char *buffer, size_t capacity);
/// Writes the line's name and, when it is in use, its consumer. Returns 1 if used, 0 if free, -errno on error.
int fgpio_line_status(const char *chip_path, uint32_t offset, char *name, size_t name_capacity, char *consumer,
                      size_t consumer_capacity);

/// Requests `count` lines of one chip as inputs with both-edge events, bias and polarity from `config`.
/// Returns NULL with *error set to a positive errno on failure (EBUSY: a line is in use).
fgpio_request *fgpio_request_inputs(const char *chip_path, const uint32_t *offsets, size_t count,
                                    const fgpio_input_config *config, int *error);
/// How many file descriptors the request has (v1: one per line; v2: one).
size_t fgpio_request_fd_count(const fgpio_request *request);
/// The `i`th descriptor to poll for POLLIN; non-blocking.
int fgpio_request_fd(const fgpio_request *request, size_t i);
/// Reads the events pending on descriptor `i` (never blocks). Returns the count (0: none), or -errno.
int fgpio_request_read(fgpio_request *request, size_t i, fgpio_event *events, size_t capacity);
/// Current logical values of all lines, in request order. Returns 0 or -errno.
int fgpio_request_values(fgpio_request *request, int *values);
/// Releases the lines and frees the request.
void fgpio_request_release(fgpio_request *request);

// ---- The GPIO thread's other descriptors (Glibc does not export these to Swift) ----

/// An eventfd to wake the GPIO thread's poll; -errno on failure.
int fgpio_wake_create(void);
/// Makes the eventfd readable.
void fgpio_wake_signal(int fd);
/// A CLOCK_MONOTONIC timerfd, non-blocking; -errno on failure.
int fgpio_timer_create(void);
/// Arms the timer once at `deadline_ns` (absolute CLOCK_MONOTONIC), or disarms it for 0.
int fgpio_timer_arm(int fd, uint64_t deadline_ns);
/// Consumes the timer's expiration count (call when poll reports it readable).
void fgpio_timer_clear(int fd);

#ifdef __cplusplus
}
#endif

#endif
