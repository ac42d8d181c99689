// SoundTouch behind the C interface in include/time_stretch.h. See there for the contract.
#include "time_stretch.h"
#include <soundtouch/SoundTouch.h>
#include <new>

struct fermata_stretch {
    soundtouch::SoundTouch touch;
    double tempo = 1;
    /// Output frames owed for what was put since the last clear (SoundTouch keeps the same sum, privately).
    double expected = 0;
    /// Frames received since the last clear.
    long received = 0;
};

extern "C" fermata_stretch *fermata_stretch_new(unsigned sample_rate, unsigned channels) {
    fermata_stretch *stretch = new (std::nothrow) fermata_stretch();
    if (!stretch) return nullptr;
    stretch->touch.setSampleRate(sample_rate);
    stretch->touch.setChannels(channels);
    // Music defaults (SoundTouch picks sequence and seek window from the tempo); no quick seek: quality first,
    // the whole stretch costs about 0.005 CPU s per audio s on the development machine.
    stretch->touch.setSetting(SETTING_USE_QUICKSEEK, 0);
    stretch->touch.setSetting(SETTING_USE_AA_FILTER, 1);
    return stretch;
}

extern "C" void fermata_stretch_free(fermata_stretch *stretch) { delete stretch; }

extern "C" void fermata_stretch_set_tempo(fermata_stretch *stretch, double tempo) {
    stretch->tempo = tempo;
    stretch->touch.setTempo(tempo);
}

extern "C" void fermata_stretch_set_pitch_semitones(fermata_stretch *stretch, double semitones) {
    stretch->touch.setPitchSemiTones(semitones);
}

extern "C" void fermata_stretch_put(fermata_stretch *stretch, const float *samples, unsigned frames) {
    stretch->touch.putSamples(samples, frames);
    stretch->expected += frames / stretch->tempo;
}

extern "C" long fermata_stretch_owed(const fermata_stretch *stretch) {
    long owed = (long)(stretch->expected + 0.5) - stretch->received;
    return owed > 0 ? owed : 0;
}

extern "C" void fermata_stretch_put_lookahead(fermata_stretch *stretch, const float *samples, unsigned frames) {
    stretch->touch.putSamples(samples, frames);
}

extern "C" void fermata_stretch_keep(fermata_stretch *stretch, unsigned frames) {
    stretch->touch.adjustAmountOfSamples(frames);
}

extern "C" unsigned fermata_stretch_receive(fermata_stretch *stretch, float *out, unsigned max_frames) {
    unsigned n = stretch->touch.receiveSamples(out, max_frames);
    stretch->received += n;
    return n;
}

extern "C" unsigned fermata_stretch_available(const fermata_stretch *stretch) {
    return stretch->touch.numSamples();
}

extern "C" void fermata_stretch_flush(fermata_stretch *stretch) { stretch->touch.flush(); }

extern "C" void fermata_stretch_clear(fermata_stretch *stretch) {
    stretch->touch.clear();
    stretch->expected = 0;
    stretch->received = 0;
}

extern "C" const char *fermata_stretch_version(void) { return soundtouch::SoundTouch::getVersionString(); }
