#ifndef MIXWRITE_CFFMPEG_COMPAT_H
#define MIXWRITE_CFFMPEG_COMPAT_H

// Every difference between the FFmpeg versions mixwrite builds on, FFmpeg 5.1 (Debian 12) through 9.0 (Debian
// sid), and the only place that tests a LIBAV*_VERSION: each difference gets one call here, and Swift calls
// that, never an API some supported version lacks (as mpv keeps misc/lavc_compat.h). What differs, and when:
//
// - Stream side data: av_stream_get_side_data/av_stream_new_side_data (5.1, 6.0) became
//   codecpar->coded_side_data with av_packet_side_data_get/_new (FFmpeg 6.1: libavformat 60.16, libavcodec 60.31,
//   the versions tested); the old calls were removed in libavformat 61 (FFmpeg 7.0).
// - Removing one kind of a packet's side data: av_packet_side_data_remove from FFmpeg 6.1 (libavcodec 60.31).
// - swscale: SwsContext was an opaque struct and the flags plain #defines; from libswscale 8.13 (FFmpeg 8.0)
//   SwsContext is a public struct and the flags an enum (SwsFlags), so Swift sees another pointer type and can no
//   longer or the flags together. mixwrite holds the context as mw_sws_t, an incomplete type in every version.
//
// What 7.0, 8.0 and 9.0 removed that mixwrite never names, because 5.1 already had the newer form: channels and
// channel_layout (ch_layout is used), avcodec_close (avcodec_free_context), AVCodecContext.ticks_per_frame (the
// frame rate is set), AVFrame.key_frame and interlaced_frame (not read), FF_PROFILE_* (avcodec_profile_name names a
// profile), AVCodec.pix_fmts, sample_fmts and supported_framerates (mixwrite chooses each encoder's formats itself),
// AVFrame.pkt_duration (packets' durations are read). Filters are created whole by avfilter_graph_create_filter with
// their options in its argument string, so none is set after initialisation (8.0 refuses that for buffersink), and
// abuffersink is never told all_channel_counts (gone in 8.0): the graph's last aformat fixes the layout it receives.

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>

/// The side data of type `type` a stream carries (display matrix, mastering display, content light), and its
/// size; NULL without.
static inline const uint8_t *mw_stream_side_data(const AVStream *st, enum AVPacketSideDataType type, size_t *size) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 16, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data, type);
    *size = sd ? sd->size : 0;
    return sd ? sd->data : NULL;
#else
    *size = 0;
    return av_stream_get_side_data(st, type, size);
#endif
}

/// New side data of type `type` and `size` bytes on an output stream, for the caller to fill; NULL without memory.
static inline uint8_t *mw_stream_new_side_data(AVStream *st, enum AVPacketSideDataType type, size_t size) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 16, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&st->codecpar->coded_side_data, &st->codecpar->nb_coded_side_data,
                                                   type, size, 0);
    return sd ? sd->data : NULL;
#else
    return av_stream_new_side_data(st, type, size);
#endif
}

/// A scaler: `struct SwsContext` under a name that is an incomplete type in every version.
typedef struct mw_sws mw_sws_t;

/// A scaler from one size and format to another: bicubic, and with `accurate` exact rounding and chroma
/// interpolated at full resolution. NULL when the formats or sizes are refused.
static inline mw_sws_t *mw_sws_get(int srcW, int srcH, enum AVPixelFormat srcFormat,
                                   int dstW, int dstH, enum AVPixelFormat dstFormat, int accurate) {
    // accurate: 1 exact rounding, full-resolution chroma; 0 the ffmpeg CLI's bicubic; -1 bilinear (a layer scaled
    // down into its rectangle every frame).
    int flags = accurate > 0 ? (int)SWS_BICUBIC | (int)SWS_ACCURATE_RND | (int)SWS_FULL_CHR_H_INT
                             : accurate < 0 ? (int)SWS_BILINEAR : (int)SWS_BICUBIC;
    return (mw_sws_t *)sws_getContext(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, NULL, NULL, NULL);
}

/// The matrices (SWS_CS_*) and ranges (1 full, 0 limited) the scaler reads and writes, brightness, contrast and
/// saturation left as they are.
static inline int mw_sws_set_colorspace(mw_sws_t *c, int srcMatrix, int srcFull, int dstMatrix, int dstFull) {
    return sws_setColorspaceDetails((struct SwsContext *)c, sws_getCoefficients(srcMatrix), srcFull,
                                    sws_getCoefficients(dstMatrix), dstFull, 0, 1 << 16, 1 << 16);
}

/// Converts the whole of `src` into `dst` (allocated at the destination's size and format).
static inline int mw_sws_scale(mw_sws_t *c, const AVFrame *src, AVFrame *dst) {
    return sws_scale((struct SwsContext *)c, (const uint8_t *const *)src->data, src->linesize, 0, src->height,
                     dst->data, dst->linesize);
}

static inline void mw_sws_free(mw_sws_t *c) { sws_freeContext((struct SwsContext *)c); }

#endif
