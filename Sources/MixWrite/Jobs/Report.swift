import FFmpegSupport

/// What a finished job wrote, for `--json` and for Swift callers.
public struct Report: Sendable, Codable {
    public struct Video: Sendable, Codable {
        public var width: Int
        public var height: Int
        public var frameRate: String
        /// Frames encoded; nil when the video was copied.
        public var frames: Int?
        /// The video packets were copied, not decoded or encoded (`remix`).
        public var copied = false
        /// The output's YUV matrix (`bt709`, `bt601`; it is tagged so, with the same primaries and transfer);
        /// nil when the video was copied.
        public var matrix: String?
        /// How an input's picture was changed to reach the output's colour, one line each:
        /// `base.mov: HDR (HLG, bt2020) tone-mapped to SDR BT.709`.
        public var conversions: [String] = []
        /// Smart rendering (`--smart`): the spans of the output, as [start, end] in seconds, that are base's packets
        /// copied as they are (each frame decodes bit for bit as base's) and those decoded, composed and encoded, each
        /// in order; nil when it was not tried (`--smart off`, or a kind that does not do it).
        public var copiedSpans: [[Double]]?
        public var encodedSpans: [[Double]]?
        /// Frames copied, of `frames`.
        public var copiedFrames: Int?
        /// Why frames that nothing is laid over were encoded all the same, or nothing was copied (`base is HEVC, the
        /// output H.264`, `open GOPs`, `fx covers the whole movie`); nil when every such GOP was copied.
        public var smartReason: String?
    }
    public struct Audio: Sendable, Codable {
        public var sampleRate: Int
        public var channels: Int
        public var mode: MixMode
        public var sources: [AudioSource]
        /// With `--loudness`, `--level-match` or `--duck`: each track's loudness, the mix's, the output's.
        public var loudness: LoudnessReport?
        /// The codec the sound is written in (`aac`, `opus`, `flac`, `pcm`).
        public var codec: String?
        /// With `--stems`: the tracks after the mix, in order, each a source as it enters the mix, not played by default.
        public var stems: [Stem]?
    }
    /// A blend's layer as it was laid (the FX first): its name (`fx`, or `fx1`, `fx2` … with layers), file, span and
    /// place on the output, how it was laid (`chroma key` with its key, the colour `auto` picked written out, or
    /// `alpha`), and its sound's tracks as the mix names them.
    public struct LaidLayer: Sendable, Codable {
        public var name: String
        public var fx: String
        /// Output seconds where it starts; `in` and `out`: the span of its own seconds (`out` nil: to its end, a
        /// still's to the output's).
        public var at: Double
        public var `in`: Double
        public var out: Double?
        /// X, Y, width, height in output pixels; nil: the whole frame.
        public var place: [Int]?
        public var opacity: Double
        public var compositing: String
        public var key: KeySettings?
        /// A still picture, held for its span.
        public var still: Bool
        public var tracks: [String]
        /// Its own seconds a second of the output when not 1 (negative: played backwards).
        public var speed: Double?
        /// Seconds its last frame is held after its span.
        public var freeze: Double?
    }
    /// One stem: its track's title (`fx:1`) and how the source reaches it (its route into the mix, up to the mix).
    /// A subtitle track written: its codec, language, title, how many cues (a picture track's: packets), and the input
    /// or caption file it came from.
    public struct Subtitle: Sendable, Codable {
        public var codec: String
        public var language: String?
        public var title: String?
        public var cues: Int
        public var source: String

        /// A track as it was written: a picture track's packets counted as its cues.
        init(_ t: SubtitleTrackPlan) {
            (codec, language, title, source) = (t.codec ?? t.sourceCodec, t.language, t.title, t.source)
            cues = t.codec == nil ? t.packets.count : t.cues.count
        }
    }
    public struct Stem: Sendable, Codable {
        public var name: String
        public var route: String
    }
    public var output: String
    public var duration: Double
    public var bytes: Int64
    public var video: Video?
    public var audio: Audio?
    /// How fx was laid over base (a blend): `chroma key`, or `alpha` (fx's own; `key` is then nil).
    public var compositing: String?
    /// The first layer's key (fx's), as before layers; `layers` has each layer's.
    public var key: KeySettings?
    /// Whether `key`'s colour was read from fx's border (`--key-color auto`, or the fine keyer given none), which the
    /// command then says.
    public var keyPicked = false
    /// A blend's layers, the FX first.
    public var layers: [LaidLayer]?
    /// The level of the keyer's C kernel that ran (0 the scalar reference, 1 x86-64, 2 SSE4.2, 3 AVX2, 4 AVX-512;
    /// `MIXWRITE_KERNEL_LEVEL` forces one); nil when nothing was keyed. Every level gives the same bytes.
    public var kernelLevel: Int?
    /// Where each clip and event landed (`concat`).
    public var timeline: Timeline?
    /// The subtitle tracks written (the inputs' retimed, the caption files'); nil: none.
    public var subtitles: [Subtitle]?
    /// What the inputs carried besides their sound and picture, in words: the subtitle tracks, chapters, start timecode
    /// and tags written (what was left out is in `warnings`); nil: nothing.
    public var carried: [String]?
    /// Packets that could not be read or decoded and were skipped.
    public var damagedPackets: Int
    /// Tracks left out and other things a user should know; empty when all went as planned.
    public var warnings: [String]
    /// Warning and error lines FFmpeg itself logged during the job (shown with `-v`).
    public var libraryWarnings = 0
    /// Wall seconds of the whole job.
    public var seconds: Double
    /// Wall seconds of each stage ("video", "audio"), running side by side.
    public var stageSeconds: [String: Double]
    /// The process's peak resident memory, in MB.
    public var peakMemoryMB: Double
    /// The FFmpeg libraries the job ran on (`FFmpeg 7.1.5 (libavformat 61.7.103, …)`): encoders and defaults differ
    /// between versions, so a report says which made the file.
    public var ffmpeg: String? = FFmpegLibraries.description
}

/// Where the clips and events landed on the output's timeline.
public struct Timeline: Sendable, Codable {
    public struct Clip: Sendable, Codable {
        public var file: String
        /// Where it first shows (a transition into it begins there).
        public var start: Double
        public var duration: Double
        /// How the clip before gives way to it (`fade:1`); nil after a cut, and for the first.
        public var transition: String?
        /// Its time changed: media seconds a second (negative: reversed; 0: a freeze), and the media it shows, from
        /// and to (seconds of its file); nil when it plays as it is.
        public var speed: Double?
        public var media: [Double]?
    }
    public struct Event: Sendable, Codable {
        public var name: String
        public var time: Double
    }
    public var clips: [Clip]
    public var events: [Event]
}

extension Report {
    /// `carried` for an output with these subtitle tracks, chapters and tags.
    static func carried(subtitles: [Subtitle]?, chapters: Int, metadata: [String: String]) -> [String]? {
        var said: [String] = []
        for s in subtitles ?? [] {
            said.append("subtitles from \(s.source): \(s.codec), \(s.cues) cue\(s.cues == 1 ? "" : "s")" + (s.language.map { " [\($0)]" } ?? ""))
        }
        if chapters > 0 { said.append("\(chapters) chapter\(chapters == 1 ? "" : "s")") }
        if let tc = metadata["timecode"] { said.append("timecode \(tc)") }
        let tags = metadata.keys.filter { $0 != "timecode" }.sorted()
        if !tags.isEmpty { said.append("tags: " + tags.joined(separator: ", ")) }
        return said.isEmpty ? nil : said
    }
}
