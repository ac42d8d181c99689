#include <opusfile.h>

/* opus_decoder_ctl is variadic (Swift cannot call it): the two requests Fermata makes. */
static inline int fm_opus_reset(OpusDecoder *decoder) { return opus_decoder_ctl(decoder, OPUS_RESET_STATE); }
static inline int fm_opus_set_gain(OpusDecoder *decoder, int q8) { return opus_decoder_ctl(decoder, OPUS_SET_GAIN(q8)); }
