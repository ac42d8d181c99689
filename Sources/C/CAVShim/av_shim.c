// FFmpeg through dlopen: see include/av_shim.h for the contract.
#include "av_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>

#define FM_STR2(x) #x
#define FM_STR(x) FM_STR2(x)
#define SONAME_FORMAT "libavformat.so." FM_STR(LIBAVFORMAT_VERSION_MAJOR)
#define SONAME_CODEC "libavcodec.so." FM_STR(LIBAVCODEC_VERSION_MAJOR)
#define SONAME_UTIL "libavutil.so." FM_STR(LIBAVUTIL_VERSION_MAJOR)

/* The FFmpeg functions the shim calls, resolved once. */
static struct {
    int (*open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*find_stream_info)(AVFormatContext *, AVDictionary **);
    void (*close_input)(AVFormatContext **);
    AVFormatContext *(*alloc_context)(void);
    int (*read_frame)(AVFormatContext *, AVPacket *);
    int (*seek_frame)(AVFormatContext *, int, int64_t, int);
    int (*find_best_stream)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int);
    const AVCodec *(*find_decoder)(enum AVCodecID);
    AVCodecContext *(*alloc_codec)(const AVCodec *);
    int (*parameters_to_context)(AVCodecContext *, const AVCodecParameters *);
    int (*codec_open)(AVCodecContext *, const AVCodec *, AVDictionary **);
    int (*send_packet)(AVCodecContext *, const AVPacket *);
    int (*receive_frame)(AVCodecContext *, AVFrame *);
    void (*free_codec)(AVCodecContext **);
    AVPacket *(*packet_alloc)(void);
    void (*packet_free)(AVPacket **);
    void (*packet_unref)(AVPacket *);
    AVFrame *(*frame_alloc)(void);
    void (*frame_free)(AVFrame **);
    void (*frame_unref)(AVFrame *);
    int (*dict_set)(AVDictionary **, const char *, const char *, int);
    void (*dict_free)(AVDictionary **);
    void (*log_set_level)(int);
    int (*strerror)(int, char *, size_t);
    void *(*malloc)(size_t);
    void (*freep)(void *);
    AVIOContext *(*avio_alloc)(unsigned char *, int, int, void *, int (*)(void *, uint8_t *, int),
                               int (*)(void *, const uint8_t *, int), int64_t (*)(void *, int64_t, int));
    void (*avio_free)(AVIOContext **);
    const AVInputFormat *(*find_input_format)(const char *);
} av;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char load_error[256];

static void *symbol(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p && !load_error[0]) snprintf(load_error, sizeof load_error, "%s has no %s", SONAME_CODEC, name);
    return p;
}

static void load(void) {
    void *util = dlopen(SONAME_UTIL, RTLD_NOW | RTLD_LOCAL);
    void *codec = util ? dlopen(SONAME_CODEC, RTLD_NOW | RTLD_LOCAL) : NULL;
    void *format = codec ? dlopen(SONAME_FORMAT, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!format) {
        const char *missing = !util ? SONAME_UTIL : !codec ? SONAME_CODEC : SONAME_FORMAT;
        snprintf(load_error, sizeof load_error, "%s is not installed", missing);
        return;
    }
    *(void **)&av.open_input = symbol(format, "avformat_open_input");
    *(void **)&av.find_stream_info = symbol(format, "avformat_find_stream_info");
    *(void **)&av.close_input = symbol(format, "avformat_close_input");
    *(void **)&av.alloc_context = symbol(format, "avformat_alloc_context");
    *(void **)&av.read_frame = symbol(format, "av_read_frame");
    *(void **)&av.seek_frame = symbol(format, "av_seek_frame");
    *(void **)&av.find_best_stream = symbol(format, "av_find_best_stream");
    *(void **)&av.find_decoder = symbol(codec, "avcodec_find_decoder");
    *(void **)&av.alloc_codec = symbol(codec, "avcodec_alloc_context3");
    *(void **)&av.parameters_to_context = symbol(codec, "avcodec_parameters_to_context");
    *(void **)&av.codec_open = symbol(codec, "avcodec_open2");
    *(void **)&av.send_packet = symbol(codec, "avcodec_send_packet");
    *(void **)&av.receive_frame = symbol(codec, "avcodec_receive_frame");
    *(void **)&av.free_codec = symbol(codec, "avcodec_free_context");
    *(void **)&av.packet_alloc = symbol(codec, "av_packet_alloc");
    *(void **)&av.packet_free = symbol(codec, "av_packet_free");
    *(void **)&av.packet_unref = symbol(codec, "av_packet_unref");
    *(void **)&av.frame_alloc = symbol(util, "av_frame_alloc");
    *(void **)&av.frame_free = symbol(util, "av_frame_free");
    *(void **)&av.frame_unref = symbol(util, "av_frame_unref");
    *(void **)&av.dict_set = symbol(util, "av_dict_set");
    *(void **)&av.dict_free = symbol(util, "av_dict_free");
    *(void **)&av.log_set_level = symbol(util, "av_log_set_level");
    *(void **)&av.strerror = symbol(util, "av_strerror");
    *(void **)&av.malloc = symbol(util, "av_malloc");
    *(void **)&av.freep = symbol(util, "av_freep");
    *(void **)&av.avio_alloc = symbol(format, "avio_alloc_context");
    *(void **)&av.avio_free = symbol(format, "avio_context_free");
    *(void **)&av.find_input_format = symbol(format, "av_find_input_format");
    if (load_error[0]) return;
    av.log_set_level(AV_LOG_QUIET);
    loaded = 1;
}

int fm_av_available(char *why, size_t why_size) {
    pthread_once(&load_once, load);
    if (!loaded && why && why_size) snprintf(why, why_size, "%s", load_error);
    return loaded;
}

const char *fm_av_sonames(void) { return SONAME_FORMAT ", " SONAME_CODEC ", " SONAME_UTIL; }

struct fm_av {
    AVFormatContext *format;
    AVCodecContext *codec;
    const AVCodec *decoder;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int sample;          /* enum fm_av_sample of the output */
    int planar;          /* the decoder hands out one plane per channel */
    int channels;
    int draining;        /* the demuxer has ended; the decoder is being drained */
    int ended;
    void *out;           /* interleaved output buffer */
    size_t out_bytes;
    int64_t deadline_cpu_ns;  /* the calling thread's CPU time past which the current call gives up, 0 for none */
    int64_t deadline_wall_ns; /* and its CLOCK_MONOTONIC time (a call stalled, not spinning), 0 for none */
    int deadline_ms;
    AVIOContext *io;     /* a stream's reader (fm_av_open_stream), else NULL */
    fm_av_read_fn read;
    void *read_opaque;
};

static int64_t clock_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The wall-clock bound is this many times the CPU bound: it only catches a call that waits without working. */
enum { wall_factor = 12 };

/* FFmpeg's blocking calls poll this, on the thread making the call: past the deadline they give up (a file that would
   hold the thread). The deadline is the thread's CPU time, so a loaded machine that merely starves the thread never
   trips it; a call that waits without working is given `wall_factor` times as long in wall time. */
static int interrupted(void *opaque) {
    fm_av *h = opaque;
    if (h->deadline_cpu_ns != 0 && clock_ns(CLOCK_THREAD_CPUTIME_ID) > h->deadline_cpu_ns) return 1;
    return h->deadline_wall_ns != 0 && clock_ns(CLOCK_MONOTONIC) > h->deadline_wall_ns;
}

static void arm(fm_av *h) {
    if (h->deadline_ms <= 0) {
        h->deadline_cpu_ns = h->deadline_wall_ns = 0;
        return;
    }
    int64_t span = (int64_t)h->deadline_ms * 1000000;
    h->deadline_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) + span;
    h->deadline_wall_ns = clock_ns(CLOCK_MONOTONIC) + span * wall_factor;
}

static void say(char *err, size_t size, const char *what, int code) {
    if (!err || !size) return;
    char text[128] = "";
    if (code && loaded) av.strerror(code, text, sizeof text);
    snprintf(err, size, code ? "%s: %s" : "%s", what, text);
}

void fm_av_close(fm_av *h) {
    if (!h) return;
    if (h->frame) av.frame_free(&h->frame);
    if (h->packet) av.packet_free(&h->packet);
    if (h->codec) av.free_codec(&h->codec);
    if (h->format) av.close_input(&h->format);
    if (h->io) {
        av.freep(&h->io->buffer);
        av.avio_free(&h->io);
    }
    free(h->out);
    free(h);
}

/* (Re)creates the decoder from the stream's parameters. A new decoder, not a flushed one, after each seek: AAC's
 * noise substitution draws from a generator that a flush does not reset, so only a fresh decoder makes every pass
 * of a loop the same samples. */
static int open_codec(fm_av *h) {
    if (h->codec) av.free_codec(&h->codec);
    h->codec = av.alloc_codec(h->decoder);
    if (!h->codec) return AVERROR(ENOMEM);
    int rc = av.parameters_to_context(h->codec, h->format->streams[h->stream]->codecpar);
    if (rc < 0) return rc;
    /* Fermata trims priming and padding itself: the decoder must not skip samples on its own. */
    h->codec->flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL;
    h->codec->thread_count = 1;
    return av.codec_open(h->codec, h->decoder, NULL);
}

/* After the demuxer is open: the audio stream, its decoder and the output layout. 0 on success (else h is closed). */
static int finish_open(fm_av *h, fm_av_info *info, int want_codec, char *err, size_t err_size) {
    h->format->max_analyze_duration = 2 * AV_TIME_BASE;
    int rc = av.find_stream_info(h->format, NULL);
    if (rc < 0) { say(err, err_size, "no stream information", rc); fm_av_close(h); return -1; }
    const AVCodec *decoder = NULL;
    h->stream = av.find_best_stream(h->format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
    if (h->stream < 0 || !decoder) { say(err, err_size, "no audio stream FFmpeg can decode", 0); fm_av_close(h); return -1; }
    for (unsigned i = 0; i < h->format->nb_streams; i++)
        if ((int)i != h->stream) h->format->streams[i]->discard = AVDISCARD_ALL;
    AVStream *stream = h->format->streams[h->stream];
    h->decoder = decoder;
    rc = open_codec(h);
    if (rc < 0) { say(err, err_size, "cannot open the decoder", rc); fm_av_close(h); return -1; }
    h->packet = av.packet_alloc();
    h->frame = av.frame_alloc();
    if (!h->packet || !h->frame) { say(err, err_size, "out of memory", 0); fm_av_close(h); return -1; }
    int channels = h->codec->ch_layout.nb_channels;
    if (channels < 1 || channels > 8 || h->codec->sample_rate <= 0) {
        say(err, err_size, "unsupported channel count or sample rate", 0); fm_av_close(h); return -1;
    }
    memset(info, 0, sizeof *info);
    switch (h->codec->sample_fmt) {
    case AV_SAMPLE_FMT_FLTP: case AV_SAMPLE_FMT_FLT: info->sample = FM_AV_F32; info->bits = 32; break;
    case AV_SAMPLE_FMT_S16P: case AV_SAMPLE_FMT_S16: info->sample = FM_AV_S16; info->bits = 16; break;
    case AV_SAMPLE_FMT_S32P: case AV_SAMPLE_FMT_S32:
        info->sample = FM_AV_S32;
        info->bits = h->codec->bits_per_raw_sample > 0 ? h->codec->bits_per_raw_sample : 32;
        break;
    default: say(err, err_size, "unsupported sample format", 0); fm_av_close(h); return -1;
    }
    h->sample = info->sample;
    h->planar = h->codec->sample_fmt == AV_SAMPLE_FMT_FLTP || h->codec->sample_fmt == AV_SAMPLE_FMT_S16P
        || h->codec->sample_fmt == AV_SAMPLE_FMT_S32P;
    h->channels = channels;
    info->sample_rate = h->codec->sample_rate;
    info->channels = channels;
    info->codec = decoder->id == AV_CODEC_ID_AAC ? 1 : decoder->id == AV_CODEC_ID_ALAC ? 2 : 0;
    info->tb_num = stream->time_base.num;
    info->tb_den = stream->time_base.den;
    info->first_pts = stream->start_time == AV_NOPTS_VALUE ? 0 : stream->start_time;
    if (want_codec && info->codec != want_codec) { say(err, err_size, "not AAC or ALAC", 0); fm_av_close(h); return -1; }
    if (!want_codec && info->codec == 0) { say(err, err_size, "not AAC or ALAC", 0); fm_av_close(h); return -1; }
    return 0;
}

static fm_av *new_handle(int deadline_ms, char *err, size_t err_size) {
    if (!fm_av_available(err, err_size)) return NULL;
    fm_av *h = calloc(1, sizeof *h);
    if (!h) { say(err, err_size, "out of memory", 0); return NULL; }
    h->deadline_ms = deadline_ms;
    h->format = av.alloc_context();
    if (!h->format) { say(err, err_size, "out of memory", 0); free(h); return NULL; }
    h->format->interrupt_callback.callback = interrupted;
    h->format->interrupt_callback.opaque = h;
    return h;
}

fm_av *fm_av_open(const char *path, int deadline_ms, fm_av_info *info, char *err, size_t err_size) {
    fm_av *h = new_handle(deadline_ms, err, err_size);
    if (!h) return NULL;
    AVDictionary *options = NULL;
    av.dict_set(&options, "ignore_editlist", "1", 0);
    av.dict_set(&options, "probesize", "1000000", 0);
    arm(h);
    int rc = av.open_input(&h->format, path, NULL, &options);
    av.dict_free(&options);
    if (rc < 0) { say(err, err_size, "cannot open", rc); h->format = NULL; fm_av_close(h); return NULL; }
    return finish_open(h, info, 0, err, err_size) == 0 ? h : NULL;
}

/* FFmpeg's read callback for a stream: the caller's bytes, its end or failure as FFmpeg's end of file. */
static int io_read(void *opaque, uint8_t *buffer, int size) {
    fm_av *h = opaque;
    int count = h->read(h->read_opaque, buffer, size);
    return count > 0 ? count : AVERROR_EOF;
}

fm_av *fm_av_open_stream(fm_av_read_fn read, void *opaque, int deadline_ms, fm_av_info *info, char *err,
                         size_t err_size) {
    fm_av *h = new_handle(deadline_ms, err, err_size);
    if (!h) return NULL;
    const AVInputFormat *adts = av.find_input_format("aac");
    enum { io_size = 16384 };
    unsigned char *buffer = av.malloc(io_size);
    h->read = read;
    h->read_opaque = opaque;
    h->io = buffer && adts ? av.avio_alloc(buffer, io_size, 0, h, io_read, NULL, NULL) : NULL;
    if (!h->io) {
        if (buffer) av.freep(&buffer);
        say(err, err_size, adts ? "out of memory" : "FFmpeg has no ADTS demuxer", 0);
        fm_av_close(h);
        return NULL;
    }
    h->io->seekable = 0;
    h->format->pb = h->io;
    h->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    AVDictionary *options = NULL;
    av.dict_set(&options, "probesize", "65536", 0);
    arm(h);
    int rc = av.open_input(&h->format, NULL, adts, &options);
    av.dict_free(&options);
    if (rc < 0) { say(err, err_size, "cannot open", rc); h->format = NULL; fm_av_close(h); return NULL; }
    return finish_open(h, info, 1, err, err_size) == 0 ? h : NULL;
}

/* Copies h->frame into h->out, interleaved in the output layout. */
static int interleave(fm_av *h) {
    AVFrame *f = h->frame;
    int frames = f->nb_samples, channels = h->channels;
    if (frames <= 0 || f->ch_layout.nb_channels != channels) return -1;
    size_t width = h->sample == FM_AV_S16 ? 2 : 4;
    size_t need = (size_t)frames * channels * width;
    if (need > h->out_bytes) {
        void *grown = realloc(h->out, need);
        if (!grown) return -1;
        h->out = grown;
        h->out_bytes = need;
    }
    if (!h->planar) {
        memcpy(h->out, f->data[0], need);
        return frames;
    }
    for (int c = 0; c < channels; c++) {
        const uint8_t *src = f->extended_data[c];
        uint8_t *dst = (uint8_t *)h->out + c * width;
        for (int i = 0; i < frames; i++) memcpy(dst + (size_t)i * channels * width, src + (size_t)i * width, width);
    }
    return frames;
}

int fm_av_next(fm_av *h, const void **samples, int64_t *pts, char *err, size_t err_size) {
    arm(h);
    for (;;) {
        if (h->ended) return 0;
        int rc = av.receive_frame(h->codec, h->frame);
        if (rc == 0) {
            if (h->frame->format != h->codec->sample_fmt) {
                av.frame_unref(h->frame);
                say(err, err_size, "the sample format changed inside the stream", 0);
                return -1;
            }
            *pts = h->frame->best_effort_timestamp == AV_NOPTS_VALUE ? h->frame->pts : h->frame->best_effort_timestamp;
            if (*pts == AV_NOPTS_VALUE) *pts = INT64_MIN;
            int frames = interleave(h);
            av.frame_unref(h->frame);
            if (frames < 0) { say(err, err_size, "a frame with another channel count or out of memory", 0); return -1; }
            *samples = h->out;
            return frames;
        }
        if (rc == AVERROR_EOF) { h->ended = 1; return 0; }
        if (rc != AVERROR(EAGAIN)) { say(err, err_size, "decode", rc); return -1; }
        if (h->draining) { h->ended = 1; return 0; }
        rc = av.read_frame(h->format, h->packet);
        if (rc < 0) {
            if (rc == AVERROR_EXIT) { say(err, err_size, "reading took too long", 0); return -1; }
            h->draining = 1;
            av.send_packet(h->codec, NULL);
            continue;
        }
        if (h->packet->stream_index != h->stream) { av.packet_unref(h->packet); continue; }
        rc = av.send_packet(h->codec, h->packet);
        av.packet_unref(h->packet);
        /* A damaged packet: skip it, as the decoders of the other formats skip a damaged frame. */
        if (rc < 0 && rc != AVERROR(EAGAIN) && rc != AVERROR_INVALIDDATA) { say(err, err_size, "decode", rc); return -1; }
        if (interrupted(h)) { say(err, err_size, "decoding took too long", 0); return -1; }
    }
}

int fm_av_seek(fm_av *h, int64_t pts, char *err, size_t err_size) {
    arm(h);
    int rc = av.seek_frame(h->format, h->stream, pts, AVSEEK_FLAG_BACKWARD);
    if (rc < 0) { say(err, err_size, "seek", rc); return -1; }
    rc = open_codec(h);
    if (rc < 0) { say(err, err_size, "cannot reopen the decoder", rc); return -1; }
    h->draining = 0;
    h->ended = 0;
    return 0;
}

int fm_av_sample_rate(fm_av *h) { return h->codec ? h->codec->sample_rate : 0; }
