#ifndef FERMATA_AV_SHIM_H
#define FERMATA_AV_SHIM_H
/*
 * FFmpeg's demuxer and decoders for MP4/M4A (AAC, ALAC) and raw ADTS AAC, loaded at run time with dlopen.
 *
 * FFmpeg is optional on a board: it pulls a large tree of packages. Fermata builds against its headers, and plays
 * these formats only when the same major versions of libavformat, libavcodec and libavutil are installed;
 * fm_av_available() says whether they are and, if not, why. Everything else (gapless trimming, sample-accurate
 * seeking, tags) is Fermata's own code in Swift; this shim only demuxes and decodes.
 *
 * A handle belongs to one thread at a time (the decoder thread). fm_av_available may be called from any thread.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct fm_av fm_av;

/* Sample layouts the shim hands out, always interleaved. */
enum fm_av_sample { FM_AV_F32 = 1, FM_AV_S16 = 2, FM_AV_S32 = 3 };

typedef struct fm_av_info {
    int sample_rate;       /* the decoder's output rate (HE-AAC with implicit SBR: the doubled rate) */
    int channels;
    int sample;            /* enum fm_av_sample */
    int bits;              /* meaningful bits for integer output (16, 20, 24, 32) */
    int codec;             /* 1 AAC, 2 ALAC */
    int64_t tb_num, tb_den;/* the stream's time base */
    int64_t first_pts;     /* the first packet's pts (0 in MP4 with the edit list ignored) */
} fm_av_info;

/* 1 when FFmpeg could be loaded; else 0 with the reason in why. */
int fm_av_available(char *why, size_t why_size);
/* The sonames the shim looks for, for messages ("libavcodec.so.59 ..."). */
const char *fm_av_sonames(void);

/* Opens path, picks its audio stream and opens the decoder. The MP4 edit list is ignored: Fermata trims itself.
 * deadline_ms bounds each blocking call (0: no bound). NULL on failure, with the reason in err. */
fm_av *fm_av_open(const char *path, int deadline_ms, fm_av_info *info, char *err, size_t err_size);
void fm_av_close(fm_av *handle);

/* A stream's bytes, in order: the count read into buffer (at most size), 0 at the end or on a failure. Called on
 * the thread that calls fm_av_open_stream and fm_av_next. */
typedef int (*fm_av_read_fn)(void *opaque, unsigned char *buffer, int size);
/* Opens raw ADTS AAC read through `read` (no seeking) and its decoder, as fm_av_open does a file. */
fm_av *fm_av_open_stream(fm_av_read_fn read, void *opaque, int deadline_ms, fm_av_info *info, char *err,
                         size_t err_size);

/* Decodes the next frame. Returns its frame count (> 0), 0 at the end, < 0 on an error (reason in err).
 * *samples points at interleaved samples in info.sample layout, valid until the next call; *pts is the frame's
 * timestamp in the stream's time base (INT64_MIN when unknown). */
int fm_av_next(fm_av *handle, const void **samples, int64_t *pts, char *err, size_t err_size);

/* The decoder's output rate now (HE-AAC with implicit SBR: known after the first frame). */
int fm_av_sample_rate(fm_av *handle);

/* Seeks to the last packet at or before pts (stream time base) and flushes the decoder. 0 on success. */
int fm_av_seek(fm_av *handle, int64_t pts, char *err, size_t err_size);

#endif
