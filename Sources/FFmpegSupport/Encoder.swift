internal import CFFmpeg

/// An encoder. Owns its `AVCodecContext`; `deinit` frees it.
public final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// Takes ownership of an allocated (not yet opened) context.
    init(owning context: UnsafeMutablePointer<AVCodecContext>) {
        self.context = context
    }

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
        /// Frames x264's rate control looks ahead (`rc-lookahead`); nil: the preset's.
        public var lookahead: Int?

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
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(h264)")
        }
        let ctx = try Encoder.videoContext(codec, s, pixelFormat: AV_PIX_FMT_YUV420P)
        context = ctx
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
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", s.preset, 0)
        av_dict_set(&options, "crf", String(s.crf), 0)
        if let l = s.lookahead { av_dict_set(&options, "rc-lookahead", String(l), 0) }
        try check(avcodec_open2(ctx, codec, &options), "avcodec_open2(libx264)")
    }

    /// Opens libx265 for HEVC Main 10 (yuv420p10le) tagged BT.2020 with `transfer` (HLG or PQ): an HDR output, with
    /// `light` (the source's mastering display and light levels) in its SEI. The settings' crf and preset are x265's
    /// (their scales are x264's). The corresponding FFmpeg call is `avcodec_open2`.
    public init(hevc10 s: VideoSettings, transfer: HDRTransfer, light: LightMetadata? = nil) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder_by_name("libx265") else {
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(libx265)")
        }
        let ctx = try Encoder.videoContext(codec, s, pixelFormat: AV_PIX_FMT_YUV420P10LE)
        context = ctx
        ctx.pointee.colorspace = AVCOL_SPC_BT2020_NCL
        ctx.pointee.color_range = AVCOL_RANGE_MPEG
        ctx.pointee.color_primaries = AVCOL_PRI_BT2020
        ctx.pointee.color_trc = transfer == .hlg ? AVCOL_TRC_ARIB_STD_B67 : AVCOL_TRC_SMPTE2084
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", s.preset, 0)
        av_dict_set(&options, "crf", String(s.crf), 0)
        // The rate control's lookahead as x264's (`lookahead`, bounded for memory by the default preset, as x264's is).
        let lookahead = s.lookahead.map { ":rc-lookahead=\($0)" } ?? ""
        let lightParameters = light.map { $0.x265Parameters.isEmpty ? "" : ":" + $0.x265Parameters } ?? ""
        av_dict_set(&options, "x265-params", "log-level=error" + lookahead + (transfer == .pq ? ":hdr10=1" : "") + lightParameters, 0)
        try check(avcodec_open2(ctx, codec, &options), "avcodec_open2(libx265)")
    }

    /// A video encoder's context for `s`: size, time base and rate, square pixels, threads, keyframes, global header.
    /// The corresponding FFmpeg call is `avcodec_alloc_context3`.
    private static func videoContext(_ codec: UnsafePointer<AVCodec>, _ s: VideoSettings,
                                     pixelFormat: AVPixelFormat) throws(FFmpegError) -> UnsafeMutablePointer<AVCodecContext> {
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(.noMemory, call: "avcodec_alloc_context3")
        }
        ctx.pointee.width = Int32(s.width)
        ctx.pointee.height = Int32(s.height)
        ctx.pointee.pix_fmt = pixelFormat
        ctx.pointee.time_base = (s.timeBase ?? s.frameRate.inverted).av
        ctx.pointee.framerate = s.frameRate.av
        ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        ctx.pointee.thread_count = Int32(s.threads)
        if let g = s.keyframeInterval { ctx.pointee.gop_size = Int32(g) }
        if s.globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        return ctx
    }

    /// Opens FFmpeg's native AAC encoder. The corresponding FFmpeg call is `avcodec_open2`.
    public init(aacSampleRate: Int, channels: Int, bitRate: Int, globalHeader: Bool) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else {
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(aac)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(.noMemory, call: "avcodec_alloc_context3")
        }
        context = ctx
        ctx.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        ctx.pointee.sample_rate = Int32(aacSampleRate)
        av_channel_layout_default(&ctx.pointee.ch_layout, Int32(channels))
        ctx.pointee.bit_rate = Int64(bitRate)
        ctx.pointee.time_base = AVRational(num: 1, den: Int32(aacSampleRate))
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // The "fast" coder, not FFmpeg 5.1's default "twoloop": twoloop's quantiser search runs 3–6× longer on
        // sound that was AAC before (its spectrum holds the first encoder's emptied bands), which is most
        // real sources; at the bit rates used here fast codes as well (SNR against the source in Benchmarks/RESULTS.md;
        // FFmpeg made it the default in 2018 on the same grounds, commit fcb681ac; 5.1 defaults to twoloop).
        var options: OpaquePointer? = nil
        av_dict_set(&options, "aac_coder", "fast", 0)
        defer { av_dict_free(&options) }
        try check(avcodec_open2(ctx, codec, &options), "avcodec_open2(aac)")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// The packet `encode` receives into, reused.
    private let packet = Packet()

    public var timeBase: Rational { Rational(context.pointee.time_base) }
    /// Samples a frame must hold (AAC: 1024).
    public var frameSize: Int { Int(context.pointee.frame_size) }

    /// Sends one frame (nil: the end of the stream) and returns every packet that is ready, as plain
    /// values for the writer. With nil, the encoder is drained: every packet it still holds comes out.
    /// This is the one send/receive loop of the encoders. The corresponding FFmpeg calls are
    /// `avcodec_send_frame` and `avcodec_receive_packet`.
    public func encode(_ frame: Frame?) throws(FFmpegError) -> [EncodedPacket] {
        let sent = avcodec_send_frame(context, frame?.pointer)
        // The end sent twice: the encoder is drained already, and has nothing more (a value, not a failure).
        if frame == nil && sent == FFmpegError.Code.endOfFile.rawValue { return [] }
        try check(sent, "avcodec_send_frame")
        var out: [EncodedPacket] = []
        while true {
            let r = avcodec_receive_packet(context, packet.pointer)
            if r == FFmpegError.Code.tryAgain.rawValue || r == FFmpegError.Code.endOfFile.rawValue { return out }
            try check(r, "avcodec_receive_packet")
            out.append(packet.encoded)
            packet.unref()
        }
    }

    /// Every packet the encoder still holds: `encode(nil)`.
    public func drain() throws(FFmpegError) -> [EncodedPacket] { try encode(nil) }
}

extension Encoder {
    /// Opens FFmpeg's `id` still-picture encoder for pictures like `frame`; `configure` sets what is particular
    /// to it. The corresponding FFmpeg call is `avcodec_open2`.
    private convenience init(picture id: AVCodecID, name: String, for frame: Frame,
                             configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder(id) else {
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(\(name))")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(.noMemory, call: "avcodec_alloc_context3")
        }
        self.init(owning: ctx)
        ctx.pointee.width = Int32(frame.width)
        ctx.pointee.height = Int32(frame.height)
        ctx.pointee.pix_fmt = frame.pixelFormat.av
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        configure(ctx)
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2(\(name))")
    }

    /// Opens FFmpeg's PNG encoder for pictures like `frame`.
    convenience init(pngFor frame: Frame) throws(FFmpegError) {
        try self.init(picture: AV_CODEC_ID_PNG, name: "png", for: frame)
    }

    /// One picture (rgb24) as PNG bytes.
    public static func png(_ frame: Frame) throws(FFmpegError) -> [UInt8] {
        let encoder = try Encoder(pngFor: frame)
        let packets = try encoder.encode(frame) + encoder.drain()
        guard let first = packets.first else { throw FFmpegError(.invalidData, call: "avcodec_receive_packet(png)") }
        return first.data
    }

    /// Opens FFmpeg's JPEG encoder (MJPEG) for yuvj420p pictures like `frame` at a fixed quantiser `quality`
    /// (2 … 31, lower is better).
    convenience init(jpegFor frame: Frame, quality: Int) throws(FFmpegError) {
        try self.init(picture: AV_CODEC_ID_MJPEG, name: "mjpeg", for: frame) { ctx in
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
            ctx.pointee.qmin = Int32(quality)
            ctx.pointee.qmax = Int32(quality)
        }
    }

    /// One picture (yuvj420p) as JPEG bytes.
    public static func jpeg(_ frame: Frame, quality: Int) throws(FFmpegError) -> [UInt8] {
        let encoder = try Encoder(jpegFor: frame, quality: min(max(quality, 2), 31))
        let packets = try encoder.encode(frame) + encoder.drain()
        guard let first = packets.first else { throw FFmpegError(.invalidData, call: "avcodec_receive_packet(mjpeg)") }
        return first.data
    }
}
