internal import CFFmpeg

/// One decoded picture or block of samples. Owns its `AVFrame`; `deinit` frees it.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

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
    /// The decoder found damage in this picture and concealed it, or marked it corrupt. The corresponding FFmpeg
    /// fields are `AVFrame.decode_error_flags` and `AV_FRAME_FLAG_CORRUPT`.
    public var isDamaged: Bool { pointer.pointee.decode_error_flags != 0 || pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 }
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

    /// Takes `source`'s colour tags (primaries, transfer, matrix, range, chroma siting) and its HDR light levels
    /// (mastering display and content light side data), replacing its own: what a tone mapping reads of a picture.
    /// The corresponding FFmpeg calls are `av_frame_remove_side_data` and `av_frame_new_side_data`.
    public func copyColorTags(from source: Frame) {
        let (d, s) = (pointer, source.pointer)
        (d.pointee.color_primaries, d.pointee.color_trc, d.pointee.colorspace) = (s.pointee.color_primaries, s.pointee.color_trc, s.pointee.colorspace)
        (d.pointee.color_range, d.pointee.chroma_location) = (s.pointee.color_range, s.pointee.chroma_location)
        for type in [AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL] {
            av_frame_remove_side_data(d, type)
            guard let sd = av_frame_get_side_data(s, type), let copy = av_frame_new_side_data(d, type, sd.pointee.size) else { continue }
            copy.pointee.data.update(from: sd.pointee.data, count: Int(sd.pointee.size))
        }
    }

    /// The brightest light this HDR picture says it holds, in units of 100 cd/m² (SDR's white), as FFmpeg's tonemap
    /// filter reads it (`ff_determine_signal_peak`): `LightMetadata.signalPeak`, else 1000 cd/m² (10).
    public var signalPeak: Double { lightMetadata?.signalPeak ?? 10 }

    /// The picture's HDR light metadata (mastering display and content light level side data), nil without either.
    /// The corresponding FFmpeg call is `av_frame_get_side_data`.
    public var lightMetadata: LightMetadata? {
        func data<T>(_ type: AVFrameSideDataType, as: T.Type) -> UnsafePointer<T>? {
            guard let sd = av_frame_get_side_data(pointer, type), sd.pointee.size >= MemoryLayout<T>.size else { return nil }
            return UnsafeRawPointer(sd.pointee.data).assumingMemoryBound(to: T.self)
        }
        return LightMetadata(mastering: data(AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self),
                             contentLight: data(AV_FRAME_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self))
    }

    /// Whether the picture says its samples use the full range (JPEG's), rather than the limited one.
    public var isFullRange: Bool { pixelFormat.isJPEGRange || pointer.pointee.color_range == AVCOL_RANGE_JPEG }

    /// The EXIF Orientation (1 … 8) a JPEG decoder exported as frame metadata, if any.
    /// The corresponding FFmpeg call is `av_dict_get` on `AVFrame.metadata`.
    public var exifOrientation: Int? {
        guard let e = av_dict_get(pointer.pointee.metadata, "Orientation", nil, 0), let v = e.pointee.value else { return nil }
        return Int(String(cString: v).trimmingCharacters(in: " "))
    }

    /// The frame's metadata entries whose keys start with `prefix` (a filter's measurements, such as
    /// ebur128's "lavfi.r128.I"). The corresponding FFmpeg call is `av_dict_get` with `AV_DICT_IGNORE_SUFFIX`.
    public func metadata(prefix: String) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(pointer.pointee.metadata, prefix, entry, AV_DICT_IGNORE_SUFFIX) {
            if let k = e.pointee.key, let v = e.pointee.value { result[String(cString: k)] = String(cString: v) }
            entry = e
        }
        return result
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

    /// Sets every alpha sample of an 8-bit picture with an alpha plane (yuva420p, yuva444p) to opaque; nothing without one.
    public func makeOpaque() {
        guard pixelFormat == .yuva420p || pixelFormat == .yuva444p else { return }
        for y in 0..<height { (plane(3) + y * stride(3)).update(repeating: 255, count: width) }
    }

    /// Whether an 8-bit picture with an alpha plane (yuva420p, yuva444p) is opaque at every pixel; true without one.
    public var isOpaque: Bool {
        guard pixelFormat == .yuva420p || pixelFormat == .yuva444p else { return true }
        let alpha = plane(3), s = stride(3)
        for y in 0..<height {
            let row = alpha + y * s
            for x in 0..<width where row[x] != 255 { return false }
        }
        return true
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

    /// A new frame sharing this one's buffers (its own fields, so its timestamp can differ). The corresponding FFmpeg
    /// call is `av_frame_ref`.
    public func reference() throws(FFmpegError) -> Frame {
        let other = Frame()
        try check(av_frame_ref(other.pointer, pointer), "av_frame_ref")
        return other
    }

    /// Moves this frame's data into a new frame, leaving this one blank. The corresponding FFmpeg call is `av_frame_move_ref`.
    public func take() -> Frame {
        let moved = Frame()
        av_frame_move_ref(moved.pointer, pointer)
        return moved
    }
}

extension Frame {
    /// `count` samples of planar-float silence at `sampleRate` in the usual layout of `channels`. The corresponding
    /// FFmpeg calls are `av_frame_get_buffer` and `av_samples_set_silence`.
    public static func silence(samples count: Int, sampleRate: Int, channels: Int) throws(FFmpegError) -> Frame {
        let f = Frame()
        let p = f.pointer
        p.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        p.pointee.sample_rate = Int32(sampleRate)
        p.pointee.nb_samples = Int32(count)
        ChannelLayout.set(&p.pointee.ch_layout, channels: channels)
        try check(av_frame_get_buffer(p, 0), "av_frame_get_buffer")
        try check(av_samples_set_silence(p.pointee.extended_data, 0, Int32(count), Int32(channels), AV_SAMPLE_FMT_FLTP), "av_samples_set_silence")
        return f
    }

    /// `count` samples of silence in this audio frame's sample format, layout and rate. The corresponding FFmpeg
    /// call is `av_samples_set_silence`.
    public func silence(samples count: Int) throws(FFmpegError) -> Frame {
        let other = Frame()
        try check(mw_audio_frame_from(other.pointer, pointer, -1, Int32(count)), "av_samples_set_silence")
        return other
    }

    /// A copy of this audio frame without its first `count` samples (fewer than it holds). The corresponding FFmpeg
    /// call is `av_samples_copy`.
    public func droppingLeading(_ count: Int) throws(FFmpegError) -> Frame {
        precondition(count >= 0 && count < sampleCount, "droppingLeading: \(count) of \(sampleCount) samples")
        let other = Frame()
        try check(mw_audio_frame_from(other.pointer, pointer, Int32(count), Int32(sampleCount - count)), "av_samples_copy")
        other.pts = pts
        return other
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
    /// `count` samples of `channels` from `offset`, interleaved as an encoder takes them: `flt` (floats as they are)
    /// or `s32` (24-bit integers in the top of 32, clipped to ±1; rounded). The corresponding FFmpeg call is
    /// `av_frame_get_buffer`.
    public convenience init(interleaving channels: [[Float]], offset: Int, count: Int, sampleRate: Int,
                            format: String) throws(FFmpegError) {
        self.init()
        let integer = format == "s32"
        pointer.pointee.format = (integer ? AV_SAMPLE_FMT_S32 : AV_SAMPLE_FMT_FLT).rawValue
        pointer.pointee.nb_samples = Int32(count)
        pointer.pointee.sample_rate = Int32(sampleRate)
        ChannelLayout.set(&pointer.pointee.ch_layout, channels: channels.count)
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
        let n = channels.count
        let data = UnsafeMutableRawPointer(pointer.pointee.data.0!)
        for (c, samples) in channels.enumerated() {
            samples.withUnsafeBufferPointer { src in
                if integer {
                    let dst = data.assumingMemoryBound(to: Int32.self)
                    for i in 0..<count {
                        let v = (Double(min(max(src[offset + i], -1), 1)) * 8_388_607).rounded()
                        dst[i * n + c] = Int32(v) << 8
                    }
                } else {
                    let dst = data.assumingMemoryBound(to: Float.self)
                    for i in 0..<count { dst[i * n + c] = src[offset + i] }
                }
            }
        }
    }

    public convenience init(planar channels: [[Float]], offset: Int, count: Int, sampleRate: Int) throws(FFmpegError) {
        self.init()
        pointer.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        pointer.pointee.nb_samples = Int32(count)
        pointer.pointee.sample_rate = Int32(sampleRate)
        ChannelLayout.set(&pointer.pointee.ch_layout, channels: channels.count)
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
        for (c, samples) in channels.enumerated() {
            let plane = pointer.pointee.extended_data[c]!
            plane.withMemoryRebound(to: Float.self, capacity: count) { dst in
                samples.withUnsafeBufferPointer { dst.update(from: $0.baseAddress! + offset, count: count) }
            }
        }
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


/// The three planes of a yuv420p picture, for pixel code: base pointers and strides, no C types.
/// A view: valid while the frame it came from lives and keeps its buffers (`Frame.withYUVPlanes`).
public struct YUVPlanes {
    public let width: Int
    public let height: Int
    /// Base pointer and stride of plane 0 (Y), 1 (U) and 2 (V).
    public let planes: [(pixels: UnsafeMutablePointer<UInt8>, stride: Int)]

    public init(width: Int, height: Int, planes: [(pixels: UnsafeMutablePointer<UInt8>, stride: Int)]) {
        precondition(planes.count == 3, "a yuv420p picture has three planes")
        self.width = width
        self.height = height
        self.planes = planes
    }

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Row `row` of plane `plane`.
    @inline(__always)
    public func row(_ row: Int, of plane: Int) -> UnsafeMutablePointer<UInt8> {
        planes[plane].pixels + row * planes[plane].stride
    }

    /// Luma row `dy` (0 or 1) of chroma row `cy`: the picture's last row where it has no such row (an odd height's
    /// last chroma row covers one luma row).
    @inline(__always)
    public func lumaRow(_ dy: Int, ofChromaRow cy: Int) -> UnsafeMutablePointer<UInt8> {
        row(min(2 * cy + dy, height - 1), of: 0)
    }

    /// Copies every plane of `source` (the same size) into these planes.
    public func copy(from source: YUVPlanes) {
        for p in 0..<3 {
            let rows = p == 0 ? height : chromaHeight
            let bytes = p == 0 ? width : chromaWidth
            for y in 0..<rows { row(y, of: p).update(from: source.row(y, of: p), count: bytes) }
        }
    }
}

extension Frame {
    /// Runs `body` with this yuv420p picture's planes; the frame stays alive meanwhile.
    public func withYUVPlanes<R, E: Error>(_ body: (YUVPlanes) throws(E) -> R) throws(E) -> R {
        precondition(pixelFormat == .yuv420p || pixelFormat == .yuva420p, "withYUVPlanes needs a yuv420p picture, not \(pixelFormat)")
        let view = YUVPlanes(width: width, height: height,
                             planes: (0..<3).map { (pixels: plane($0), stride: stride($0)) })
        return try withExtendedLifetime(self) { () throws(E) -> R in try body(view) }
    }

    /// Copies a yuv420p picture of the same size into this one (made writable first).
    /// Copies every plane of `source` (the same size and format, any depth) into this picture's buffers.
    /// The corresponding FFmpeg call is `av_frame_copy`.
    public func copyPlanes(from source: Frame) throws(FFmpegError) {
        try makeWritable()
        try check(av_frame_copy(pointer, source.pointer), "av_frame_copy")
    }

    /// This picture copied, every plane at its depth: into `old` when it has this size and format, else into a new
    /// frame (a holder of copies reuses its frames). The corresponding FFmpeg call is `av_frame_copy`.
    public func copied(reusing old: Frame?) throws(FFmpegError) -> Frame {
        let copy: Frame
        if let old, old.width == width, old.height == height, old.pixelFormat == pixelFormat { copy = old } else {
            copy = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        }
        try copy.copyPlanes(from: self)
        return copy
    }

    public func copyPicture(from source: Frame) throws(FFmpegError) {
        try makeWritable()
        withYUVPlanes { dst in source.withYUVPlanes { src in dst.copy(from: src) } }
        if pixelFormat == .yuva420p && source.pixelFormat == .yuva420p {
            for y in 0..<height { (plane(3) + y * stride(3)).update(from: source.plane(3) + y * source.stride(3), count: width) }
        }
    }
}
