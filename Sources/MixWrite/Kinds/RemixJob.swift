import Foundation
import FFmpegSupport

/// `remix`: every audio track of `movie` (and of `audio.files`) mixed into one, with the movie's video
/// packets copied as they are. The fix for a recording whose several tracks players offer as alternatives.
/// A movie without video gives a sound-only file (`.m4a`, `.mka`).
public struct RemixJob: Sendable {
    public var movie: String
    public var output: String
    /// How it runs: `-y`, `--strict`, threads (`RunSettings`).
    public var run = RunSettings()
    public var audio = AudioOptions()
    /// Only the sound of these seconds, without the video (the tuning page's audition, an .m4a; no command-line
    /// form: the video is copied, and a copy cannot start between keyframes).
    @_spi(Tools) public var excerpt: (start: Double, length: Double)?
    /// Caption files added as subtitle tracks (`--captions`; the picture is copied, so none is drawn into it).
    public var captions = CaptionSettings()
    /// The movie's title and start timecode (`--title`, `--timecode`).
    public var tags = MovieTags()

    public init(movie: String, output: String) {
        self.movie = movie
        self.output = output
    }
}

extension RemixJob: DescribedJob, CommonJob, CaptionedJob, TaggedJob {
    static let kind = "remix"
    static let command = ["mixwrite", "remix"]
    static let abstract = "Mix every audio track of MOVIE (and of --audio files) into one; the video is copied untouched."
    static let example = "mixwrite remix phone.mov --audio narration.m4a -o phone-mixed.mov"
    static var blank: Self { RemixJob(movie: "", output: "") }

    /// `mixwrite remix MOVIE -o OUT` and every option of a remix.
    static var options: [JobOption<Self>] {
        [.path("movie", \.movie, help: "The movie (or sound file) whose tracks are mixed. Its source name is 'movie'."),
         .path("output", \.output, form: .short("-o"), help: "The file to write (.mov, .mp4, .mkv; .m4a or .mka for sound only)."),
         AudioOptions.filesOption.lifted(\.audio)]
            + AudioOptions.options.map { $0.lifted(\.audio) }
            + captionTrackOptions + tagOptions + commonOptions
    }

    public init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    /// Checks the options (ranges, names), without opening a file.
    public func validate() throws(MixWriteError) {
        try audio.validate()
        try captions.validate()
        if captions.burn { throw .usage("--burn-captions draws into the picture, which remix copies untouched; --captions adds a track") }
    }

    public var inputPaths: [String] { [movie] + audio.files }

    func prepare() throws(MixWriteError) -> PreparedJob {
        try validate()
        let file = try MediaFile(path: movie)
        let extra = try audio.extraFiles()
        // A sound-only name (.m4a, .mka) asks for the sound alone, of a movie too.
        let soundOnly = ["m4a", "mka"].contains((output as NSString).pathExtension.lowercased())
        let video = excerpt == nil && !soundOnly ? file.mainVideo : nil
        let output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths,
                                    kind: video == nil ? .audioOnly : .movie)
        if let video, !video.fits(format: output.container.muxerName) || !MediaFile.headerAccepts(movie, video, muxerName: output.container.muxerName) {
            throw .input(file: movie, "its video (\(video.codec)) cannot be copied into a .\(output.path.split(separator: ".").last ?? "") file; use .mkv")
        }
        let audioCodec = try output.container.codecs(video: nil, audio: audio.codec).audio
        let length = (file.mainVideo != nil ? file.videoDuration : file.totalDuration) ?? .zero
        guard length > .zero else { throw .input(file: movie, "has no known duration") }
        var warnings: [String] = []
        let sources = try audio.sources(from: [("movie", file)] + extra, strict: run.strict, warnings: &warnings)
        guard video != nil || !sources.isEmpty else { throw .input(file: movie, "has neither video nor audio to remix") }
        var audioPlan = try audio.plan(sources: sources, duration: length, codec: audioCodec)
        audioPlan?.strict = run.strict
        if let excerpt, let start = MediaTime(seconds: excerpt.start), let span = MediaTime(seconds: excerpt.length) {
            guard span > .zero, start < length else { throw .usage("the excerpt is outside the movie (0 to \(length.seconds) s)") }
            audioPlan?.cut(from: start, length: min(span, length - start))
            return PreparedJob(output: output, duration: min(span, length - start), frameRate: nil, video: nil, audio: audioPlan,
                               key: nil, warnings: warnings)
        }
        var prepared = PreparedJob(output: output, duration: length, frameRate: nil,
                                   video: video.map { CopyStage(plan: CopyStage.Plan(file: file, stream: $0)) },
                                   audio: audioPlan, key: nil, warnings: warnings)
        prepared.metadata = try tags.metadata(of: file, firstFrame: 0, rate: video?.frameRate ?? Rational(25, 1))
        prepared.chapters = Self.carriedChapters(of: file, length: length)
        if video != nil {
            prepared.subtitles = try SubtitlePlan.make(placements: [SubtitlePlacement(file: file, label: "movie")], captions: captions,
                                                       muxer: output.container.muxerName, duration: length)
        }
        return prepared
    }
}
