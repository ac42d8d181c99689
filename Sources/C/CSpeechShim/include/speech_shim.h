// eSpeak NG behind three calls, for Fermata's spoken announcements. eSpeak keeps global state: call these from one
// thread only (Fermata's decoder thread).
#ifndef FERMATA_SPEECH_SHIM_H
#define FERMATA_SPEECH_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// Initialises eSpeak NG (synchronous, no audio device) with `voice` (e.g. "en"); returns the sample rate of the
/// speech it makes (22050) or a negative number when eSpeak or its data is missing.
int fermata_speech_open(const char *voice, int words_per_minute);

/// Speaks `text` (UTF-8) into a newly allocated buffer of mono 16-bit samples; returns the sample count (0 on error;
/// then *samples is NULL). Free the buffer with fermata_speech_free.
size_t fermata_speech_render(const char *text, int16_t **samples);

void fermata_speech_free(int16_t *samples);

#endif
