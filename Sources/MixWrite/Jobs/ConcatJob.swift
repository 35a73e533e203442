import Foundation
import FFmpegSupport

/// A moment inside one clip, to be found again on the output's timeline.
public struct ClipEvent: Sendable, Codable {
    /// 0-based clip index.
    public var clip: Int
    /// Seconds from the start of that clip.
    public var time: Double
    public var name: String

    public init(clip: Int, time: Double, name: String) {
        self.clip = clip; self.time = time; self.name = name
    }
}

/// `concat`: clips end to end, video and every audio track of each; one chapter a clip.
public struct ConcatJob: Sendable {
    public var clips: [String]
    public var output: String
    public var overwrite = false
    /// The picture: size (nil: the first clip's, upright) and rate (nil: the first clip's), fit (letterboxed),
    /// codec and quality.
    public var picture = PictureSettings(fit: .fit)
    public var audio = AudioOptions()
    public var events: [ClipEvent] = []
    /// Also mark each event as a chapter (the clip's chapter is split at the event), so players show it.
    public var eventChapters = false
    public var strict = false
    /// x264 threads; 0: as many as the machine has (batch divides the cores between its jobs).
    public var threads = 0
    /// `--parts N --part K`: render only part K of N equal parts into `OUT.parts/`, for `mixwrite join` (`PartedJob`).
    public var parts: Int?
    public var part: Int?
    /// Write only part of the output (`--start`, `--length`; the tuning page's audition): from `start` (nil: 0) for
    /// `length` (nil: to the end), the pictures and the sound of the whole movie there (`ExcerptedJob`).
    public var start: Double?
    public var length: Double?

    public init(clips: [String], output: String) {
        self.clips = clips
        self.output = output
    }
}

/// Where the clips and events landed on the output's timeline.
public struct Timeline: Sendable, Codable {
    public struct Clip: Sendable, Codable {
        public var file: String
        public var start: Double
        public var duration: Double
    }
    public struct Event: Sendable, Codable {
        public var name: String
        public var time: Double
    }
    public var clips: [Clip]
    public var events: [Event]
}

extension ConcatJob: DescribedJob, CommonJob, PartedJob, ExcerptedJob {
    static let kind = "concat"
    static let command = ["mixwrite", "concat"]
    static var blank: Self { ConcatJob(clips: [], output: "") }
    mutating func useThreads(_ threads: Int) { self.threads = threads }

    /// `mixwrite concat CLIP… -o OUT` and every option of a concat. Events given in a job file have no
    /// command-line form but a file (`--events PATH`), so the command leaves them out.
    static var options: [JobOption<Self>] {
        let inputs: [JobOption<Self>] = [
            .paths("clips", \.clips, form: .positional, required: true, valueName: "CLIP", help: "The clips, in order."),
            .path("output", \.output, form: .short("-o"), help: "The movie to write (.mov, .mp4, .m4v, .mkv or .webm)."),
        ]
        let own: [JobOption<Self>] = [
            .flag("event-chapters", \.eventChapters, help: "Also mark each event as a chapter (its clip's chapter is split there)."),
            eventsOption,
        ]
        return inputs + PictureSettings.options(PictureSettings(fit: .fit)).map { $0.lifted(\.picture) } + own + excerptOptions
            + [AudioOptions.filesOption.lifted(\.audio)] + AudioOptions.options.map { $0.lifted(\.audio) }
            + partOptions + commonOptions
    }

    /// `events`: an array of `{"clip", "time", "name"}`, or the path of a file holding one.
    static var eventsOption: JobOption<Self> {
        JobOption(OptionDeclaration("events", .events, valueName: "FILE",
                                    help: "A JSON array of {\"clip\": K, \"time\": SECONDS, \"name\": TEXT} (K from 0) to re-time onto the output."),
                  read: { (job, input) throws(JobProblem) in
            let what = "must be an array of {\"clip\", \"time\", \"name\"} or the path of one"
            switch try input.either([ClipEvent].self, String.self, what) {
            case .first(let events): job.events = events
            case .second(let path):
                let file = input.resolve(path)
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw JobProblem(index: input.index, key: input.name, what: "cannot be read", file: file)
                }
                do { job.events = try JSONDecoder().decode([ClipEvent].self, from: data) } catch {
                    throw JobProblem(index: input.index, key: input.name,
                                     what: "is not a JSON array of {\"clip\", \"time\", \"name\"} events", file: file)
                }
            }
        }, write: { $0.events.isEmpty ? nil : .events($0.events) })
    }

    public init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    /// Checks the options (ranges, names), without opening a file.
    public func validate() throws(MixWriteError) {
        guard !clips.isEmpty else { throw .usage("concat needs at least one clip") }
        try picture.validate()
        try validateExcerpt(parts: parts)
        try validateParts()
        try audio.validate()
    }

    public var inputPaths: [String] { clips + audio.files }

    func prepare() throws(MixWriteError) -> PreparedJob {
        try validate()
        let files = try clips.map { (path: String) throws(MixWriteError) -> MediaFile in
            let f = try MediaFile(path: path)
            guard f.mainVideo != nil else { throw .input(file: path, "has no video stream; a concat clip must be a movie") }
            return f
        }
        let extra = try audio.extraFiles()
        var output = try OutputFile(path: output, overwrite: overwrite, inputs: inputPaths)
        let codecs = try output.container.codecs(video: picture.codec, audio: audio.codec)
        var video = try picture.videoPlan(reference: files[0], length: nil, strict: strict, threads: threads)
        video.encoding.codec = codecs.video
        let (pieces, starts, spans) = try Self.pieces(files, rate: video.frameRate)
        var plan = SequenceStage.Plan(pieces: pieces, video: video)
        if let selection {
            _ = try selection.frames(of: plan.wholeFrameCount)   // refused before the part's folder is made
            output = try partOutput(selection, final: output, video: codecs.video, audio: codecs.audio, inputs: inputPaths)
        }

        let conversions = ColorManagement.conversions(of: files)
        var warnings = conversions
        let labelled = files.enumerated().map { ("clip\($0.offset + 1)", $0.element) }
        var sources = try audio.sources(from: labelled + extra, strict: strict, warnings: &warnings)
        // The clips come first among the inputs, so a source's input index below their count is its clip's.
        for i in sources.indices where sources[i].inputIndex < files.count {
            (sources[i].timelineStart, sources[i].span) = (starts[sources[i].inputIndex], spans[sources[i].inputIndex])
        }
        var audioPlan = try audio.plan(sources: sources, duration: plan.video.wholeLength, codec: codecs.audio)
        audioPlan?.strict = strict
        let timeline = try self.timeline(files, starts: starts, spans: spans)
        let chapters = chapters(files: files, starts: starts, spans: spans, total: plan.video.wholeLength)
        if let excerpt { try excerpt.cut(video: &plan.video, audio: &audioPlan) }
        // A part's chapters are the joined movie's, in its record.
        let part = try selection.map { (s: PartSelection) throws(MixWriteError) in
            try cutToPart(s, video: &plan.video, audio: &audioPlan, chapters: chapters)
        }
        var prepared = PreparedJob(output: output, duration: plan.video.length, frameRate: plan.video.frameRate,
                                   video: SequenceStage(plan: plan), audio: audioPlan, key: nil, warnings: warnings,
                                   conversions: conversions, chapters: excerpt == nil && part == nil ? chapters : [],
                                   timeline: excerpt == nil ? timeline : nil)
        prepared.part = part
        return prepared
    }

    /// Each clip as whole output frames, so the boundaries fall on frame times and never drift: the pieces, and
    /// where each starts and how long it lasts on the output.
    static func pieces(_ files: [MediaFile], rate: Rational) throws(MixWriteError)
        -> (pieces: [SequenceStage.Piece], starts: [MediaTime], spans: [MediaTime]) {
        var pieces: [SequenceStage.Piece] = [], starts: [MediaTime] = [], spans: [MediaTime] = []
        var frameIndex = 0
        for f in files {
            guard let length = f.videoDuration, length > .zero else { throw .input(file: f.path, "has no known duration") }
            let n = max(1, Int(length.ticks(in: rate.inverted)))
            starts.append(MediaTime(frames: Int64(frameIndex), rate: rate))
            spans.append(MediaTime(frames: Int64(n), rate: rate))
            pieces.append(.init(file: f, frames: n))
            frameIndex += n
        }
        return (pieces, starts, spans)
    }

    /// Where the clips and events land on the output (an event's clip must exist, its time not be negative).
    func timeline(_ files: [MediaFile], starts: [MediaTime], spans: [MediaTime]) throws(MixWriteError) -> Timeline {
        for e in events {
            guard files.indices.contains(e.clip) else {
                throw .usage("event '\(e.name)': clip \(e.clip) does not exist (clips are numbered from 0 to \(files.count - 1))")
            }
            guard e.time >= 0 else { throw .usage("event '\(e.name)': time \(e.time) is negative") }
        }
        return Timeline(
            clips: files.enumerated().map { .init(file: $0.element.path, start: starts[$0.offset].seconds, duration: spans[$0.offset].seconds) },
            events: events.map { .init(name: $0.name, time: starts[$0.clip].seconds + min($0.time, spans[$0.clip].seconds)) })
    }
}

extension ConcatJob {
    /// A chapter a clip (by its file name), and one an event with `eventChapters`; each lasts until the next mark
    /// (an event splits its clip's chapter).
    func chapters(files: [MediaFile], starts: [MediaTime], spans: [MediaTime],
                  total: MediaTime) -> [(title: String, start: MediaTime, end: MediaTime)] {
        var marks: [(title: String, start: MediaTime)] = files.enumerated().map { (i, f) in
            (String(f.path.split(separator: "/").last ?? Substring(f.path)), starts[i])
        }
        if eventChapters {
            for e in events {
                let at = starts[e.clip] + (MediaTime(seconds: String(min(e.time, spans[e.clip].seconds))) ?? .zero)
                marks.append((e.name, at))
            }
        }
        marks.sort { $0.start < $1.start }
        return marks.enumerated().map { (i, m) in
            (title: m.title, start: m.start, end: i + 1 < marks.count ? marks[i + 1].start : total)
        }.filter { $0.start < $0.end }
    }
}
