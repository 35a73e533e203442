import CFFmpeg

/// One compressed packet. Owns its `AVPacket`; `deinit` frees it.
public final class Packet {
    public let pointer: UnsafeMutablePointer<AVPacket>

    /// The corresponding FFmpeg call is `av_packet_alloc`.
    public init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }
    public var pts: Int64? {
        get { pointer.pointee.pts == mw_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? mw_nopts_value() }
    }
    public var dts: Int64? {
        get { pointer.pointee.dts == mw_nopts_value() ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? mw_nopts_value() }
    }
    public var duration: Int64 { pointer.pointee.duration }
    public var size: Int { Int(pointer.pointee.size) }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// The corresponding FFmpeg call is `av_packet_unref`.
    public func unref() { av_packet_unref(pointer) }

    /// Moves this packet's data into a new packet, leaving this one blank for reuse.
    /// The corresponding FFmpeg call is `av_packet_move_ref`.
    public func take() -> Packet {
        let moved = Packet()
        av_packet_move_ref(moved.pointer, pointer)
        return moved
    }

    /// The corresponding FFmpeg call is `av_packet_rescale_ts`.
    public func rescaleTimestamps(from source: Rational, to destination: Rational) {
        av_packet_rescale_ts(pointer, source.av, destination.av)
    }
}

/// One decoded picture or block of samples. Owns its `AVFrame`; `deinit` frees it.
public final class Frame {
    public let pointer: UnsafeMutablePointer<AVFrame>

    /// The corresponding FFmpeg call is `av_frame_alloc`.
    public init() {
        guard let p = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }

    /// A picture with its own buffers. The corresponding FFmpeg call is `av_frame_get_buffer`.
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat) throws(FFmpegError) {
        self.init()
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = pixelFormat.rawValue
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    public var pts: Int64? {
        get { pointer.pointee.pts == mw_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? mw_nopts_value() }
    }
    /// The decoder's best guess of the presentation time (pts, else dts-based).
    public var bestEffortTimestamp: Int64? {
        let t = pointer.pointee.best_effort_timestamp
        return t == mw_nopts_value() ? pts : t
    }
    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    public var pixelFormat: PixelFormat { PixelFormat(rawValue: pointer.pointee.format) }
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    /// How this picture's samples are read; `fallback` where the frame is untagged.
    public func color(fallback: ColorDescription) -> ColorDescription {
        let space = pointer.pointee.colorspace
        let range = pointer.pointee.color_range
        let matrix = space == AVCOL_SPC_UNSPECIFIED || space == AVCOL_SPC_RESERVED ? fallback.matrix : ColorMatrix(space)
        let full: Bool
        if pixelFormat.isJPEGRange || range == AVCOL_RANGE_JPEG { full = true }
        else if range == AVCOL_RANGE_MPEG { full = false }
        else { full = fallback.fullRange }
        return ColorDescription(matrix: matrix, fullRange: full)
    }
    /// The picture's display matrix (JPEG EXIF orientation, for one), if the decoder attached one.
    /// The corresponding FFmpeg call is `av_frame_get_side_data`.
    public var displayMatrix: [Int32]? {
        guard let sd = av_frame_get_side_data(pointer, AV_FRAME_DATA_DISPLAYMATRIX), sd.pointee.size >= 36 else { return nil }
        return sd.pointee.data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
    }

    /// The EXIF Orientation (1 … 8) a JPEG decoder exported as frame metadata, if any.
    /// The corresponding FFmpeg call is `av_dict_get` on `AVFrame.metadata`.
    public var exifOrientation: Int? {
        guard let e = av_dict_get(pointer.pointee.metadata, "Orientation", nil, 0), let v = e.pointee.value else { return nil }
        return Int(String(cString: v).trimmingCharacters(in: " "))
    }

    /// The audio sample format's name ("fltp", "s16", …).
    public var sampleFormatName: String {
        av_get_sample_fmt_name(AVSampleFormat(rawValue: pointer.pointee.format)).map { String(cString: $0) } ?? "none"
    }

    public func plane(_ i: Int) -> UnsafeMutablePointer<UInt8> {
        withUnsafeMutablePointer(to: &pointer.pointee.data) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[i]! }
        }
    }

    public func stride(_ i: Int) -> Int {
        withUnsafePointer(to: &pointer.pointee.linesize) { tuple in
            tuple.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[i]) }
        }
    }

    /// Makes the buffers writable (copying them if they are shared). The corresponding FFmpeg call is `av_frame_make_writable`.
    public func makeWritable() throws(FFmpegError) {
        try check(av_frame_make_writable(pointer), "av_frame_make_writable")
    }

    /// The corresponding FFmpeg call is `av_frame_unref`.
    public func unref() { av_frame_unref(pointer) }

    /// Moves this frame's data into a new frame, leaving this one blank. The corresponding FFmpeg call is `av_frame_move_ref`.
    public func take() -> Frame {
        let moved = Frame()
        av_frame_move_ref(moved.pointer, pointer)
        return moved
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}

/// A pixel format, our name for `AVPixelFormat`.
public struct PixelFormat: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init(_ f: AVPixelFormat) { rawValue = f.rawValue }

    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    public static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
    public static let rgba = PixelFormat(AV_PIX_FMT_RGBA)
    public static let none = PixelFormat(AV_PIX_FMT_NONE)

    public var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    /// The corresponding FFmpeg call is `av_get_pix_fmt_name`.
    public var description: String {
        guard let name = av_get_pix_fmt_name(av) else { return "none" }
        return String(cString: name)
    }

    /// Whether the format carries an alpha channel. The corresponding FFmpeg call is `av_pix_fmt_desc_get`.
    public var hasAlpha: Bool {
        guard let d = av_pix_fmt_desc_get(av) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }

    /// Whether the format is a full-range "J" YUV format (yuvj420p …), deprecated but still produced by MJPEG.
    public var isJPEGRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .map(\.rawValue).contains(rawValue)
    }
}

extension Frame {
    /// The samples of a planar-float audio frame (fltp), one array a channel. The corresponding FFmpeg
    /// fields are `AVFrame.extended_data` and `nb_samples`.
    public func planarFloats() -> [[Float]] {
        let n = sampleCount
        return (0..<channelCount).map { c in
            let plane = pointer.pointee.extended_data[c]!
            return plane.withMemoryRebound(to: Float.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
        }
    }

    /// A planar-float audio frame holding `count` samples of `channels` starting at `offset`.
    /// The corresponding FFmpeg call is `av_frame_get_buffer`.
    public convenience init(planar channels: [[Float]], offset: Int, count: Int, sampleRate: Int) throws(FFmpegError) {
        self.init()
        pointer.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        pointer.pointee.nb_samples = Int32(count)
        pointer.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&pointer.pointee.ch_layout, Int32(channels.count))
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
        for (c, samples) in channels.enumerated() {
            let plane = pointer.pointee.extended_data[c]!
            plane.withMemoryRebound(to: Float.self, capacity: count) { dst in
                samples.withUnsafeBufferPointer { dst.update(from: $0.baseAddress! + offset, count: count) }
            }
        }
    }
}
