import Foundation
import FFmpegSupport

/// One long job on many machines (`--parts N --part K`, `mixwrite join`).
///
/// Part K of N renders the output's frames `(K-1)·F/N ..< K·F/N` (F the whole movie's frames) into `OUT.parts/`:
/// its movie `part-K-of-N.mov`, and beside it `part-K-of-N.json`, the record the join reads (written last, so a
/// record means a finished part). The picture is encoded as one machine's would be from that frame on: x264
/// starts with an IDR picture, its GOPs closed, its parameter sets the same in every part (`stitchable`). The sound
/// is the whole movie's mix, encoded on the same segment grid as one machine's render, each part keeping its own
/// packets of that one AAC stream (`PartShare`). The join copies the packets back onto the whole timeline.
protocol PartedJob: DescribedJob {
    var output: String { get }
    /// `run.parts` (`--parts N`: the job is rendered as N parts; nil: in one go) and `run.part` (`--part K`, 1-based:
    /// the one part this run renders).
    var run: RunSettings { get set }
}

extension PartedJob {
    /// `parts` and `part`, lifted onto the job.
    static var partOptions: [JobOption<Self>] { RunSettings.partOptions.map { $0.lifted(\.run) } }

    /// The checks of `--parts` and `--part`, before any file is opened.
    func validateParts() throws(MixWriteError) {
        let (parts, part) = (run.parts, run.part)
        guard parts != nil || part != nil else { return }
        guard let parts, PartSelection.counts.contains(parts) else {
            throw .usage("--parts must be between 1 and \(PartSelection.counts.upperBound)")
        }
        guard let part else { throw .usage("--parts \(parts) renders one part a run: add --part K (1 to \(parts)) or --part auto") }
        guard (1...parts).contains(part) else { throw .usage("--part \(part) is not between 1 and \(parts)") }
    }

    /// The part this run renders, if any.
    var selection: PartSelection? { run.parts.flatMap { n in run.part.map { PartSelection(index: $0, count: n) } } }

    /// The job as every part of it has it: its entry without the part, `-y` or the threads.
    var sharedEntry: String {
        var j = self
        (j.run.part, j.run.overwrite) = (nil, false)
        return j.jobEntry
    }
}

/// Part `index` of `count` (1-based).
struct PartSelection: Sendable, Equatable {
    var index: Int
    var count: Int

    /// How many parts a job may have: each is a task, a file and a line of a join.
    static let counts = RunSettings.partCounts

    /// Its output frames out of `total`: contiguous, equal to within one frame, together every frame once.
    func frames(of total: Int) throws(MixWriteError) -> Range<Int> {
        guard count <= total else { throw .usage("--parts \(count): the movie has only \(total) frames") }
        return (index - 1) * total / count ..< index * total / count
    }

    var name: String { "part-\(index)-of-\(count)" }
}

/// Where the parts of `output` are kept: `OUT.parts/`.
enum PartFolder {
    static func path(of output: String) -> String { output + ".parts" }
    static func movie(_ part: PartSelection, of output: String) -> String { path(of: output) + "/" + part.name + ".mov" }
    static func record(_ part: PartSelection, of output: String) -> String { path(of: output) + "/" + part.name + ".json" }
}

/// What a finished part tells the join: which job made it, which frames and packets it holds, and the whole
/// movie's chapters, stems and report. Written beside the part's movie, after it.
struct PartRecord: Codable, Sendable {
    /// An input as the part read it: a changed file makes parts that do not belong together.
    struct Input: Codable, Sendable, Equatable {
        var path: String
        var bytes: Int64
        var modified: Double
    }
    struct Chapter: Codable, Sendable {
        var title: String
        var start: Double
        var end: Double
    }
    /// The joined movie's path, as the job names it.
    var output: String
    /// The job's entry without the part (`PartedJob.sharedEntry`): the same in every part of one job.
    var job: String
    var inputs: [Input]
    var part: Int
    var parts: Int
    /// The part's first frame in the whole movie, its frames, the whole movie's, and the rate.
    var firstFrame: Int
    var frames: Int
    var totalFrames: Int
    var frameRate: String
    /// The part's sound: its first packet is the whole stream's packet at sample `audioFirst` (nil: from the
    /// stream's start, the encoder's priming).
    var sampleRate: Int?
    var audioFirst: Int64?
    /// Where its sound ends, in samples of the whole stream (a MOV's edit list states it only to the millisecond).
    var audioEnd: Int64?
    /// The part's movie: its size and its packets, a stream at a time.
    var bytes: Int64
    var packets: [Int]
    /// The part's movie's bytes digested (`digest(of:)`), which the join checks: a part damaged in place keeps its size.
    /// nil in a record an older mixwrite wrote.
    var digest: String?
    /// The whole movie's chapters and stem titles.
    var chapters: [Chapter]
    var stems: [String]
    /// Each stem's language (nil in a record an older mixwrite wrote).
    var stemLanguages: [String?]?
    /// The part's span of each of the movie's text subtitle tracks (its cues on the part's time, in microseconds),
    /// which the join encodes into one track each; nil in a record an older mixwrite wrote.
    var subtitles: [PartSubtitles]?
    /// The whole movie's tags (its title, start timecode, creation time …), which the join writes; a part's movie has none.
    var metadata: [String: String]?
    /// The job replaces an existing output (`-y`).
    var overwrite: Bool
    /// The part's own report (nil until it is written).
    var report: Report?

    /// The stamp of each input as it is now.
    static func inputs(_ paths: [String]) -> [Input] {
        paths.map { p in
            let a = try? FileManager.default.attributesOfItem(atPath: p)
            return Input(path: JobText.absolute(p), bytes: size(of: p),
                         modified: (a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        }
    }

    /// A file's size in bytes; -1 when there is none.
    static func size(of path: String) -> Int64 {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : -1
    }

    /// A digest of a file's bytes, in hex: 64-bit FNV-1a over its 8-byte words (and its last bytes one at a time), so
    /// that any one word changed changes it; nil when the file cannot be read.
    static func digest(of path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        while true {
            let read: Data?
            do { read = try file.read(upToCount: 1 << 20) } catch { return nil }
            // nil or empty: the end.
            guard let chunk = read, !chunk.isEmpty else { break }
            chunk.withUnsafeBytes { raw in
                var i = 0
                while i + 8 <= raw.count {
                    hash = (hash ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01B3
                    i += 8
                }
                while i < raw.count {
                    hash = (hash ^ UInt64(raw[i])) &* 0x100_0000_01B3
                    i += 1
                }
            }
        }
        return String(hash, radix: 16)
    }

    /// Whether `other` is a part of the same job.
    func sameJob(as other: PartRecord) -> Bool {
        job == other.job && inputs == other.inputs && parts == other.parts && output == other.output
    }
}

/// A part being rendered: where it goes and what its record will say.
/// A subtitle track's cues within one part, as its record keeps them for the join.
struct PartSubtitles: Codable, Sendable {
    struct Cue: Codable, Sendable {
        var start: Int64
        var end: Int64
        var events: [String]
    }
    var codec: String
    var header: String
    var language: String?
    var title: String?
    var source: String
    var cues: [Cue]

    static let timeBase = Rational(1, 1_000_000)

    init(_ t: SubtitleTrackPlan) {
        (codec, header, language, title, source) = (t.codec ?? t.sourceCodec, t.header, t.language, t.title, t.source)
        cues = t.cues.map { Cue(start: $0.start.ticks(in: Self.timeBase), end: $0.end.ticks(in: Self.timeBase), events: $0.events) }
    }

    /// The track's plan, its cues moved by `shift` (the part's place in the whole movie).
    func track(shiftedBy shift: MediaTime) -> SubtitleTrackPlan {
        var t = SubtitleTrackPlan(codec: codec, header: header, language: language, title: title, source: source, sourceCodec: codec)
        t.cues = cues.map { SubtitleCue(start: MediaTime(ticks: $0.start, timeBase: Self.timeBase) + shift,
                                        end: MediaTime(ticks: $0.end, timeBase: Self.timeBase) + shift, events: $0.events) }
        return t
    }
}

struct PartPlan: Sendable {
    var selection: PartSelection
    var record: PartRecord
    var recordPath: String
    /// Its share of the whole movie's AAC stream, which the audio stage encodes; nil without sound.
    var share: PartShare?
    /// The sample of the whole stream the part's sound is timed from.
    var audioOrigin: Int64? { share?.origin }
}

extension PartedJob {
    /// Plans part `selection` of a job whose output is `final` (already checked: a job that could not be joined is
    /// refused before any part renders): the folder made, an earlier record of the same part removed, the part's
    /// movie to write. Only H.264, HEVC and ProRes pictures with AAC sound are split.
    func partOutput(_ selection: PartSelection, final: OutputFile, video: VideoCodec, audio: AudioCodec?,
                    inputs: [String]) throws(MixWriteError) -> OutputFile {
        guard [.h264, .hevc, .prores].contains(video) else {
            throw .usage("--parts: \(video.rawValue) cannot be split and joined here (h264, hevc and prores can)")
        }
        if let audio, audio != .aac {
            throw .usage("--parts: \(audio.rawValue) sound cannot be split and joined here (aac can)")
        }
        _ = try OutputFile.makeFolders(for: PartFolder.movie(selection, of: final.path))
        unlink(PartFolder.record(selection, of: final.path))
        return try OutputFile(path: PartFolder.movie(selection, of: final.path), overwrite: true, inputs: inputs)
    }

    /// Part `selection` of a job whose whole picture is `video` and whole sound `audio`: its frames, its share of
    /// the one AAC stream a single render would write (`PartShare`; `audio`'s window is then the share's), and the
    /// record written beside its movie. A part shorter than an AAC packet (1024 samples) may hold none: refused.
    func cutToPart(_ selection: PartSelection, video: inout VideoPlan, audio: inout AudioMixPlan?,
                   chapters: [(title: String, start: MediaTime, end: MediaTime)]) throws(MixWriteError) -> PartPlan {
        let frames = try selection.frames(of: video.wholeFrameCount)
        video.cutToPart(frames)
        let share = try audio.map { (a: AudioMixPlan) throws(MixWriteError) -> PartShare in
            let end = frames.upperBound == video.wholeFrameCount ? nil : video.time(ofFrame: frames.upperBound)
            let share = PartShare(start: video.time(ofFrame: frames.lowerBound), end: end, sampleRate: a.sampleRate,
                                  totalSamples: a.totalSamples)
            guard !share.keep.isEmpty else {
                throw .usage("--parts \(selection.count): a part of \(frames.count) frames is too short to hold its share of the sound; use fewer parts")
            }
            return share
        }
        if let share { audio?.window = share.window }
        let record = PartRecord(
            output: JobText.absolute(output), job: sharedEntry, inputs: PartRecord.inputs(inputPaths), part: selection.index,
            parts: selection.count, firstFrame: frames.lowerBound, frames: frames.count, totalFrames: video.wholeFrameCount,
            frameRate: video.frameRate.description, sampleRate: audio?.sampleRate,
            audioFirst: share.flatMap { $0.keep.lowerBound == Int64.min ? nil : $0.keep.lowerBound }, audioEnd: nil,
            bytes: 0, packets: [], digest: nil, chapters: chapters.map { .init(title: $0.title, start: $0.start.seconds, end: $0.end.seconds) },
            stems: audio.map { $0.stems ? $0.sources.map(\.stemTitle) : [] } ?? [],
            stemLanguages: audio.map { $0.stems ? $0.sources.map(\.language) : [] }, subtitles: nil, overwrite: run.overwrite, report: nil)
        return PartPlan(selection: selection, record: record, recordPath: PartFolder.record(selection, of: output), share: share)
    }
}

extension PartPlan {
    /// Writes the record of the finished part (atomically, as every output).
    func commit(report: Report, finished: FinishedOutput) throws(MixWriteError) {
        var r = record
        (r.packets, r.report) = (finished.packets, report)
        // The mix is the first audio track (after the video); stems end where it does.
        if let origin = audioOrigin, let rate = r.sampleRate, finished.trackEnds.count > 1 {
            r.audioEnd = origin + finished.trackEnds[1].ticks(in: Rational(1, Int32(rate)))
        }
        let movie = PartFolder.movie(selection, of: record.output)
        (r.bytes, r.digest) = (PartRecord.size(of: movie), PartRecord.digest(of: movie))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(r) } catch { throw .processing(file: recordPath, "cannot be written: \(error)") }
        let file = try OutputFile(path: recordPath, overwrite: true, inputs: [], kind: .record)
        try file.write(Array(data))
    }
}
