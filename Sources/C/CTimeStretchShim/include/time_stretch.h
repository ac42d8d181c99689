// A C interface to SoundTouch's tempo change (time-stretch without pitch change) and transposition (pitch change
// without tempo change) for Fermata's decoder thread.
// SoundTouch has only a C++ API; this shim keeps Swift on plain C. One stretcher per thread; not thread-safe.
#ifndef FERMATA_TIME_STRETCH_H
#define FERMATA_TIME_STRETCH_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fermata_stretch fermata_stretch;

/// A stretcher for interleaved float samples. Returns NULL when out of memory.
fermata_stretch *fermata_stretch_new(unsigned sample_rate, unsigned channels);
void fermata_stretch_free(fermata_stretch *stretch);
/// Playback speed: 1.0 normal, 0.5 half speed; takes effect for the samples put after it.
void fermata_stretch_set_tempo(fermata_stretch *stretch, double tempo);
/// Transposition in semitones (fractions are cents: 0.25 = 25 cents; 0 untouched), independent of the tempo; takes
/// effect for the samples put after it.
void fermata_stretch_set_pitch_semitones(fermata_stretch *stretch, double semitones);
/// Appends `frames` frames; SoundTouch copies them into its own (grown once, then reused) buffers.
void fermata_stretch_put(fermata_stretch *stretch, const float *samples, unsigned frames);
/// Moves up to `max_frames` stretched frames into `out`; returns how many.
unsigned fermata_stretch_receive(fermata_stretch *stretch, float *out, unsigned max_frames);
/// Stretched frames ready to receive.
unsigned fermata_stretch_available(const fermata_stretch *stretch);
/// Pushes the last input through (pads with silence internally) so everything put comes out.
void fermata_stretch_flush(fermata_stretch *stretch);
/// Output frames still owed for the frames put since the last clear: frames put / tempo (rounded), less the frames
/// received. What a loop pass must still give to be exactly its source frames / its tempo long.
long fermata_stretch_owed(const fermata_stretch *stretch);
/// Appends frames that only push the owed ones out (what follows the end of a pass): they are not owed themselves.
void fermata_stretch_put_lookahead(fermata_stretch *stretch, const float *samples, unsigned frames);
/// Keeps the first `frames` ready frames and drops the rest of the ready output.
void fermata_stretch_keep(fermata_stretch *stretch, unsigned frames);
/// Drops everything buffered, keeping the settings.
void fermata_stretch_clear(fermata_stretch *stretch);
/// The library's version string, e.g. "2.3.2".
const char *fermata_stretch_version(void);

#ifdef __cplusplus
}
#endif
#endif
