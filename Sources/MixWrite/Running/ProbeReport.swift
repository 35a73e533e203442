import FFmpegSupport

/// What `mixwrite probe` tells of a file: its container, every stream, its chapters and start timecode.
public struct ProbeReport: Sendable, Codable {
    public struct Chapter: Sendable, Codable {
        public var title: String
        public var start: Double
        public var end: Double
    }

    public struct Stream: Sendable, Codable {
        public var index: Int
        public var kind: String
        public var codec: String
        public var profile: String?
        public var width: Int?
        public var height: Int?
        public var pixelFormat: String?
        /// The pixel aspect, when pixels are not square ("1:2").
        public var sampleAspectRatio: String?
        public var frameRate: String?
        public var sampleRate: Int?
        public var channels: Int?
        public var layout: String?
        public var duration: Double?
        /// Clockwise degrees to show the picture upright (phone recordings).
        public var rotation: Int?
        public var reflected: Bool?
        public var language: String?
        /// Its name (a track's title; MOV's handler name unless a generic one).
        public var title: String?
        /// A subtitle track's cues (a picture track's: its packets); nil for others.
        public var cues: Int?
        public var attachedPicture: Bool?
        /// The YUV matrix the picture is read by (`bt709`, `bt601`, `bt2020`; an untagged HD stream as BT.709).
        public var matrix: String?
        /// `HLG` or `PQ` for high dynamic range (tone-mapped to SDR in an output); nil for SDR.
        public var hdr: String?
        /// The colour primaries as tagged (`bt709`, `bt2020`, `unknown`).
        public var primaries: String?
        /// The picture carries its own alpha (a blend composites such an fx by it).
        public var alpha: Bool?
        public var decodable: Bool
    }

    public var file: String
    public var format: String?
    public var duration: Double?
    public var streams: [Stream]
    /// Its chapters: title, start and end in seconds on the file's timeline.
    public var chapters: [Chapter]?
    /// The start timecode (`01:00:00:00`), a tmcd track's or the container's.
    public var timecode: String?
    /// Why the file could not be read; the other fields are then empty.
    public var error: String?

    /// Reads a file's streams; an unreadable file gives a report with its `error`.
    public static func probe(_ path: String) -> ProbeReport {
        let file: MediaFile
        // The video read as a job reads it: its rate the grid its frames are on.
        do { file = try MediaFile(path: path) } catch {
            return ProbeReport(file: path, format: nil, duration: nil, streams: [], chapters: nil, timecode: nil, error: error.description)
        }
        let streams = file.streams.map { s -> Stream in
            let video = s.kind == .video, audio = s.kind == .audio
            return Stream(
                index: s.index, kind: s.kind.rawValue, codec: s.codec, profile: s.profile,
                width: video ? s.width : nil, height: video ? s.height : nil,
                pixelFormat: video ? s.pixelFormat.description : nil,
                sampleAspectRatio: video ? s.sampleAspectRatio.flatMap { $0.num == $0.den ? nil : "\($0.num):\($0.den)" } : nil,
                frameRate: video && !s.isAttachedPicture ? s.frameRate?.description : nil,
                sampleRate: audio ? s.sampleRate : nil, channels: audio ? s.channels : nil,
                layout: audio ? s.layout : nil, duration: s.duration?.seconds,
                rotation: video ? s.rotation : nil, reflected: video && s.reflected ? true : nil,
                language: s.language, title: s.title, cues: s.kind == .subtitle ? cueCount(path, s.index) : nil, attachedPicture: s.isAttachedPicture ? true : nil,
                matrix: video ? s.color.matrix.rawValue : nil, hdr: video ? s.hdr?.rawValue : nil,
                primaries: video ? s.primaries : nil, alpha: video && s.hasAlpha ? true : nil,
                decodable: s.hasDecoder && !(audio && s.channels == 0))
        }
        let chapters = file.chapters.map { Chapter(title: $0.title, start: $0.start.seconds, end: $0.end.seconds) }
        return ProbeReport(file: path, format: file.format, duration: file.totalDuration?.seconds, streams: streams,
                           chapters: chapters.isEmpty ? nil : chapters, timecode: file.timecode, error: nil)
    }

    /// A subtitle track's cues, as a job reads them (nil when they cannot be read).
    static func cueCount(_ path: String, _ index: Int) -> Int? {
        guard let contents = try? Demuxer(url: path).subtitles(of: index) else { return nil }
        return contents.isPictures ? contents.packets.count : contents.cues.count
    }
}
