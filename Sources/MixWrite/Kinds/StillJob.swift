import FFmpegSupport

/// `still`: a movie of one picture, exactly as long as its audio (several audio files are mixed).
public struct StillJob: Sendable {
    public var image: String
    /// The sound: audio files or movies, named audio1, audio2 …
    public var audioFiles: [String]
    public var output: String
    /// How it runs: `-y`, `--strict`, threads, an excerpt (`RunSettings`).
    public var run = RunSettings()
    /// The picture: size (nil: the image's, within 1920 on its long side), frames a second (nil:
    /// `defaultFrameRate`), fit (bars), codec and quality.
    public var picture = PictureSettings(fit: .fit)
    /// What shows through transparent pixels and the bars, RGB in 0 … 1; black by default.
    public var background: [Double] = [0, 0, 0]

    /// `background` as RRGGBB (black if it is not three components).
    @_spi(Tools) public var backgroundHex: String { background.count == 3 ? OptionValue.hex((background[0], background[1], background[2])) : "000000" }
    public var audio = AudioOptions()
    /// Caption files added as tracks or drawn into the picture (`--captions`, `--burn-captions`).
    public var captions = CaptionSettings()
    /// The movie's title and start timecode (`--title`, `--timecode`).
    public var tags = MovieTags()

    public init(image: String, audioFiles: [String], output: String) {
        self.image = image
        self.audioFiles = audioFiles
        self.output = output
    }
}

extension StillJob: DescribedJob, CommonJob, ExcerptedJob, CaptionedJob, TaggedJob {
    static let kind = "still"
    static let command = ["mixwrite", "still"]
    static let abstract = "A movie of one picture, exactly as long as its audio (several audio files are mixed)."
    static let example = "mixwrite still cover.jpg episode.mp3 -o episode.mp4"
    static var blank: Self { StillJob(image: "", audioFiles: [], output: "") }
    /// Low, since nothing moves; 5 plays everywhere.
    static let defaultFrameRate = Rational(5, 1)

    /// `mixwrite still IMAGE SOUND… -o OUT` and every option of a still (its sound is `audio`; there are no others).
    static var options: [JobOption<Self>] {
        let inputs: [JobOption<Self>] = [
            .path("image", \.image, help: "The picture (PNG, JPEG …)."),
            .paths("audio", \.sounds, form: .positional, required: true, valueName: "SOUND",
                   help: "The sound: one or more audio files or movies, named audio1, audio2 …"),
            .path("output", \.output, form: .short("-o"), help: "The movie to write (.mov, .mp4, .m4v, .mkv or .webm)."),
        ]
        let background = JobOption<Self>(
            OptionDeclaration("background", .text(pattern: "^#?[0-9A-Fa-f]{6}$", orNumber: false), valueName: "RRGGBB",
                              default: .text(blank.backgroundHex), help: "The colour behind transparent pixels and in the bars, RRGGBB."),
            read: { (job, input) throws(JobProblem) in
                guard let c = OptionValue.color(try input.value("must be RRGGBB")) else { throw input.problem("must be RRGGBB") }
                job.background = [c.r, c.g, c.b]
            }, write: { job in job.background == blank.background ? nil : .text(job.backgroundHex) })
        return inputs + PictureSettings.options(blank.picture).map { $0.lifted(\.picture) } + [background]
            + excerptOptions + AudioOptions.options.map { $0.lifted(\.audio) }
            + captionOptions + tagOptions + commonOptions
    }

    /// Every sound file, `audioFiles` and then `audio.files` (the command line's `--audio`): named audio1 … in
    /// this order either way, so a job file lists them under `audio`.
    var sounds: [String] {
        get { audioFiles + audio.files }
        set { (audioFiles, audio.files) = (newValue, []) }
    }

    public init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    /// The long side of a still's movie when no --size is given and the picture is larger.
    static let longestSide = 1920.0

    /// Checks the options (ranges, names), without opening a file.
    public func validate() throws(MixWriteError) {
        guard background.count == 3 else { throw .usage("--background must be RRGGBB") }
        try picture.validate()
        try validateExcerpt()
        try audio.validate()
        try captions.validate()
    }

    public var inputPaths: [String] { [image] + audioFiles + audio.files }

    func prepare() throws(MixWriteError) -> PreparedJob {
        guard !audioFiles.isEmpty else { throw .usage("still needs an image and at least one audio file") }
        try validate()
        let frameRate = picture.frameRate ?? Self.defaultFrameRate
        let imageFile = try MediaFile(path: image)
        guard let v = imageFile.streams.first(where: { $0.kind == .video }), v.width > 0, v.height > 0 else {
            throw .input(file: image, "is not a picture")
        }
        var sounds: [(String, MediaFile)] = []
        for (i, path) in (audioFiles + audio.files).enumerated() {
            let f = try MediaFile(path: path)
            guard !f.audioStreams.isEmpty else { throw .input(file: path, "has no audio stream") }
            sounds.append(("audio\(i + 1)", f))
        }
        let output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths)
        let codecs = try output.container.codecs(video: picture.codec, audio: audio.codec)
        var warnings: [String] = []
        let sources = try audio.sources(from: sounds, strict: run.strict, warnings: &warnings)
        guard !sources.isEmpty else { throw .input(file: audioFiles[0], "no audio track left to play") }
        let length = Self.length(of: sounds.map(\.1), sources: sources)
        guard length > .zero else { throw .input(file: audioFiles[0], "has no known duration") }

        // Whole frames up to the end; the last is cut so the video ends exactly with the sound.
        let ticksPerFrame: Int64 = 1000
        let tb = Rational(frameRate.den, Int32(Int64(frameRate.num) * ticksPerFrame)).reduced()
        let totalTicks = length.ticks(in: tb, roundingUp: true)
        let frames = max(1, Int((totalTicks + ticksPerFrame - 1) / ticksPerFrame))
        let last = totalTicks - Int64(frames - 1) * ticksPerFrame
        let shownW: Int, shownH: Int
        let (width, height) = (picture.width, picture.height)
        if let width, let height { (shownW, shownH) = (width, height) } else {
            (shownW, shownH) = try StillPicture.uprightSize(file: imageFile, stream: v)
        }
        // A photo's own size is no movie size (a 12 MP phone picture is past what H.264 players decode):
        // without --size the picture is brought within 1920 on its long side. Odd sizes are rounded up to
        // even; the picture is fitted into the frame.
        var (fw, fh) = (Double(shownW), Double(shownH))
        if width == nil, max(fw, fh) > StillJob.longestSide {
            let scale = StillJob.longestSide / max(fw, fh)
            (fw, fh) = ((fw * scale).rounded(), (fh * scale).rounded())
        }
        let w = (width ?? Int(fw) + 1) & ~1, h = (height ?? Int(fh) + 1) & ~1
        let color = ColorDescription(matrix: h >= 720 ? .bt709 : .bt601, fullRange: false)
        var video = picture.videoPlan(width: w, height: h, frameRate: frameRate, color: color, frameCount: frames, strict: run.strict,
                                      threads: run.threads)
        (video.encoding.codec, video.encoding.keyframeInterval) = (codecs.video, max(1, Int(frameRate.doubleValue * 10)))
        var plan = SequenceStage.Plan(pieces: [.init(file: imageFile, frames: frames)], video: video, lastFrameTicks: max(1, last),
                                      ticksPerFrame: ticksPerFrame, background: (background[0], background[1], background[2]))
        var audioPlan = try audio.plan(sources: sources, duration: length, codec: codecs.audio)
        audioPlan?.strict = run.strict
        // An excerpt: whole frames of the picture, the sound cut to the same span (the last frame not cut short).
        if let excerpt { try excerpt.cut(video: &plan.video, audio: &audioPlan) }
        let subtitles = try subtitles([], output: output, video: &plan.video)
        var prepared = PreparedJob(output: output, duration: excerpt == nil ? length : plan.video.length, frameRate: frameRate,
                                   video: SequenceStage(plan: plan), audio: audioPlan, key: nil, warnings: warnings)
        prepared.subtitles = subtitles
        prepared.metadata = try tags.metadata(of: nil, firstFrame: plan.video.firstFrame, rate: frameRate)
        return prepared
    }

    /// As long as the longest sound that is played, offsets included.
    static func length(of files: [MediaFile], sources: [AudioSource]) -> MediaTime {
        var length = MediaTime.zero
        for f in files {
            for s in f.audioStreams {
                guard let src = sources.first(where: { $0.path == f.path && $0.streamIndex == s.index }) else { continue }
                let d = (s.duration ?? f.totalDuration ?? .zero) + ((s.start ?? f.origin) - f.origin)
                let withOffset = d + (MediaTime(seconds: String(src.offsetSeconds)) ?? .zero)
                if length < withOffset { length = withOffset }
            }
        }
        return length
    }
}
