import FFmpegSupport

/// The picture a video stage writes, for every kind alike: the encoder's settings (size, rate, colour, codec,
/// quality, threads: the one description of the output picture), how inputs fit it, and which of the whole
/// output's frames this render writes. `PictureSettings.videoPlan(reference:…)` decides it from a job's options and
/// its reference input (base, the first clip, fx) in one place; every encoding stage's plan holds one.
struct VideoPlan: Sendable {
    var encoding: Encoder.VideoSettings
    var fit: Fit
    /// Fail at the first damaged packet instead of skipping it.
    var strict: Bool
    /// Frames of the whole output.
    var wholeFrameCount: Int
    /// The frames this render writes: all of them, or an excerpt's or a part's (`cut(to:)`).
    var frames: Range<Int>
    /// Caption files drawn into the pictures (`--burn-captions`).
    var burned: BurnedCaptions?

    /// `frameCount` frames of the picture `encoding` describes, all of them written.
    init(encoding: Encoder.VideoSettings, fit: Fit, strict: Bool, frameCount: Int) {
        (self.encoding, self.fit, self.strict, wholeFrameCount, frames) = (encoding, fit, strict, frameCount, 0..<frameCount)
    }

    var width: Int { encoding.width }
    var height: Int { encoding.height }
    var frameRate: Rational { encoding.frameRate }
    var color: ColorDescription {
        get { encoding.color }
        set { encoding.color = newValue }
    }
    var frameCount: Int { frames.count }

    /// The format a stage draws its pictures in: 8 bits, or 10 with `--hdr keep` (the encoder converts to its own).
    static func pictureFormat(hdr: HDRTransfer?) -> PixelFormat { hdr == nil ? .yuv420p : .yuv420p10 }
    var firstFrame: Int { frames.lowerBound }
    /// How long the frames written last.
    var length: MediaTime { MediaTime(frames: Int64(frameCount), rate: frameRate) }
    var wholeLength: MediaTime { MediaTime(frames: Int64(wholeFrameCount), rate: frameRate) }
    /// The time of output frame `n` of the whole.
    func time(ofFrame n: Int) -> MediaTime { MediaTime(frames: Int64(n), rate: frameRate) }

    /// Only `frames` of the whole output (an excerpt).
    mutating func cut(to frames: Range<Int>) { self.frames = frames }

    /// Only `frames`, as one part of `--parts`: parameter sets that do not depend on the pictures (x264's
    /// `stitchable`), so the parts join by copying packets.
    mutating func cutToPart(_ frames: Range<Int>) {
        self.frames = frames
        encoding.stitchable = true
    }

    /// What the report says of the picture.
    var written: WrittenVideo {
        WrittenVideo(width: width, height: height, frameRate: frameRate.description, frames: frameCount, matrix: color.matrix.rawValue)
    }

    /// What the report says of the picture, with smart rendering's account when it was tried.
    func written(smart: SmartPlan?) -> WrittenVideo {
        var w = written
        w.smart = smart?.account(rate: frameRate, firstFrame: firstFrame)
        return w
    }
}

/// A stage plan that encodes a picture: it holds a `VideoPlan` (its size, rate, colour, fit, frames).
protocol EncodingPlan: Sendable {
    var video: VideoPlan { get set }
}

/// A job's video stage, whatever its kind: `MixWriter` runs it as it runs any other, beside the audio stage.
protocol VideoStage: Sendable {
    /// Runs to the end, then marks the track finished. Returns the count of damaged packets skipped.
    func run(into input: AssetWriterInput) async throws -> Int
    /// What the report says of the picture written.
    var written: WrittenVideo { get }
    /// How fx was laid over base, for the report (a blend's); nil for the other kinds.
    var compositing: String? { get }
}

extension VideoStage {
    var compositing: String? { nil }
}

/// What a stage, video or audio, hands `MixWriter` when it ends: the damaged packets it stepped over; the audio's
/// loudness and warnings.
struct StageOutcome: Sendable {
    var damaged: Int
    var loudness: LoudnessReport? = nil
    var warnings: [String] = []
}

/// What a video stage wrote, as the report tells it (`Report.Video`).
struct WrittenVideo: Sendable {
    var width: Int
    var height: Int
    var frameRate: String
    /// nil when the video was copied.
    var frames: Int?
    var matrix: String?
    var copied = false
    /// Smart rendering's account (`Report.Video`'s spans, frames copied and reason); nil when it was not tried.
    var smart: SmartAccount?
}
