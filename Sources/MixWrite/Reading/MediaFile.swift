import FFmpegSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a file holds, read once when a job is planned. The stages open the file again for themselves.
struct MediaFile: Sendable {
    let path: String
    let format: String
    /// The container's duration, if it says.
    let duration: MediaTime?
    /// The time every stream of the file is measured from (the container's start time, else 0).
    let origin: MediaTime
    let streams: [StreamInfo]
    /// Its chapters, on the file's own clock (as its streams' timestamps: less `origin` on the file's timeline).
    let chapters: [FileChapter]
    /// The container's tags, and its start timecode (a tmcd track's or the container's `timecode` tag).
    let metadata: [String: String]
    let timecode: String?

    /// Opens `path` and reads its streams; a clear `MixWriteError.input` when it cannot.
    init(path: String, scanVideo: Bool = true) throws(MixWriteError) {
        try MediaFile.checkReadable(path)
        let logged = FFmpegLog.count
        defer { ProbeLog.record(path, FFmpegLog.count - logged) }
        let demuxer: Demuxer
        do {
            demuxer = try Demuxer(url: path)
        } catch {
            throw .input(file: path, MediaFile.explain(error))
        }
        self.path = path
        format = demuxer.formatName
        duration = demuxer.duration
        origin = demuxer.startTime ?? .zero
        chapters = demuxer.chapters
        metadata = demuxer.metadata
        timecode = metadata["timecode"] ?? demuxer.streams.lazy.compactMap { demuxer.metadata(ofStream: $0.index)["timecode"] }.first
        var streams = demuxer.streams
        let still = format == "image2" || format.hasSuffix("_pipe")
        if scanVideo, !still, let i = streams.firstIndex(where: \.isRealVideo), let grid = FrameGrid.measure(demuxer, streams[i]) {
            // The frames' own rate (an interlaced stream's from its pictures: its packets may be fields), said where the
            // header's reads otherwise, an odd average rounded to a standard rate included.
            let stated = streams[i].frameRate
            let grid = streams[i].isInterlaced ? FrameGrid.measureDecoded(path, streams[i]) ?? grid : grid
            if let s = stated, FrameGrid.text(s) != FrameGrid.text(grid) {
                ProbeLog.note(path, "its frames are on a \(FrameGrid.text(grid)) fps grid, not the \(FrameGrid.text(s)) fps its header says; read at \(FrameGrid.text(grid)) fps")
            }
            streams[i].frameRate = grid
        }
        self.streams = streams
        scannedVideoEnd = nil
        // A QuickTime/MP4 stream's duration is its sample table's; other containers' is a header's claim (an MXF's
        // 13.44 s of which 0.24 s is there), so their video's end is read from its last packets.
        if scanVideo, !still, let v = mainVideo, v.duration == nil || !format.hasPrefix("mov,") { scannedVideoEnd = scanVideoEnd() }
    }

    /// The video's end read from its packets, where the stream's stated duration is not to be trusted.
    private(set) var scannedVideoEnd: MediaTime?

    var videoStreams: [StreamInfo] { streams.filter(\.isRealVideo) }
    /// A picture file (PNG, JPEG, WebP, BMP, TIFF …: FFmpeg's image demuxers), one picture with no time of its own:
    /// as a layer it is held for its span.
    var isStillImage: Bool { mainVideo != nil && (format == "image2" || format.hasSuffix("_pipe")) }
    var audioStreams: [StreamInfo] { streams.filter { $0.kind == .audio && $0.channels > 0 } }
    /// The stream a video stage reads: the first real video stream (not cover art).
    var mainVideo: StreamInfo? { videoStreams.first }

    /// The main video's size as shown: turned upright, sample aspect applied to the width; even.
    var displaySize: (width: Int, height: Int)? {
        guard let v = mainVideo else { return nil }
        let sar = v.sampleAspectRatio.map { $0.doubleValue } ?? 1
        var w = Int((Double(v.width) * (sar > 0 ? sar : 1)).rounded()), h = v.height
        if Orientation(matrix: v.displayMatrix).swapsSides { swap(&w, &h) }
        return (max(2, w & ~1), max(2, h & ~1))
    }

    /// The length of the file's video: the video stream's own duration, else the container's.
    var videoDuration: MediaTime? {
        guard let v = mainVideo else { return nil }
        if let end = scannedVideoEnd { return end }
        if let d = v.duration, d > .zero {
            // A stream that starts after the file's origin still ends at start + duration on the file's timeline.
            let startOffset = (v.start ?? origin) - origin
            return startOffset > .zero ? startOffset + d : d
        }
        return scannedVideoEnd ?? duration
    }

    /// The length of the whole file: the container's duration, else its longest stream.
    var totalDuration: MediaTime? {
        duration ?? streams.compactMap(\.duration).max()
    }

    static func checkReadable(_ path: String) throws(MixWriteError) {
        var st = stat()
        if stat(MediaPath.file(path), &st) != 0 {
            throw .input(file: path, errno == ENOENT ? "no such file" : String(cString: strerror(errno)).lowercased())
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw .input(file: path, "is a folder, not a media file") }
        if access(MediaPath.file(path), R_OK) != 0 { throw .input(file: path, "cannot be read (permission denied)") }
        if st.st_size == 0 { throw .input(file: path, "is empty (0 bytes)") }
    }

    static func explain(_ error: FFmpegError) -> String {
        switch error.call {
        case "avformat_open_input":
            return "not a media file FFmpeg can read (\(error.message.lowercased()))"
        case "avformat_find_stream_info":
            return "cannot read its streams (\(error.message.lowercased()))"
        default:
            return error.description
        }
    }
}

extension MediaFile {
    /// Where the main video really ends, read from its packets without decoding them: for containers
    /// that do not store a stream duration (Matroska, WebM), whose file duration may be the audio's.
    /// nil when the file cannot be read again; then its stated duration stands.
    func scanVideoEnd() -> MediaTime? {
        guard let v = mainVideo else { return nil }
        var demuxer: Demuxer
        do { demuxer = try Demuxer(url: path) } catch { return nil }
        demuxer.keepOnly([v.index])
        // Only the end matters: jump to a few seconds before the stated end (Matroska has cues, so this is
        // cheap) and read from there.
        let lead = MediaTime(value: 10, timescale: Int64(1))
        var seeked = false
        if let d = duration, d > lead {
            do { try demuxer.seek(to: origin + d - lead, streamIndex: v.index); seeked = true } catch {
                // Where a failed seek leaves the demuxer is not defined: read the whole file from the top instead.
                do { demuxer = try Demuxer(url: path) } catch { return nil }
                demuxer.keepOnly([v.index])
            }
        }
        var found = lastPacketEnd(demuxer, v)
        if found == nil, seeked, let again = try? Demuxer(url: path) {
            // A seek past what is there (a header's length longer than the file) finds nothing: read from the top.
            again.keepOnly([v.index])
            found = lastPacketEnd(again, v)
        }
        guard let (end, lastKey) = found else { return nil }
        // Where the packets end far from where the header says (a cut file), what the last GOP decodes is the end.
        let frame = v.frameRate.map { MediaTime(frames: 1, rate: $0) } ?? .zero
        if let stated = v.duration ?? duration, abs((stated - end).seconds) > frame.seconds, let key = lastKey,
           let decoded = decodedEnd(from: key, v) {
            return decoded
        }
        return end
    }

    /// The end of the last of `v`'s packets `demuxer` reads from where it is, on the file's timeline, and the time of
    /// the last keyframe among them (the file's own).
    private func lastPacketEnd(_ demuxer: Demuxer, _ v: StreamInfo) -> (end: MediaTime, lastKey: MediaTime?)? {
        let packet = Packet()
        var end: Int64?, lastKey: Int64?
        var lastDuration: Int64 = 0
        while true {
            do {
                guard try demuxer.read(into: packet) else { break }
            } catch {
                break   // A read error is where a damaged file ends, for the stages too.
            }
            guard packet.streamIndex == v.index, let pts = packet.pts ?? packet.dts else { continue }
            if packet.isKeyframe { lastKey = pts }
            if end == nil || pts + packet.duration > end! { end = pts + packet.duration; lastDuration = packet.duration }
        }
        guard var e = end else { return nil }
        // A last packet without a duration lasts one frame.
        if lastDuration == 0, let r = v.frameRate, r.isValid {
            e += MediaTime(frames: 1, rate: r).ticks(in: v.timeBase)
        }
        return (MediaTime(ticks: e, timeBase: v.timeBase) - origin, lastKey.map { MediaTime(ticks: $0, timeBase: v.timeBase) })
    }

    /// Where the pictures that decode from the keyframe at `key` (the file's own time) on end, on the file's timeline:
    /// a frame past the last one's time. nil when none decodes.
    private func decodedEnd(from key: MediaTime, _ v: StreamInfo) -> MediaTime? {
        guard let demuxer = try? Demuxer(url: path) else { return nil }
        demuxer.keepOnly([v.index])
        guard (try? demuxer.seek(to: key, streamIndex: v.index)) != nil,
              let frames = try? Decoder(demuxer: demuxer, streamIndex: v.index, threads: 1).frames(from: demuxer) else { return nil }
        var last: Int64?
        while let frame = try? frames.next() {
            if let t = frame.bestEffortTimestamp { last = max(last ?? t, t) }
        }
        guard let last else { return nil }
        let step = v.frameRate.map { MediaTime(frames: 1, rate: $0) } ?? .zero
        return MediaTime(ticks: last, timeBase: v.timeBase) + step - origin
    }
}

extension MediaFile {
    /// How far a timestamp may lie from where the sound before it ends, in seconds, before the sound is moved to it:
    /// the ffmpeg CLI's `aresample` `min_hard_comp` default. It is over AAC's priming at 44.1 and 48 kHz (2112 samples,
    /// 48 ms at most) and a Matroska file's millisecond rounding, and under a dropout a listener hears.
    static let timingTolerance = 0.1

    /// Where each of `streams` starts on the file's timeline (after its origin): the stream's stated start, or its first
    /// packet's time where that lies later by more than `timingTolerance`. FFmpeg states the file's start for a
    /// stream whose first packet comes after its probe window (a Matroska track that begins 5 s or more in), and the
    /// packets say where its sound is heard. The packets are read, not decoded, until each stream has shown one.
    func starts(of streams: [StreamInfo]) -> [Int: MediaTime] {
        var result: [Int: MediaTime] = [:]
        for s in streams { result[s.index] = max(.zero, (s.start ?? origin) - origin) }
        guard !streams.isEmpty, let demuxer = try? Demuxer(url: path) else { return result }
        demuxer.keepOnly(Set(streams.map(\.index)))
        var unseen = Set(streams.map(\.index))
        let packet = Packet()
        let tolerance = MediaTime(seconds: Self.timingTolerance) ?? .zero
        while !unseen.isEmpty {
            do { guard try demuxer.read(into: packet) else { break } } catch { break }
            guard unseen.remove(packet.streamIndex) != nil, let s = streams.first(where: { $0.index == packet.streamIndex }),
                  let ts = packet.pts ?? packet.dts else { continue }
            let first = MediaTime(ticks: ts, timeBase: s.timeBase) - origin
            if let stated = result[s.index], first > stated + tolerance { result[s.index] = first }
        }
        return result
    }
}

extension MediaFile {
    /// Whether the muxer `muxerName` (FFmpeg's name) takes `stream` of the file at `path` copied as it is, at its
    /// header too.
    static func headerAccepts(_ path: String, _ stream: StreamInfo, muxerName: String) -> Bool {
        guard let demuxer = try? Demuxer(url: path) else { return false }
        return demuxer.headerAccepts(stream: stream.index, format: muxerName)
    }
}

/// FFmpeg's warning lines while each file was opened and probed (a broken stream's "non-existing PPS"
/// and the like), so that a job says so in one line a file. Files are probed one after another while a job
/// is planned; jobs of a batch running side by side may count each other's lines.
enum ProbeLog {
    private static let counts = Mutex<[String: Int]>([:])
    /// What planning read of a file that its header says otherwise (its frames' rate), as warnings naming the file.
    static let notes = FileNotes()

    static func note(_ path: String, _ text: String) { notes.add(path, "\(path): \(text)") }

    static func record(_ path: String, _ lines: Int) {
        guard lines > 0 else { return }
        counts.withLock { $0[path, default: 0] += lines }
    }

    /// The files with lines since the last call, and how many, in path order.
    static func take() -> [(path: String, lines: Int)] {
        counts.withLock { c in
            defer { c = [:] }
            return c.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }
}

/// Warning lines by file, each said once however often it is recorded (a track read again for a measurement, a file
/// opened again): process-wide, as ProbeLog and DamageLog, a job forgetting and taking its own files'.
final class FileNotes: Sendable {
    private let entries = Mutex<[String: [String]]>([:])

    func add(_ path: String, _ line: String) {
        entries.withLock { e in if !(e[path] ?? []).contains(line) { e[path, default: []].append(line) } }
    }

    /// Forgets what was recorded of `paths` (a job's files, once it is planned).
    func forget(_ paths: [String]) { entries.withLock { e in for p in paths { e[p] = nil } } }

    /// What was recorded of `paths` since they were forgotten, in their order; forgotten again.
    func take(_ paths: [String]) -> [String] { entries.withLock { e in paths.flatMap { e.removeValue(forKey: $0) ?? [] } } }

    /// Everything recorded, by path; forgotten.
    func takeAll() -> [String] {
        entries.withLock { e in
            defer { e = [:] }
            return e.sorted { $0.key < $1.key }.flatMap(\.value)
        }
    }
}

/// The damaged packets the readers step over, by file: how many, and where in the file the first was met (its own
/// time, that of the packet or frame read around it), for a warning that names the file and the time. Process-wide by
/// path, as ProbeLog: a job forgets its inputs' entries once planned and takes them when done.
enum DamageLog {
    private static let entries = Mutex<[String: (count: Int, first: Double?)]>([:])

    static func record(_ path: String, _ count: Int, at time: MediaTime?) {
        guard count > 0 else { return }
        entries.withLock { e in
            let old = e[path] ?? (0, nil)
            e[path] = (old.count + count, old.first ?? time.map(\.seconds))
        }
    }

    /// Forgets what was recorded of `paths` (a job's inputs, once it is planned).
    static func forget(_ paths: [String]) { entries.withLock { e in for p in paths { e[p] = nil } } }

    /// What was recorded of `paths` since they were forgotten, as warnings, in their order; forgotten again.
    static func take(_ paths: [String]) -> [String] {
        entries.withLock { e in
            var lines: [String] = []
            for p in paths {
                guard let (count, first) = e.removeValue(forKey: p) else { continue }
                let at = first.map { String(format: " (the first near %.2f s of it)", max(0, $0)) } ?? ""
                lines.append("\(p): \(count) damaged \(count == 1 ? "packet was" : "packets were") skipped\(at)")
            }
            return lines
        }
    }
}

extension MediaFile {
    /// The main video's HDR light metadata (mastering display, content light level) as its first picture carries it
    /// (HEVC's SEI), else as the container states it for the stream; nil without either or when it cannot be read.
    func firstPictureLight() -> LightMetadata? {
        guard let stream = mainVideo else { return nil }
        do {
            let demuxer = try Demuxer(url: path)
            demuxer.keepOnly([stream.index])
            let frames = try Decoder(demuxer: demuxer, streamIndex: stream.index, threads: 1).frames(from: demuxer)
            return try frames.next()?.lightMetadata ?? stream.light
        } catch {
            return stream.light
        }
    }
}
