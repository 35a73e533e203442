import FFmpegSupport

/// What an output says of itself beside its streams: its title (`--title`) and start timecode (`--timecode`). Unless
/// given, both are the reference input's (base, the first clip, the movie; a timeline's `global_start_time`), as are
/// its creation time, location and camera's make and model, which are carried as they are.
public struct MovieTags: Sendable, Hashable {
    /// The movie's title; empty: the reference input's.
    public var title = ""
    /// The start timecode, `HH:MM:SS:FF` (`;` before the frames for drop-frame); empty: the reference input's.
    public var timecode = ""

    public init() {}

    /// `title` and `timecode`.
    static var options: [JobOption<Self>] {
        [.text("title", \.title, default: "", help: "The movie's title (default: the reference input's: base, the first clip, the movie)."),
         JobOption(OptionDeclaration("timecode", .text(pattern: "^[0-9]{2}:[0-5][0-9]:[0-5][0-9][:;][0-9]{2}$", orNumber: false),
                                     valueName: "HH:MM:SS:FF", default: .text(""),
                                     help: "The start timecode, a tmcd track in MOV/MP4, a tag in Matroska (default: the reference input's; "
                                        + "an excerpt's moved on to its start)."),
                   read: { (tags, input) throws(JobProblem) in tags.timecode = try input.value("must be a timecode like 01:00:00:00") },
                   write: { $0.timecode.isEmpty ? nil : .text($0.timecode) })]
    }

    /// The container tags an input's that an output keeps: when and where it was shot, and on what.
    static let carried = ["creation_time", "location", "location-eng", "make", "model", "com.apple.quicktime.make",
                          "com.apple.quicktime.model", "com.apple.quicktime.location.ISO6709", "com.apple.quicktime.creationdate",
                          "com.android.manufacturer", "com.android.model"]

    /// The output's container tags: `reference`'s carried ones, the title and the timecode (given, or the reference's,
    /// moved on by `firstFrame` frames at `rate`: an excerpt's or a part's start). `timelineStart`: a timeline's own.
    func metadata(of reference: MediaFile?, firstFrame: Int, rate: Rational, timelineStart: String? = nil) throws(MixWriteError) -> [String: String] {
        var out: [String: String] = [:]
        for key in Self.carried { if let v = reference?.metadata[key] { out[key] = v } }
        if let t = title.isEmpty ? reference?.metadata["title"] : title { out["title"] = t }
        let start = timecode.isEmpty ? timelineStart ?? reference?.timecode : timecode
        if let start {
            guard let tc = Timecode.advanced(start, by: firstFrame, rate: rate) else {
                if !timecode.isEmpty { throw .usage("--timecode \(timecode) is not a timecode at \(rate.description) fps") }
                return out
            }
            out["timecode"] = tc
        }
        return out
    }
}

/// A kind whose output may be titled and timed (`--title`, `--timecode`).
protocol TaggedJob {
    var tags: MovieTags { get set }
}

extension TaggedJob {
    static var tagOptions: [JobOption<Self>] { MovieTags.options.map { $0.lifted(\.tags) } }
}

extension TaggedJob {
    /// `file`'s chapters on the output, where the file starts the output at 0 (a blend's base, a remix's movie): cut
    /// at `length`, an untitled one named by its number.
    static func carriedChapters(of file: MediaFile, length: MediaTime) -> [(title: String, start: MediaTime, end: MediaTime)] {
        file.chapters.enumerated().compactMap { (i, c) in
            let (start, end) = (max(.zero, c.start - file.origin), min(length, c.end - file.origin))
            return start < end ? (c.title.isEmpty ? "Chapter \(i + 1)" : c.title, start, end) : nil
        }
    }
}
