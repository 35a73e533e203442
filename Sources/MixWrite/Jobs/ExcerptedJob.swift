import FFmpegSupport

/// A job that can write only part of its output (`--start`, `--length`; the tuning page's audition): the pictures and
/// the sound the whole movie has there (fades, offsets, ducking and the loudness gain as the whole has them).
protocol ExcerptedJob {
    /// `run.start` and `run.length`: from `start` seconds (nil: 0) for `length` (nil: to the end).
    var run: RunSettings { get set }
}

extension ExcerptedJob {
    /// The part asked for by `start` and `length`, if any (a time `validate` refuses reads as 0).
    var excerpt: Excerpt? {
        get {
            guard run.start != nil || run.length != nil else { return nil }
            return Excerpt(start: run.start.flatMap { MediaTime(seconds: $0) } ?? .zero, length: run.length.flatMap { MediaTime(seconds: $0) })
        }
        set { (run.start, run.length) = (newValue?.start.seconds, newValue?.length?.seconds) }
    }

    /// `start` and `length`, lifted onto the job.
    static var excerptOptions: [JobOption<Self>] { RunSettings.excerptOptions.map { $0.lifted(\.run) } }

    /// The ranges, and an excerpt never with `parts` (which split the whole movie).
    func validateExcerpt() throws(MixWriteError) {
        try Self.excerptOptions.checkRanges(self)
        if run.parts != nil && excerpt != nil { throw .usage("--parts splits the whole movie: --start and --length do not go with it") }
    }
}

/// A part of the output's timeline (`--start`, `--length`; the tuning page's audition).
struct Excerpt: Sendable, Equatable {
    var start: MediaTime
    /// nil: to the end.
    var length: MediaTime?
}

extension Excerpt {

    /// Cuts a job's whole picture and sound to the excerpt: its frames, and the sound the whole mix has there.
    func cut(video: inout VideoPlan, audio: inout AudioMixPlan?) throws(MixWriteError) {
        video.cut(to: try frames(rate: video.frameRate, of: video.wholeFrameCount))
        audio?.cut(from: video.time(ofFrame: video.firstFrame), length: video.length)
    }

    /// The output frames it covers, out of `count` at `rate`: from the frame showing at `start`, at least one.
    func frames(rate: Rational, of count: Int) throws(MixWriteError) -> Range<Int> {
        let whole = MediaTime(frames: Int64(count), rate: rate)
        guard start >= .zero, start < whole else {
            throw .usage("--start \(start.seconds) is outside the output (0 to \(whole.seconds) s)")
        }
        let first = Int(start.ticks(in: rate.inverted, roundingUp: false))
        guard let length else { return first..<count }
        guard length > .zero else { throw .usage("--length must be more than 0 s") }
        return first..<min(count, first + max(1, Int(length.ticks(in: rate.inverted))))
    }
}

