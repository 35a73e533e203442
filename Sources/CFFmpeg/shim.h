#ifndef MIXWRITE_CFFMPEG_SHIM_H
#define MIXWRITE_CFFMPEG_SHIM_H

#include <string.h>
#include <stdio.h>
#include <pthread.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/timecode.h>
#include <libavutil/tx.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <zlib.h>
#include "compat.h"

// Swift cannot import function-like macros, so each one it needs gets a helper here.

/// AVERROR(EAGAIN): "output not available in this state, send more input".
static inline int mw_averror_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_EOF: "end of stream"; a value, not a failure, when draining.
static inline int mw_averror_eof(void) { return AVERROR_EOF; }
/// AVERROR(ENOMEM), for our own allocation failures reported through FFmpegError.
static inline int mw_averror_enomem(void) { return AVERROR(ENOMEM); }
/// AVERROR(ENOSPC), to recognise a full disk among write errors.
static inline int mw_averror_enospc(void) { return AVERROR(ENOSPC); }
/// AVERROR(EINVAL).
static inline int mw_averror_einval(void) { return AVERROR(EINVAL); }
/// AV_NOPTS_VALUE is a cast expression Swift imports as nothing.
static inline int64_t mw_nopts_value(void) { return AV_NOPTS_VALUE; }
/// AVERROR(e) for an errno value, to turn an OS error into FFmpeg's convention.
static inline int mw_averror_from_errno(int e) { return AVERROR(e); }
/// AVERROR_DECODER_NOT_FOUND, AVERROR_ENCODER_NOT_FOUND and AVERROR_INVALIDDATA are FFERRTAG expressions Swift
/// cannot import.
static inline int mw_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int mw_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int mw_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }

/// The stream's display matrix (rotation/reflection of phone recordings), or NULL.
static inline const int32_t *mw_stream_display_matrix(const AVStream *st) {
    size_t size = 0;
    const uint8_t *data = mw_stream_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return data && size >= 9 * 4 ? (const int32_t *)data : NULL;
}

/// Attaches a display matrix (the rotation of copied phone video) to an output stream.
static inline int mw_stream_set_display_matrix(AVStream *st, const int32_t *matrix) {
    uint8_t *data = mw_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4);
    if (!data) return AVERROR(ENOMEM);
    memcpy(data, matrix, 9 * 4);
    return 0;
}

/// Whether the muxer named `format` can store `codec` (1 yes, 0 no, negative unknown).
static inline int mw_format_can_hold(const char *format, enum AVCodecID codec) {
    const AVOutputFormat *f = av_guess_format(format, NULL, NULL);
    return f ? avformat_query_codec(f, codec, FF_COMPLIANCE_NORMAL) : 0;
}

/// Whether muxer `format` writes its header for one stream copied with `par`, tried on the file `scratch`
/// (the caller removes it). Some muxers accept a codec by avformat_query_codec and refuse it at the header.
/// FFmpeg's own log is silenced for the try: a refusal here is an answer, not an error.
static inline int mw_header_accepts(const char *format, const AVCodecParameters *par, const char *scratch) {
    AVFormatContext *oc = NULL;
    if (avformat_alloc_output_context2(&oc, NULL, format, NULL) < 0 || !oc) return 0;
    int ok = 0;
    AVStream *st = avformat_new_stream(oc, NULL);
    if (st && avcodec_parameters_copy(st->codecpar, par) >= 0 && avio_open(&oc->pb, scratch, AVIO_FLAG_WRITE) >= 0) {
        st->codecpar->codec_tag = 0;
        st->time_base = (AVRational){1, 90000};
        int level = av_log_get_level();
        av_log_set_level(AV_LOG_QUIET);
        ok = avformat_write_header(oc, NULL) >= 0;
        av_log_set_level(level);
        avio_closep(&oc->pb);
    }
    avformat_free_context(oc);
    return ok;
}

/// FFmpeg's log, routed: every warning or error line is counted, and written to stderr only when shown
/// (`-v`). FFmpeg calls this from its own threads too, hence the lock; the prefix state of a line that
/// comes in parts is FFmpeg's, kept between calls under the same lock.
typedef struct {
    pthread_mutex_t lock;
    int show;
    int prefix;
    long count;
} mw_log_state_t;
static mw_log_state_t mw_log_state = { PTHREAD_MUTEX_INITIALIZER, 0, 1, 0 };

static void mw_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > AV_LOG_WARNING) return;
    char line[1024];
    pthread_mutex_lock(&mw_log_state.lock);
    int starts = mw_log_state.prefix;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &mw_log_state.prefix);
    if (starts) mw_log_state.count++;
    if (mw_log_state.show) fputs(line, stderr);
    pthread_mutex_unlock(&mw_log_state.lock);
}

static inline void mw_log_route(int show) {
    pthread_mutex_lock(&mw_log_state.lock);
    mw_log_state.show = show;
    pthread_mutex_unlock(&mw_log_state.lock);
    av_log_set_level(AV_LOG_WARNING);
    av_log_set_callback(mw_log_callback);
}

static inline long mw_log_count(void) {
    pthread_mutex_lock(&mw_log_state.lock);
    long c = mw_log_state.count;
    pthread_mutex_unlock(&mw_log_state.lock);
    return c;
}

/// A new audio frame in `like`'s sample format, layout and rate holding `count` samples: silence when `offset` is
/// negative, else `like`'s samples from `offset` on (what a gap filled or an overlap trimmed needs). In C because
/// av_samples_copy's and av_samples_set_silence's pointer parameters gained `const` in FFmpeg 7.0 (libavutil 59),
/// which Swift imports as two different types; C converts either implicitly.
static inline int mw_audio_frame_from(AVFrame *dst, const AVFrame *like, int offset, int count) {
    dst->format = like->format;
    dst->sample_rate = like->sample_rate;
    dst->nb_samples = count;
    int r = av_channel_layout_copy(&dst->ch_layout, &like->ch_layout);
    if (r < 0) return r;
    if ((r = av_frame_get_buffer(dst, 0)) < 0) return r;
    int channels = like->ch_layout.nb_channels;
    if (offset < 0) return av_samples_set_silence(dst->extended_data, 0, count, channels, like->format);
    return av_samples_copy(dst->extended_data, like->extended_data, 0, offset, count, channels, like->format);
}

/// A complex single-precision FFT of `len` points (AV_TX_FLOAT_FFT, in libavutil since FFmpeg 4.4), forward or
/// inverse, unscaled; `run` transforms `len` interleaved (re, im) floats from `in` into `out`. In C because av_tx_fn
/// is a function pointer Swift would have to call through an optional. AV_TX_UNALIGNED: Swift arrays are not aligned
/// for AVX.
static inline int mw_fft_init(AVTXContext **ctx, av_tx_fn *fn, int len, int inverse) {
    float scale = 1.0f;
    return av_tx_init(ctx, fn, AV_TX_FLOAT_FFT, inverse, len, &scale, AV_TX_UNALIGNED);
}
static inline void mw_fft_run(AVTXContext *ctx, av_tx_fn fn, float *out, float *in) {
    fn(ctx, out, in, sizeof(AVComplexFloat));
}

#endif
