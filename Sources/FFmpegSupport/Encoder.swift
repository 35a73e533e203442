internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The video codecs an output can have (`--codec`), each by one encoder of Debian's FFmpeg 5.1.
public enum VideoCodec: String, Sendable, Codable, CaseIterable {
    case h264, hevc, prores, av1, vp9

    /// FFmpeg's encoder.
    public var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .prores: "prores_ks"
        case .av1: "libsvtav1"
        case .vp9: "libvpx-vp9"
        }
    }
}

/// ProRes's profiles (`--prores-profile`), prores_ks's numbers 0 … 5.
public enum ProResProfile: String, Sendable, Codable, CaseIterable {
    case proxy, lt, standard, hq
    case p4444 = "4444"
    case p4444xq = "4444xq"

    /// 4444 and 4444 XQ: 4:4:4, with an alpha channel when the picture has one.
    public var isFourFourFourFour: Bool { self == .p4444 || self == .p4444xq }

    var number: Int { Self.allCases.firstIndex(of: self)! }
}

/// The audio codecs an output can have (`--audio-codec`).
public enum AudioCodec: String, Sendable, Codable, CaseIterable {
    case aac, opus, flac, pcm

    /// FFmpeg's encoder (PCM: 24-bit little-endian).
    public var encoderName: String {
        switch self {
        case .aac: "aac"
        case .opus: "libopus"
        case .flac: "flac"
        case .pcm: "pcm_s24le"
        }
    }

    /// The sample rates the encoder takes; nil: any (FLAC and PCM, within `--sample-rate`'s range).
    public var sampleRates: [Int]? {
        switch self {
        case .aac: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
        case .opus: [48000, 24000, 16000, 12000, 8000]
        case .flac, .pcm: nil
        }
    }
}

/// An encoder. Owns its `AVCodecContext`; `deinit` frees it.
public final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// Takes ownership of an allocated (not yet opened) context.
    init(owning context: UnsafeMutablePointer<AVCodecContext>) {
        self.context = context
    }

    /// The settings of a video encoder: H.264 (libx264) unless `codec` says otherwise. `crf` and `preset` are on
    /// x264's scales, mapped to each encoder's own (`Encoder(video:)`).
    public struct VideoSettings: Sendable {
        public var codec: VideoCodec = .h264
        public var proresProfile: ProResProfile = .hq
        /// Pictures with alpha (yuva420p in): ProRes 4444 and VP9 keep it (`mixwrite key`).
        public var alpha = false
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
        /// One part of a longer encode (`--parts`): x264's `stitchable`, so that every part's parameter sets are the
        /// same whatever its pictures, and the parts join by copying packets.
        public var stitchable = false
        /// The id of the encoder's SPS and PPS (x264's `sps-id`; nil: 0), for them to sit beside another stream's sets
        /// in one configuration record (smart rendering: copied pictures and encoded ones in one stream).
        public var spsID: Int?

        public init(width: Int, height: Int, frameRate: Rational, crf: Int, preset: String,
                    color: ColorDescription, threads: Int, globalHeader: Bool,
                    keyframeInterval: Int? = nil) {
            self.width = width; self.height = height; self.frameRate = frameRate; self.crf = crf
            self.preset = preset; self.color = color
            self.threads = threads; self.globalHeader = globalHeader; self.keyframeInterval = keyframeInterval
        }
    }

    /// Opens the settings' encoder for 8-bit SDR pictures (yuv420p; ProRes 4:2:2 or 4:4:4 in 10 bits, the caller
    /// converts), its colour tagged, `crf` and `preset` mapped from x264's scales to the encoder's own:
    ///
    /// - h264: libx264, as they are.
    /// - hevc: libx265, crf + 5 (x265's default 28 is x264's 23; crf 0 is lossless), the same preset names.
    /// - prores: prores_ks, the profile decides the rate (crf and preset do not apply).
    /// - av1: libsvtav1, crf × 63/51 on its 0 … 63, presets ultrafast … veryslow as SVT's 12 … 4.
    /// - vp9: libvpx-vp9 in constant quality, crf × 63/51 (crf 0 lossless), deadline good with cpu-used 5 … 0,
    ///   row threading.
    ///
    /// Threads are the settings' (a core each); x265's and SVT's lookahead bounded as x264's is (`lookahead`).
    /// The corresponding FFmpeg calls are `avcodec_find_encoder_by_name` and `avcodec_open2`.
    public init(video s: VideoSettings) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder_by_name(s.codec.encoderName) else {
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(\(s.codec.encoderName))")
        }
        let ctx = try Encoder.videoContext(codec, s, pixelFormat: Encoder.pixelFormat(for: s).av)
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
        let scaled = Int((Double(s.crf) * 63 / 51).rounded())
        let rank = max(0, Encoder.x264Presets.firstIndex(of: s.preset) ?? 2)
        switch s.codec {
        case .h264:
            av_dict_set(&options, "preset", s.preset, 0)
            av_dict_set(&options, "crf", String(s.crf), 0)
            if let l = s.lookahead { av_dict_set(&options, "rc-lookahead", String(l), 0) }
            let params = (s.stitchable ? ["stitchable=1"] : []) + (s.spsID.map { ["sps-id=\($0)"] } ?? [])
            if !params.isEmpty { av_dict_set(&options, "x264-params", params.joined(separator: ":"), 0) }
        case .hevc:
            av_dict_set(&options, "preset", s.preset, 0)
            av_dict_set(&options, "crf", String(min(51, s.crf + 5)), 0)
            let lookahead = s.lookahead.map { ":rc-lookahead=\($0)" } ?? ""
            av_dict_set(&options, "x265-params", "log-level=error:pools=\(max(1, s.threads))" + lookahead
                        + (s.crf == 0 ? ":lossless=1" : ""), 0)
        case .prores:
            av_dict_set(&options, "profile", String(s.proresProfile.number), 0)
            av_dict_set(&options, "vendor", "apl0", 0)
        case .av1:
            av_dict_set(&options, "crf", String(scaled), 0)
            av_dict_set(&options, "preset", String(12 - rank), 0)
            let lookahead = s.lookahead.map { ":lookahead=\($0)" } ?? ""
            av_dict_set(&options, "svtav1-params", "lp=\(max(1, s.threads))" + lookahead, 0)
        case .vp9:
            ctx.pointee.bit_rate = 0
            av_dict_set(&options, "crf", String(scaled), 0)
            if s.crf == 0 { av_dict_set(&options, "lossless", "1", 0) }
            av_dict_set(&options, "deadline", "good", 0)
            av_dict_set(&options, "cpu-used", String(max(0, 5 - rank * 5 / 8)), 0)
            av_dict_set(&options, "row-mt", "1", 0)
            if let l = s.lookahead { av_dict_set(&options, "lag-in-frames", String(max(l, 1)), 0) }
        }
        try check(avcodec_open2(ctx, codec, &options), "avcodec_open2(\(s.codec.encoderName))")
    }

    /// x264's presets, fastest first: the scale `preset` is given on.
    public static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    /// The pictures the settings' encoder takes: yuv420p, ProRes 4:2:2 in 10 bits (4:4:4 for 4444); with alpha
    /// yuva420p (VP9) and ProRes 4444's yuva444p10.
    public static func pixelFormat(for s: VideoSettings) -> PixelFormat {
        switch (s.codec, s.alpha) {
        case (.prores, true): PixelFormat(AV_PIX_FMT_YUVA444P10LE)
        case (.prores, false): s.proresProfile.isFourFourFourFour ? PixelFormat(AV_PIX_FMT_YUV444P10LE) : PixelFormat(AV_PIX_FMT_YUV422P10LE)
        case (_, true): .yuva420p
        case (_, false): .yuv420p
        }
    }

    /// Opens libx265 for HEVC Main 10 (yuv420p10le) tagged BT.2020 with `transfer` (HLG or PQ): an HDR output, with
    /// `light` (the source's mastering display and light levels) in its SEI. The settings' crf and preset are x265's
    /// (their scales are x264's); crf 0 is lossless. The corresponding FFmpeg call is `avcodec_open2`.
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
        // crf 0 is lossless, as for `--codec hevc` (x265's own crf 0 is not: its pictures then depend on x265's version).
        av_dict_set(&options, "x265-params", "log-level=error" + lookahead + (transfer == .pq ? ":hdr10=1" : "") + lightParameters
                    + (s.crf == 0 ? ":lossless=1" : ""), 0)
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
        ChannelLayout.set(&ctx.pointee.ch_layout, channels: channels)
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

    /// Opens `codec`'s encoder (Opus, FLAC or 24-bit PCM; AAC is `init(aacSampleRate:…)`) for `channels` at
    /// `sampleRate`, interleaved samples (Opus float, FLAC and PCM 32-bit integers, 24 bits of them). `bitRate`
    /// applies to Opus. The corresponding FFmpeg call is `avcodec_open2`.
    public init(audio codec: AudioCodec, sampleRate: Int, channels: Int, bitRate: Int, globalHeader: Bool) throws(FFmpegError) {
        guard let c = avcodec_find_encoder_by_name(codec.encoderName) else {
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(\(codec.encoderName))")
        }
        guard let ctx = avcodec_alloc_context3(c) else { throw FFmpegError(.noMemory, call: "avcodec_alloc_context3") }
        context = ctx
        ctx.pointee.sample_fmt = codec == .opus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_S32
        if codec != .opus { ctx.pointee.bits_per_raw_sample = 24 }
        ctx.pointee.sample_rate = Int32(sampleRate)
        ChannelLayout.set(&ctx.pointee.ch_layout, channels: channels)
        if codec == .opus { ctx.pointee.bit_rate = Int64(bitRate) }
        ctx.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try check(avcodec_open2(ctx, c, nil), "avcodec_open2(\(codec.encoderName))")
    }

    /// The sample format the encoder takes, by FFmpeg's name (`flt`, `s32`, `fltp`).
    public var sampleFormatName: String {
        av_get_sample_fmt_name(context.pointee.sample_fmt).map { String(cString: $0) } ?? "unknown"
    }

    deinit {
        // SVT-AV1 waits for ever in its deinit when it was opened and never told the end (FFmpeg 5.1, SVT-AV1 1.4):
        // an encoder given up on (a failed job) is drained first.
        if context.pointee.codec_id == AV_CODEC_ID_AV1 && !drained { _ = try? encode(nil) }
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Whether the end was sent.
    private var drained = false

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
        if frame == nil { drained = true }
        if let f = frame?.pointer {
            // The picture's colour is the stream's: ProRes writes it from each frame's own into its frame headers (the
            // only place a .mov's ProRes carries it), which a converted picture leaves unspecified.
            (f.pointee.color_primaries, f.pointee.color_trc) = (context.pointee.color_primaries, context.pointee.color_trc)
            (f.pointee.colorspace, f.pointee.color_range) = (context.pointee.colorspace, context.pointee.color_range)
        }
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
