#include <alsa/asoundlib.h>

/// An alsa-lib error handler that drops the message (alsa-lib's default prints every error to stderr).
static inline void fermata_alsa_discard_error(const char *file, int line, const char *function, int err,
                                              const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// Whether alsa-lib's own error messages are dropped (quiet != 0) or printed to stderr (0, alsa-lib's default).
/// Process-wide: call it only from the thread that owns the audio device.
static inline void fermata_alsa_quiet_errors(int quiet) {
    snd_lib_error_set_handler(quiet ? fermata_alsa_discard_error : NULL);
}
