import FFmpegSupport

/// Which input decides how long the output is.
public enum DurationPolicy: String, Sendable, Codable, CaseIterable {
    case base, fx, shortest, longest
}

/// Chroma-key blend `fx` over `base` and mix every audio track of both (and of `audio.files`).
public struct BlendJob: Sendable, Codable {
    public var fx: String
    public var base: String
    public var output: String
    public var overwrite = false
    /// Output size; nil: base's.
    public var width: Int?
    public var height: Int?
    /// Output frame rate; nil: base's.
    public var frameRate: Rational?
    public var key = ChromaKeyBlend.Settings()
    public var crf = 20
    public var preset = "veryfast"
    public var duration: DurationPolicy = .base
    public var audio = AudioOptions()

    public init(fx: String, base: String, output: String) {
        self.fx = fx
        self.base = base
        self.output = output
    }

    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    func validate() throws(MixWriteError) {
        if !(0...51).contains(crf) { throw .usage("--crf must be between 0 and 51") }
        if !BlendJob.presets.contains(preset) {
            throw .usage("--preset '\(preset)' is not an x264 preset (\(BlendJob.presets.joined(separator: ", ")))")
        }
        if !(0...1).contains(key.threshold) { throw .usage("--threshold must be between 0 and 1") }
        if !(0...1).contains(key.smoothing) { throw .usage("--smoothing must be between 0 and 1") }
        if let w = width, let h = height, !(16...8192).contains(w) || !(16...8192).contains(h) {
            throw .usage("--size must be between 16x16 and 8192x8192")
        }
        if let r = frameRate, !(r.isValid && r.doubleValue <= 240) { throw .usage("--fps must be between 0 and 240") }
        try audio.validate()
    }
}

/// What a finished job wrote, for `--json` and for Swift callers.
public struct Report: Sendable, Codable {
    public struct Video: Sendable, Codable {
        public var width: Int
        public var height: Int
        public var frameRate: String
        public var frames: Int
    }
    public struct Audio: Sendable, Codable {
        public var sampleRate: Int
        public var channels: Int
        public var mode: MixMode
        public var sources: [AudioSource]
    }
    public var output: String
    public var duration: Double
    public var bytes: Int64
    public var video: Video?
    public var audio: Audio?
    public var key: ChromaKeyBlend.Settings?
    /// Packets that could not be read or decoded and were skipped.
    public var damagedPackets: Int
    public var seconds: Double
}

extension BlendJob: MixJob {
    public var inputPaths: [String] { [fx, base] + audio.files }

    public func prepare() throws(MixWriteError) -> PreparedJob {
        try validate()
        let fxFile = try MediaFile(path: fx)
        let baseFile = try MediaFile(path: base)
        guard let baseVideo = baseFile.mainVideo else { throw .input(file: base, "has no video stream; base must be a movie") }
        guard fxFile.mainVideo != nil else { throw .input(file: fx, "has no video stream; fx must be a movie") }
        var extra: [(String, MediaFile)] = []
        for (i, path) in audio.files.enumerated() {
            let f = try MediaFile(path: path)
            guard !f.audioStreams.isEmpty else { throw .input(file: path, "has no audio stream") }
            extra.append(("audio\(i + 1)", f))
        }
        let output = try OutputFile(path: output, overwrite: overwrite, inputs: inputPaths)

        let rate = frameRate ?? baseVideo.frameRate.map { $0.reduced(max: 1_000_000) } ?? Rational(30, 1)
        let fxLength = fxFile.videoDuration ?? .zero
        let baseLength = baseFile.videoDuration ?? .zero
        let length: MediaTime
        switch duration {
        case .base: length = baseLength
        case .fx: length = fxLength
        case .shortest: length = min(fxLength, baseLength)
        case .longest: length = max(fxLength, baseLength)
        }
        guard length > .zero else { throw .input(file: base, "has no known duration") }
        let frames = max(1, Int(length.ticks(in: rate.inverted)))
        let outLength = MediaTime(value: Int64(frames) * Int64(rate.den), timescale: rate.num)
        // yuv420p needs even sizes: an odd base is scaled to the even size just below it.
        let w = (width ?? baseVideo.width) & ~1
        let h = (height ?? baseVideo.height) & ~1
        let color = ColorDescription(matrix: baseVideo.color.matrix == .bt709 ? .bt709 : .bt601, fullRange: false)
        let videoPlan = BlendVideoStage.Plan(
            fx: fxFile, base: baseFile, width: w, height: h, frameRate: rate, frameCount: frames, color: color,
            key: key, crf: crf, preset: preset, holdBase: duration == .longest || duration == .fx)
        let sources = try audio.sources(from: [("fx", fxFile), ("base", baseFile)] + extra)
        let audioPlan = audio.plan(sources: sources, duration: outLength)
        return PreparedJob(output: output, duration: outLength, frameRate: rate,
                           video: .blend(videoPlan), audio: audioPlan, key: key)
    }
}
