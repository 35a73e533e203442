import FFmpegSupport

/// A job that encodes a picture (blend, concat, still): the options they share, read, written and checked in
/// one place for all three.
protocol PictureJob {
    /// Output size; nil: the input's.
    var width: Int? { get set }
    var height: Int? { get set }
    /// Output frame rate; nil: the input's (a still's: 5).
    var frameRate: Rational? { get set }
    /// x264's constant rate factor and preset.
    var crf: Int { get set }
    var preset: String { get set }
    var fit: Fit { get set }
    /// The video codec; nil: the container's (H.264; a `.webm`'s VP9).
    var codec: VideoCodec? { get set }
    var proresProfile: ProResProfile { get set }
}

extension PictureJob {
    static var defaultCRF: Int { 20 }
    static var defaultPreset: String { "veryfast" }
    static var presets: [String] { Encoder.x264Presets }

    /// `size`, `fps`, `crf`, `preset`, `fit` (whose default is the kind's).
    static func pictureOptions(fit defaultFit: Fit) -> [JobOption<Self>] {
        [
            JobOption(name: "size", read: { (job, input) throws(JobProblem) in
                guard let size = OptionValue.size(try input.value("must be WIDTHxHEIGHT")) else { throw input.problem("must be WIDTHxHEIGHT") }
                (job.width, job.height) = (size.width, size.height)
            }, write: { job in job.width.flatMap { w in job.height.map { .text("\(w)x\($0)") } } }),
            JobOption(name: "fps", read: { (job, input) throws(JobProblem) in
                let what = "must be a frame rate such as 30 or \"30000/1001\""
                guard let r = Rational(parsing: try input.text(what)) else { throw input.problem(what) }
                job.frameRate = r
            }, write: { $0.frameRate.map { .text($0.description) } }),
            .integer("crf", \.crf, default: defaultCRF),
            .text("preset", \.preset, default: defaultPreset),
            .choice("fit", \.fit, default: defaultFit),
            .choice("codec", \.codec),
            .choice("prores-profile", \.proresProfile, default: .hq),
        ]
    }

    /// The checks every encoding job makes of its picture options.
    func validatePicture() throws(MixWriteError) {
        if !(0...51).contains(crf) { throw .usage("--crf must be between 0 and 51") }
        if !Self.presets.contains(preset) {
            throw .usage("--preset '\(preset)' is not an x264 preset (\(Self.presets.joined(separator: ", ")))")
        }
        if let w = width, let h = height, !(16...8192).contains(w) || !(16...8192).contains(h) {
            throw .usage("--size must be between 16x16 and 8192x8192")
        }
        if let r = frameRate, !(r.isValid && r.doubleValue <= 240) { throw .usage("--fps must be between 0 and 240") }
    }
}

/// The options every kind of job has: `-y` and `--strict`.
protocol CommonJob {
    var overwrite: Bool { get set }
    var strict: Bool { get set }
}

extension CommonJob {
    static var commonOptions: [JobOption<Self>] {
        [.flag("overwrite", \.overwrite, form: .short("-y")), .flag("strict", \.strict)]
    }
}
