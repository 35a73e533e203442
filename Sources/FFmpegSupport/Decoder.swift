import CFFmpeg

/// A decoder for one stream of a `Demuxer`. Owns its `AVCodecContext`; `deinit` frees it.
public final class Decoder {
    public let context: UnsafeMutablePointer<AVCodecContext>
    public let timeBase: Rational

    /// Opens the decoder a stream names. The corresponding FFmpeg calls are `avcodec_find_decoder`,
    /// `avcodec_parameters_to_context` and `avcodec_open2`.
    public init(demuxer: Demuxer, streamIndex: Int, threads: Int = 0) throws(FFmpegError) {
        let st = demuxer.stream(streamIndex)
        let par = st.pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            throw FFmpegError(code: -1_094_995_529 /* AVERROR_DECODER_NOT_FOUND */, call: "avcodec_find_decoder")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.noMemory, call: "avcodec_alloc_context3")
        }
        context = ctx
        timeBase = Rational(st.pointee.time_base)
        try check(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = st.pointee.time_base
        ctx.pointee.thread_count = Int32(threads)
        if par.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            ctx.pointee.framerate = av_guess_frame_rate(demuxer.context, st, nil)
        }
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Whether this FFmpeg has a decoder for a stream's codec. The corresponding FFmpeg call is `avcodec_find_decoder`.
    public static func exists(for demuxer: Demuxer, streamIndex: Int) -> Bool {
        avcodec_find_decoder(demuxer.stream(streamIndex).pointee.codecpar.pointee.codec_id) != nil
    }

    /// Sends one packet, or nil to start draining. EAGAIN (the decoder is full) is reported as false.
    /// The corresponding FFmpeg call is `avcodec_send_packet`.
    public func send(_ packet: Packet?) throws(FFmpegError) -> Bool {
        let r = avcodec_send_packet(context, packet?.pointer)
        if r == FFmpegError.tryAgain { return false }
        if r == FFmpegError.endOfFile { return true }  // already draining
        try check(r, "avcodec_send_packet")
        return true
    }

    /// Receives one decoded frame into `frame`. The corresponding FFmpeg call is `avcodec_receive_frame`.
    public func receive(into frame: Frame) throws(FFmpegError) -> Receive<Void> {
        let r = avcodec_receive_frame(context, frame.pointer)
        if r == FFmpegError.tryAgain { return .needsInput }
        if r == FFmpegError.endOfFile { return .endOfStream }
        try check(r, "avcodec_receive_frame")
        return .value(())
    }

    public var isAudio: Bool { context.pointee.codec_type == AVMEDIA_TYPE_AUDIO }

    /// Skip decoding frames no other frame refers to (B-frames), to reach a point after a seek sooner.
    /// The corresponding FFmpeg field is `AVCodecContext.skip_frame` (`AVDISCARD_NONREF`).
    public var skipsNonReferenceFrames: Bool {
        get { context.pointee.skip_frame == AVDISCARD_NONREF }
        set { context.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    /// Forgets buffered frames after a seek. The corresponding FFmpeg call is `avcodec_flush_buffers`.
    public func flush() { avcodec_flush_buffers(context) }
}

/// An encoder. Owns its `AVCodecContext`; `deinit` frees it.
public final class Encoder {
    public let context: UnsafeMutablePointer<AVCodecContext>

    /// The settings of an H.264 (libx264) video encoder.
    public struct VideoSettings: Sendable {
        public var width: Int
        public var height: Int
        public var frameRate: Rational
        public var crf: Int
        public var preset: String
        public var color: ColorDescription
        public var threads: Int
        public var globalHeader: Bool
        public var keyframeInterval: Int?
        /// The encoder's time base; nil: one tick a frame (1/fps).
        public var timeBase: Rational?

        public init(width: Int, height: Int, frameRate: Rational, crf: Int, preset: String,
                    color: ColorDescription, threads: Int, globalHeader: Bool,
                    keyframeInterval: Int? = nil) {
            self.width = width; self.height = height; self.frameRate = frameRate; self.crf = crf
            self.preset = preset; self.color = color
            self.threads = threads; self.globalHeader = globalHeader; self.keyframeInterval = keyframeInterval
        }
    }

    /// Opens libx264. The corresponding FFmpeg calls are `avcodec_find_encoder_by_name` and `avcodec_open2`.
    public init(video s: VideoSettings) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_H264) else {
            throw FFmpegError(code: -1_163_346_256 /* AVERROR_ENCODER_NOT_FOUND */, call: "avcodec_find_encoder(h264)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.noMemory, call: "avcodec_alloc_context3")
        }
        context = ctx
        ctx.pointee.width = Int32(s.width)
        ctx.pointee.height = Int32(s.height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        ctx.pointee.time_base = (s.timeBase ?? s.frameRate.inverted).av
        ctx.pointee.framerate = s.frameRate.av
        ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        ctx.pointee.colorspace = s.color.matrix.av
        ctx.pointee.color_range = s.color.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        switch s.color.matrix {
        case .bt709:
            ctx.pointee.color_primaries = AVCOL_PRI_BT709
            ctx.pointee.color_trc = AVCOL_TRC_BT709
        default:
            ctx.pointee.color_primaries = AVCOL_PRI_SMPTE170M
            ctx.pointee.color_trc = AVCOL_TRC_SMPTE170M
        }
        ctx.pointee.thread_count = Int32(s.threads)
        if let g = s.keyframeInterval { ctx.pointee.gop_size = Int32(g) }
        if s.globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", s.preset, 0)
        av_dict_set(&options, "crf", String(s.crf), 0)
        try check(avcodec_open2(ctx, codec, &options), "avcodec_open2(libx264)")
    }

    /// Opens FFmpeg's native AAC encoder. The corresponding FFmpeg call is `avcodec_open2`.
    public init(aacSampleRate: Int, channels: Int, bitRate: Int, globalHeader: Bool) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else {
            throw FFmpegError(code: -1_163_346_256, call: "avcodec_find_encoder(aac)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.noMemory, call: "avcodec_alloc_context3")
        }
        context = ctx
        ctx.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        ctx.pointee.sample_rate = Int32(aacSampleRate)
        av_channel_layout_default(&ctx.pointee.ch_layout, Int32(channels))
        ctx.pointee.bit_rate = Int64(bitRate)
        ctx.pointee.time_base = AVRational(num: 1, den: Int32(aacSampleRate))
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2(aac)")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    public var timeBase: Rational { Rational(context.pointee.time_base) }
    /// Samples a frame must hold (AAC: 1024).
    public var frameSize: Int { Int(context.pointee.frame_size) }

    /// Sends one frame, or nil to drain. The corresponding FFmpeg call is `avcodec_send_frame`.
    public func send(_ frame: Frame?) throws(FFmpegError) {
        try check(avcodec_send_frame(context, frame?.pointer), "avcodec_send_frame")
    }

    /// Receives one packet. The corresponding FFmpeg call is `avcodec_receive_packet`.
    public func receive(into packet: Packet) throws(FFmpegError) -> Receive<Void> {
        let r = avcodec_receive_packet(context, packet.pointer)
        if r == FFmpegError.tryAgain { return .needsInput }
        if r == FFmpegError.endOfFile { return .endOfStream }
        try check(r, "avcodec_receive_packet")
        return .value(())
    }
}

/// An owned `AVCodecParameters`: what a muxer needs to know of an encoded stream.
public final class CodecParameters {
    public let pointer: UnsafeMutablePointer<AVCodecParameters>

    /// The corresponding FFmpeg call is `avcodec_parameters_alloc`.
    public init() {
        guard let p = avcodec_parameters_alloc() else { fatalError("avcodec_parameters_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&p)
    }

    public var isVideo: Bool { pointer.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
}

extension Encoder {
    /// One picture (rgb24) as PNG bytes. The corresponding FFmpeg calls are `avcodec_send_frame` and
    /// `avcodec_receive_packet` on the PNG encoder.
    public static func png(_ frame: Frame) throws(FFmpegError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw FFmpegError(code: -1_163_346_256, call: "avcodec_find_encoder(png)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.noMemory, call: "avcodec_alloc_context3")
        }
        var c: UnsafeMutablePointer<AVCodecContext>? = ctx
        defer { avcodec_free_context(&c) }
        ctx.pointee.width = Int32(frame.width)
        ctx.pointee.height = Int32(frame.height)
        ctx.pointee.pix_fmt = frame.pixelFormat.av
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2(png)")
        try check(avcodec_send_frame(ctx, frame.pointer), "avcodec_send_frame(png)")
        try check(avcodec_send_frame(ctx, nil), "avcodec_send_frame(png, NULL)")
        let packet = Packet()
        try check(avcodec_receive_packet(ctx, packet.pointer), "avcodec_receive_packet(png)")
        return packet.encoded.data
    }
}
