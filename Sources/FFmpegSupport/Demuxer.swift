internal import CFFmpeg
import Foundation

/// What kind of data a stream carries.
public enum MediaKind: String, Sendable, Codable {
    case video, audio, subtitle, data, attachment, unknown
}

/// A Sendable description of one stream of a file, read once when the file is opened.
public struct StreamInfo: Sendable {
    public var index: Int
    public var kind: MediaKind
    public var codec: String
    public var profile: String?
    public var timeBase: Rational
    /// The stream's first timestamp, if the container says.
    public var start: MediaTime?
    /// The stream's own duration, if the container says.
    public var duration: MediaTime?
    public var language: String?
    /// Its name (`title`; MOV's handler name unless it is a generic one, `SoundHandler`).
    public var title: String?
    /// A cover picture stored as a video stream (mp3 artwork): not a video track.
    public var isAttachedPicture: Bool
    public var bitRate: Int64

    // Video
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat
    public var frameRate: Rational?
    public var sampleAspectRatio: Rational?
    /// Clockwise rotation in degrees (0, 90, 180, 270) needed to show the picture upright.
    public var rotation: Int
    /// True when the display matrix also mirrors the picture horizontally.
    public var reflected: Bool
    /// The display matrix as the container stores it (9 values, 16.16 and 2.30 fixed point), if any.
    public var displayMatrix: [Int32]?
    /// How the samples are read; untagged streams as FFmpeg reads them (BT.601, limited unless a J format).
    public var color: ColorDescription
    /// Whether the pictures carry their own alpha: an alpha pixel format (ProRes 4444, QuickTime Animation, PNG,
    /// yuva), or VP9 whose WebM track says `alpha_mode` (decoded by libvpx).
    public var hasAlpha: Bool
    /// An HDR stream's transfer (HLG or PQ); nil for SDR.
    public var hdr: HDRTransfer?
    /// The colour primaries as FFmpeg names them (`bt709`, `bt2020`, `unknown`).
    public var primaries: String
    /// The HDR light metadata the container states for the stream (mov's `mdcv` and `clli`); HEVC carries its own in
    /// its pictures (`Frame.lightMetadata`).
    public var light: LightMetadata?

    // Audio
    public var sampleRate: Int
    public var channels: Int
    public var layout: String

    /// Whether this FFmpeg has a decoder for the stream's codec.
    public var hasDecoder: Bool
    /// FFmpeg's id of the codec, to ask a muxer whether it can hold the stream as it is.
    public var codecID: UInt32
    /// The pictures are interlaced, as the codec parameters say (a field order other than progressive or unknown): a
    /// field may be a packet of its own.
    public var isInterlaced = false

    /// Whether the muxer named `format` can store this stream copied as it is. The corresponding FFmpeg
    /// call is `avformat_query_codec`.
    public func fits(format: String) -> Bool {
        mw_format_can_hold(format, AVCodecID(rawValue: codecID)) == 1
    }

    public var isRealVideo: Bool { kind == .video && !isAttachedPicture }
}

/// A chapter of a file: its title and span on the file's timeline.
public struct FileChapter: Sendable, Equatable {
    public var title: String
    public var start: MediaTime
    public var end: MediaTime

    public init(title: String, start: MediaTime, end: MediaTime) { (self.title, self.start, self.end) = (title, start, end) }
}

/// An open input file. Owns its `AVFormatContext`; `deinit` closes it.
public final class Demuxer {
    public let url: String
    let context: UnsafeMutablePointer<AVFormatContext>
    public let streams: [StreamInfo]

    /// Whether the muxer named `format` writes its header for stream `index` copied as it is: some muxers
    /// accept a codec by `avformat_query_codec` and refuse it at the header (VP8 in .mov). Tried on a scratch
    /// file in the temporary folder, removed at once. The corresponding FFmpeg call is `avformat_write_header`.
    public func headerAccepts(stream index: Int, format: String) -> Bool {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let scratch = folder + "/.mixwrite-header-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        defer { unlink(scratch) }
        return mw_header_accepts(format, context.pointee.streams[index]!.pointee.codecpar, scratch) == 1
    }

    /// Opens and probes a file. The corresponding FFmpeg calls are `avformat_open_input` and `avformat_find_stream_info`.
    public init(url: String) throws(FFmpegError) {
        self.url = url
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_open_input(&ctx, url, nil, nil), "avformat_open_input")
        guard let ctx else { throw FFmpegError(.noMemory, call: "avformat_open_input") }
        let found = avformat_find_stream_info(ctx, nil)
        if found < 0 {
            var c: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&c)
            throw FFmpegError(code: found, call: "avformat_find_stream_info")
        }
        context = ctx
        streams = (0..<Int(ctx.pointee.nb_streams)).map { Demuxer.describe(ctx.pointee.streams[$0]!, index: $0, in: ctx) }
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
    }

    /// The container's short name ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", …).
    public var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    /// The container's duration, when known.
    public var duration: MediaTime? {
        let d = context.pointee.duration
        return d == mw_nopts_value() || d <= 0 ? nil : MediaTime(value: d, timescale: AV_TIME_BASE)
    }

    /// The container's chapters, in order: title (empty when it has none), start and end on the file's timeline.
    /// The corresponding FFmpeg field is `AVFormatContext.chapters`.
    public var chapters: [FileChapter] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { i in
            guard let ch = context.pointee.chapters[i] else { return nil }
            let tb = Rational(ch.pointee.time_base)
            guard tb.isValid else { return nil }
            let title = av_dict_get(ch.pointee.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) } ?? ""
            return FileChapter(title: title, start: MediaTime(ticks: ch.pointee.start, timeBase: tb), end: MediaTime(ticks: ch.pointee.end, timeBase: tb))
        }
    }

    /// The container's tags (`creation_time`, `title`, `location`, `com.apple.quicktime.make` …). The
    /// corresponding FFmpeg field is `AVFormatContext.metadata`.
    public var metadata: [String: String] { Demuxer.tags(context.pointee.metadata) }

    /// A stream's tags (`timecode` of a tmcd track, `language`, `title`).
    public func metadata(ofStream index: Int) -> [String: String] { Demuxer.tags(stream(index).pointee.metadata) }

    static func tags(_ dict: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            out[String(cString: e.pointee.key)] = String(cString: e.pointee.value)
            entry = e
        }
        return out
    }

    /// The container's first timestamp, when known.
    public var startTime: MediaTime? {
        let s = context.pointee.start_time
        return s == mw_nopts_value() ? nil : MediaTime(value: s, timescale: AV_TIME_BASE)
    }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// Tells the demuxer to drop every stream but these, so reading skips them cheaply.
    public func keepOnly(_ indices: Set<Int>) {
        for i in 0..<streams.count {
            stream(i).pointee.discard = indices.contains(i) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }

    /// Reads the next packet into `packet`; false at the end of the file.
    /// The corresponding FFmpeg call is `av_read_frame`.
    public func read(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        let r = av_read_frame(context, packet.pointer)
        if r == FFmpegError.Code.endOfFile.rawValue { return false }
        try check(r, "av_read_frame")
        return true
    }

    /// Seeks to the keyframe at or before `time` in `streamIndex`. The corresponding FFmpeg call is `av_seek_frame`.
    public func seek(to time: MediaTime, streamIndex: Int) throws(FFmpegError) {
        let tb = streams[streamIndex].timeBase
        try check(av_seek_frame(context, Int32(streamIndex), time.ticks(in: tb), AVSEEK_FLAG_BACKWARD),
                  "av_seek_frame")
    }

    /// A stream's display matrix, as the clockwise quarter turns that set its picture upright and whether it also
    /// mirrors it. The corresponding FFmpeg call is `av_display_rotation_get`.
    static func orientation(_ st: UnsafeMutablePointer<AVStream>) -> (rotation: Int, reflected: Bool, matrix: [Int32]?) {
        guard let m = mw_stream_display_matrix(st) else { return (0, false, nil) }
        var rotation = 0
        // av_display_rotation_get gives the counter-clockwise angle of the stored picture;
        // a negative determinant means the matrix also mirrors it.
        let ccw = av_display_rotation_get(m)
        if ccw.isFinite {
            rotation = ((Int((-ccw).rounded()) % 360) + 360) % 360
            rotation = (rotation + 45) / 90 * 90 % 360
        }
        let det = Int64(m[0]) * Int64(m[4]) - Int64(m[1]) * Int64(m[3])
        return (rotation, det < 0, Array(UnsafeBufferPointer(start: m, count: 9)))
    }

    /// The stream's mastering display and content light side data. The corresponding FFmpeg call is
    /// `av_packet_side_data_get` on its `coded_side_data` (`av_stream_get_side_data` before FFmpeg 6.1: the shim's
    /// `mw_stream_side_data`).
    static func streamLight(_ st: UnsafeMutablePointer<AVStream>) -> LightMetadata? {
        func data<T>(_ type: AVPacketSideDataType, as: T.Type) -> UnsafePointer<T>? {
            var size = 0
            guard let d = mw_stream_side_data(st, type, &size), size >= MemoryLayout<T>.size else { return nil }
            return UnsafeRawPointer(d).assumingMemoryBound(to: T.self)
        }
        return LightMetadata(mastering: data(AV_PKT_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self),
                             contentLight: data(AV_PKT_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self))
    }

    /// A stream's name: its `title`, else MOV's handler name unless it is a generic one (`SoundHandler`, `Core Media
    /// Video`).
    static func title(of st: UnsafeMutablePointer<AVStream>) -> String? {
        let tags = Demuxer.tags(st.pointee.metadata)
        if let t = tags["title"], !t.isEmpty { return t }
        guard let h = tags["handler_name"], !h.isEmpty, !h.hasSuffix("Handler"), !h.hasPrefix("Core Media") else { return nil }
        return h
    }

    static func describe(_ st: UnsafeMutablePointer<AVStream>, index: Int, in ctx: UnsafeMutablePointer<AVFormatContext>) -> StreamInfo {
        let par = st.pointee.codecpar!.pointee
        let kind: MediaKind
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        let tb = Rational(st.pointee.time_base)
        let codec = avcodec_get_name(par.codec_id).map { String(cString: $0) } ?? "unknown"
        var profile: String? = nil
        if let p = avcodec_profile_name(par.codec_id, par.profile) { profile = String(cString: p) }
        let start = st.pointee.start_time == mw_nopts_value() || !tb.isValid
            ? nil : MediaTime(ticks: st.pointee.start_time, timeBase: tb)
        let duration = st.pointee.duration == mw_nopts_value() || st.pointee.duration <= 0 || !tb.isValid
            ? nil : MediaTime(ticks: st.pointee.duration, timeBase: tb)
        var language: String? = nil
        if let tag = av_dict_get(st.pointee.metadata, "language", nil, 0), let v = tag.pointee.value {
            language = String(cString: v)
        }
        let avg = Rational(st.pointee.avg_frame_rate)
        let real = Rational(st.pointee.r_frame_rate)
        // The container's pixel aspect (mov 'pasp') wins over the codec's, as FFmpeg's tools decide.
        let sar = Rational(av_guess_sample_aspect_ratio(ctx, st, nil))
        let (rotation, reflected, matrix) = orientation(st)
        var layoutText = ""
        if kind == .audio {
            var buffer = [CChar](repeating: 0, count: 128)
            var layout = par.ch_layout
            if av_channel_layout_describe(&layout, &buffer, buffer.count) >= 0 {
                layoutText = string(fromCString: buffer)
            }
        }
        return StreamInfo(
            index: index, kind: kind, codec: codec, profile: profile, timeBase: tb,
            start: start, duration: duration, language: language, title: title(of: st),
            isAttachedPicture: st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
            bitRate: par.bit_rate,
            width: Int(par.width), height: Int(par.height),
            pixelFormat: PixelFormat(rawValue: par.format),
            frameRate: avg.isValid ? avg : (real.isValid ? real : nil),
            sampleAspectRatio: sar.isValid ? sar : nil,
            rotation: rotation, reflected: reflected, displayMatrix: matrix,
            color: ColorDescription(matrix: ColorMatrix(par.color_space, width: Int(par.width), height: Int(par.height)),
                                    fullRange: par.color_range == AVCOL_RANGE_JPEG
                                        || PixelFormat(rawValue: par.format).isJPEGRange),
            hasAlpha: PixelFormat(rawValue: par.format).hasAlpha
                || (par.codec_id == AV_CODEC_ID_VP9
                    && av_dict_get(st.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) == "1" } == true),
            hdr: HDRTransfer(par.color_trc),
            primaries: av_color_primaries_name(par.color_primaries).map { String(cString: $0) } ?? "unknown",
            light: streamLight(st),
            sampleRate: Int(par.sample_rate), channels: Int(par.ch_layout.nb_channels), layout: layoutText,
            hasDecoder: avcodec_find_decoder(par.codec_id) != nil, codecID: par.codec_id.rawValue,
            isInterlaced: par.field_order != AV_FIELD_UNKNOWN && par.field_order != AV_FIELD_PROGRESSIVE)
    }
}
