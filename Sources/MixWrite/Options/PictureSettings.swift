import FFmpegSupport

/// The picture a job encodes (every kind that encodes one): its size, rate, fit, codec and quality. One group of
/// options, held by each of those jobs as `picture`, declared, read, written and checked here alone.
public struct PictureSettings: Sendable, Equatable {
    /// Output size; nil: the reference input's (base, the first clip, the picture, fx).
    public var width: Int?
    public var height: Int?
    /// Output frame rate; nil: the reference input's (a still's: 5).
    public var frameRate: Rational?
    /// Constant rate factor and preset on x264's scale, mapped to the codec's own.
    public var crf = 20
    public var preset = "veryfast"
    /// How an input of another shape fits the frame; the default is the kind's (a blend stretches, as GPUImage).
    public var fit: Fit
    /// The video codec; nil: the container's (H.264; a `.webm`'s VP9).
    public var codec: VideoCodec?
    public var proresProfile: ProResProfile

    public init(fit: Fit = .stretch, proresProfile: ProResProfile = .hq) {
        self.fit = fit
        self.proresProfile = proresProfile
    }

    static var presets: [String] { Encoder.x264Presets }

    /// `size`, `fps`, `crf`, `preset`, `fit`, `codec`, `prores-profile`, with the kind's defaults (`defaults`).
    /// `codecs`: the video codecs the kind takes (the key layer: those that keep alpha), `why` the others are not.
    static func options(_ defaults: PictureSettings, codecs: [VideoCodec] = VideoCodec.allCases,
                        why: String? = nil) -> [JobOption<PictureSettings>] {
        let names = codecs.map(\.rawValue)
        let listed = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
        return [
            JobOption(OptionDeclaration("size", .text(pattern: "^[0-9]+[xX][0-9]+$", orNumber: false), valueName: "WxH",
                                        help: "Output size as WIDTHxHEIGHT (default: the input's)."),
                      read: { (p, input) throws(JobProblem) in
                          guard let size = OptionValue.size(try input.value("must be WIDTHxHEIGHT")) else { throw input.problem("must be WIDTHxHEIGHT") }
                          (p.width, p.height) = (size.width, size.height)
                      }, write: { p in p.width.flatMap { w in p.height.map { .text("\(w)x\($0)") } } }),
            JobOption(OptionDeclaration("fps", .text(pattern: "^[0-9.]+(/[0-9]+)?$", orNumber: true), valueName: "RATE",
                                        help: "Output frame rate, e.g. 30, 29.97 or 30000/1001 (default: the input's)."),
                      read: { (p, input) throws(JobProblem) in
                          let what = "must be a frame rate such as 30 or \"30000/1001\""
                          guard let r = Rational(parsing: try input.text(what)) else { throw input.problem(what) }
                          p.frameRate = r
                      }, write: { $0.frameRate.map { .text($0.description) } }),
            .integer("crf", \.crf, default: defaults.crf, 0...51,
                     help: "Constant rate factor on x264's scale, 0 (lossless) to 51, mapped to the codec's own."),
            JobOption(OptionDeclaration("preset", .choice(presets), default: .text(defaults.preset),
                                        help: "Preset on x264's scale: ultrafast … veryslow, mapped to the codec's own."),
                      read: { (p, input) throws(JobProblem) in p.preset = try input.value("must be a string") },
                      write: { $0.preset == defaults.preset ? nil : .text($0.preset) }),
            .choice("fit", \.fit, default: defaults.fit,
                    help: "How an input of another shape fits the frame: stretch (as GPUImage), fit (bars) or fill (crop)."),
            .choice("codec", \.codec, only: codecs, why: why,
                    help: "Video codec: \(listed) (default: \(codecs.first == .h264 ? "h264" : names[0]); a .webm's vp9)."),
            .choice("prores-profile", \.proresProfile, default: defaults.proresProfile,
                    help: "ProRes profile with --codec prores: proxy, lt, standard, hq, 4444 or 4444xq."),
        ]
    }

    /// The declared ranges, and what a range cannot say.
    func validate() throws(MixWriteError) {
        try Self.options(PictureSettings()).checkRanges(self)
        if !Self.presets.contains(preset) {
            throw .usage("--preset '\(preset)' is not an x264 preset (\(Self.presets.joined(separator: ", ")))")
        }
        if let w = width, let h = height, !(16...8192).contains(w) || !(16...8192).contains(h) {
            throw .usage("--size must be between 16x16 and 8192x8192")
        }
        // 4:2:0 pictures have even sizes: an odd one given is refused rather than written another size without a word.
        if let w = width, let h = height, w % 2 == 1 || h % 2 == 1 {
            throw .usage("--size \(w)x\(h): a width and height must be even (4:2:0 pictures), e.g. \(w & ~1)x\(h & ~1)")
        }
        if let r = frameRate, !(r.isValid && r.doubleValue <= 240) { throw .usage("--fps must be between 0 and 240") }
    }

    /// The codec to write: with `--hdr keep` HEVC (Main 10, the one that carries the HDR picture here; another `--codec`
    /// is refused), else `codec` (nil: the container's).
    func codec(keepingHDR keep: Bool) throws(MixWriteError) -> VideoCodec? {
        guard keep else { return codec }
        if let codec, codec != .hevc {
            throw .usage("--hdr keep writes HEVC Main 10; --codec \(codec.rawValue) cannot carry the HDR picture here")
        }
        return .hevc
    }

    /// The output's size: as asked, else the reference's as shown (upright), made even (yuv420p needs even sizes,
    /// so an odd one is scaled to the even size below).
    func size(shown: (width: Int, height: Int)) -> (width: Int, height: Int) {
        ((width ?? shown.width) & ~1, (height ?? shown.height) & ~1)
    }

    /// The output's frame rate: as asked, else the reference stream's, else `fallback`.
    func rate(of stream: StreamInfo?, fallback: Rational = Rational(30, 1)) -> Rational {
        frameRate ?? stream?.frameRate.map { $0.reduced(max: 1_000_000) } ?? fallback
    }
}

extension PictureSettings {
    /// The output picture at `width`×`height`, `frameRate`, in `color`, of `frameCount` frames, encoded as these
    /// settings say (the container's codec set later, when the output's name has told it).
    func videoPlan(width: Int, height: Int, frameRate: Rational, color: ColorDescription, frameCount: Int, strict: Bool,
                   threads: Int) -> VideoPlan {
        var encoding = Encoder.VideoSettings(width: width, height: height, frameRate: frameRate, crf: crf, preset: preset,
                                             color: color, threads: threads, globalHeader: true)
        (encoding.codec, encoding.proresProfile) = (codec ?? .h264, proresProfile)
        return VideoPlan(encoding: encoding, fit: fit, strict: strict, frameCount: frameCount)
    }

    /// The output picture of a job whose format follows `reference`: the size and rate these settings give, else the
    /// reference's (upright, made even; its rate, else 30), its colour (`ColorManagement`), and as many frames as
    /// fill `length`. The one place a job's output format is derived from its input.
    func videoPlan(reference: MediaFile, length: MediaTime?, strict: Bool, threads: Int) throws(MixWriteError) -> VideoPlan {
        guard let video = reference.mainVideo else { throw .input(file: reference.path, "has no video stream") }
        let rate = self.rate(of: video)
        let (w, h) = size(shown: reference.displaySize ?? (video.width, video.height))
        let frames = length.map { max(1, Int($0.ticks(in: rate.inverted))) } ?? 0
        return videoPlan(width: w, height: h, frameRate: rate, color: ColorManagement.output(base: video, height: h),
                         frameCount: frames, strict: strict, threads: threads)
    }
}

/// The options every kind of job has: `-y` and `--strict`.
protocol CommonJob {
    /// How the job runs: `-y` and `--strict` are every kind's (`RunSettings`).
    var run: RunSettings { get set }
}

extension CommonJob {
    static var commonOptions: [JobOption<Self>] { RunSettings.commonOptions.map { $0.lifted(\.run) } }

    /// The encoders' threads, which a batch gives each job.
    mutating func useThreads(_ threads: Int) { run.threads = threads }
}
