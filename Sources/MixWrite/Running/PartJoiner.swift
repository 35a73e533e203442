import Foundation
import FFmpegSupport

/// `mixwrite join OUT`: the parts in `OUT.parts/` checked, then their packets copied into OUT on the whole movie's
/// timeline, never decoded. Written as every output is (a temporary file renamed onto OUT when complete), then the
/// parts removed unless kept. A missing, unfinished, damaged or foreign part is an input error naming it, and
/// nothing is written.
struct PartJoiner {
    let output: String
    /// The parts, in order, each with its record.
    let records: [PartRecord]

    /// Reads every record in `OUT.parts/` and checks that they make one whole: parts 1 … N of one job (the same
    /// entry, inputs and N), each movie there and as long as its record says. With `job`, the parts must be that
    /// job's (`batch --join`); without, the job most parts name is the one.
    init(output: String, job: String? = nil) throws(MixWriteError) {
        self.output = output
        let folder = PartFolder.path(of: output)
        var st = stat()
        guard stat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw .input(file: folder, "does not exist: no part of \(output) has been rendered (--parts N --part K)")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        var found: [(path: String, record: PartRecord)] = []
        for name in names where name.hasPrefix("part-") && name.hasSuffix(".json") {
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path),
                  let record = try? JSONDecoder().decode(PartRecord.self, from: data), record.report != nil else {
                throw .input(file: path, "is not a part's record (damaged, or not written by mixwrite)")
            }
            found.append((path, record))
        }
        guard !found.isEmpty else {
            throw .input(file: folder, "holds no finished part (a part's record is written when its movie is complete)")
        }
        // The job: the one asked for, or the one most parts belong to (the first found on a tie).
        let reference = job.flatMap { j in found.first { $0.record.job == j } }
            ?? found.max { a, b in
                found.filter { $0.record.sameJob(as: a.record) }.count < found.filter { $0.record.sameJob(as: b.record) }.count
            }!
        if let job, reference.record.job != job {
            throw .input(file: reference.path, "belongs to another job than \(output)'s in the job file (other settings or inputs)")
        }
        if let foreign = found.first(where: { !$0.record.sameJob(as: reference.record) }) {
            let r = foreign.record, ref = reference.record
            let why = r.parts != ref.parts ? "one of \(r.parts) parts, not \(ref.parts)"
                : r.inputs != ref.inputs ? "made from other inputs (or from inputs changed since)" : "made with other settings"
            throw .input(file: PartFolder.movie(PartSelection(index: r.part, count: r.parts), of: output),
                         "belongs to another job than the other parts: \(why); remove it or render it again")
        }
        let n = reference.record.parts
        var records: [PartRecord] = []
        for k in 1...n { records.append(try Self.part(k, of: n, output: output, found: found.map(\.record))) }
        // Contiguous frames, as the parts were planned.
        for (a, b) in zip(records, records.dropFirst()) where a.firstFrame + a.frames != b.firstFrame {
            throw .input(file: PartFolder.movie(PartSelection(index: b.part, count: n), of: output),
                         "starts at frame \(b.firstFrame), not \(a.firstFrame + a.frames) where part \(a.part) ends")
        }
        self.records = records
    }

    /// Part `k` of `n`'s record among those `found`, its movie there, as long as the record says and with the bytes
    /// its part wrote (a part damaged in place keeps its size), else named.
    private static func part(_ k: Int, of n: Int, output: String, found: [PartRecord]) throws(MixWriteError) -> PartRecord {
        let movie = PartFolder.movie(PartSelection(index: k, count: n), of: output)
        guard let record = found.first(where: { $0.part == k }) else {
            let why = FileManager.default.fileExists(atPath: movie) ? "is not finished (it has no record yet)" : "is missing"
            throw .input(file: movie, "\(why): render it with --parts \(n) --part \(k)")
        }
        let size = PartRecord.size(of: movie)
        guard size == record.bytes else {
            throw .input(file: movie, size < 0 ? "is missing (its record is there): render it again with --parts \(n) --part \(k)"
                         : "is \(size) bytes, its record says \(record.bytes): damaged or replaced; render it again")
        }
        if let digest = record.digest, PartRecord.digest(of: movie) != digest {
            throw .input(file: movie, "is not the file its part wrote (its bytes changed since: damaged or replaced); "
                         + "render it again with --parts \(n) --part \(k)")
        }
        return record
    }

    /// Copies every part's packets into OUT, then removes the parts unless `keepParts`.
    func join(overwrite: Bool, keepParts: Bool) async throws(MixWriteError) -> Report {
        let started = ContinuousClock.now
        let first = records[0]
        let final = try OutputFile(path: output, overwrite: overwrite || first.overwrite, inputs: first.inputs.map(\.path))
        var part1 = try OpenPart(first, of: output)
        // The streams as part 1 has them (their parameter sets must be every part's), its stems' titles and the
        // chapters, written by the writer every render writes through (queueing without a limit: one task appends).
        let chapters = first.chapters.map { c in (title: c.title, start: MediaTime(seconds: String(c.start)) ?? .zero,
                                                  end: MediaTime(seconds: String(c.end)) ?? .zero) }
        let subtitles = subtitleTracks()
        let writer = try AssetWriter(output: final, tracks: part1.kinds + subtitles.map { _ in .subtitle }, chapters: chapters,
                                     queueLimit: .max,
                                     stems: first.stems.enumerated().map { ($1, first.stemLanguages?[$0] ?? nil) }, subtitles: subtitles.map { ($0.language, $0.title) },
                                     metadata: first.metadata ?? [:],
                                     frameRate: Rational(parsing: first.frameRate))
        do {
            try await Self.start(writer, part1.parameters, subtitles: subtitles)
            let timeBases = part1.parameters.map(\.timeBase)
            try await part1.copy(into: writer.inputs, timeBases: timeBases)
            // One part open at a time, as it is copied (a join of a hundred parts holds one demuxer, not a hundred).
            for record in records.dropFirst() {
                var part = try OpenPart(record, of: output)
                try part.check(against: part1)
                try await part.copy(into: writer.inputs, timeBases: timeBases)
            }
            for input in writer.inputs.prefix(part1.kinds.count) { try await input.finish() }
            _ = try await writer.finish()
        } catch {
            await writer.abandon(error)
            throw error as? MixWriteError ?? .processing(error, file: output)
        }
        if !keepParts {
            for r in records {
                let s = PartSelection(index: r.part, count: r.parts)
                unlink(PartFolder.movie(s, of: output))
                unlink(PartFolder.record(s, of: output))
            }
            rmdir(PartFolder.path(of: output))
        }
        var report = report(started: started)
        report.subtitles = subtitles.isEmpty ? nil : subtitles.map(Report.Subtitle.init)
        report.carried = Report.carried(subtitles: report.subtitles, chapters: records[0].chapters.count, metadata: records[0].metadata ?? [:])
        return report
    }

    /// Starts every track at once (the header is written when the last one registers); the subtitle tracks are encoded
    /// from the parts' records whole, beside.
    private static func start(_ writer: AssetWriter, _ parameters: [CodecParameters], subtitles: [SubtitleTrackPlan]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (input, p) in zip(writer.inputs, parameters) { group.addTask { try await input.start(p) } }
            for (input, track) in zip(writer.inputs.dropFirst(parameters.count), subtitles) {
                group.addTask { _ = try await SubtitleStage(track: track).run(into: input) }
            }
            try await group.waitForAll()
        }
    }

    /// Each subtitle track of the whole movie from its parts' records: every part's cues moved to its place, a cue
    /// a part's edge cut in two made one again.
    private func subtitleTracks() -> [SubtitleTrackPlan] {
        guard let first = records[0].subtitles else { return [] }
        return first.indices.map { t in
            var track = first[t].track(shiftedBy: .zero)
            track.cues = []
            for r in records {
                guard let own = r.subtitles, t < own.count else { continue }
                let rate = Rational(parsing: r.frameRate) ?? Rational(30, 1)
                for cue in own[t].track(shiftedBy: MediaTime(frames: Int64(r.firstFrame), rate: rate)).cues {
                    if let last = track.cues.last, last.end == cue.start, last.events == cue.events {
                        track.cues[track.cues.count - 1].end = cue.end
                    } else {
                        track.cues.append(cue)
                    }
                }
            }
            return track
        }
    }

    /// The joined movie's report: part 1's, with the whole movie's length, frames, size and the parts' figures summed;
    /// the published loudness read back from the joined movie.
    private func report(started: ContinuousClock.Instant) -> Report {
        var report = records[0].report!
        if let audio = report.audio, report.audio?.loudness != nil {
            report.audio?.loudness?.output = try? LoudnessMeter.measure(file: output, sampleRate: audio.sampleRate, channels: audio.channels)
        }
        let parts = records.compactMap(\.report)
        report.output = output
        report.bytes = PartRecord.size(of: output)
        report.duration = parts.reduce(0) { $0 + $1.duration }
        report.video?.frames = records.reduce(0) { $0 + $1.frames }
        report.damagedPackets = parts.reduce(0) { $0 + $1.damagedPackets }
        report.warnings = parts.flatMap(\.warnings).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        report.libraryWarnings = parts.reduce(0) { $0 + $1.libraryWarnings }
        report.stageSeconds = ["parts": parts.reduce(0) { $0 + $1.seconds }]
        report.seconds = (ContinuousClock.now - started).seconds
        report.peakMemoryMB = max(parts.map(\.peakMemoryMB).max() ?? 0, MixWrite.peakMemoryMB())
        return report
    }
}

/// One part's movie, open: its streams' kinds and parameters, its packets copied onto the whole movie's timeline.
private struct OpenPart {
    let record: PartRecord
    let path: String
    let demuxer: Demuxer
    let parameters: [CodecParameters]

    init(_ record: PartRecord, of output: String) throws(MixWriteError) {
        self.record = record
        path = PartFolder.movie(PartSelection(index: record.part, count: record.parts), of: output)
        do { demuxer = try Demuxer(url: path) } catch { throw .input(file: path, MediaFile.explain(error)) }
        guard demuxer.streams.count == record.packets.count else {
            throw .input(file: path, "has \(demuxer.streams.count) streams, its record says \(record.packets.count): damaged")
        }
        var parameters: [CodecParameters] = []
        for s in demuxer.streams {
            do { parameters.append(try demuxer.codecParameters(s.index, ours: true)) } catch { throw .input(file: path, MediaFile.explain(error)) }
        }
        self.parameters = parameters
    }

    var kinds: [AssetWriter.TrackKind] { demuxer.streams.map { $0.kind == .audio ? .audio : .video } }

    /// The same streams, encoded with the same parameters, as `first`'s.
    func check(against first: OpenPart) throws(MixWriteError) {
        for (i, p) in parameters.enumerated() where i >= first.parameters.count || p.codecName != first.parameters[i].codecName
            || p.extradata != first.parameters[i].extradata {
            throw .input(file: path, "stream #\(i) was encoded with other parameters than part 1's (\(p.codecName)); render it again")
        }
    }

    /// Its packets, each stream's timestamps moved by the part's place (then into part 1's time base, `timeBases`),
    /// counted against its record. The pictures move by the part's first frame's time; the sound so that its first
    /// packet lands on the packet of the whole stream its record names. (Not by the part's own start time: a MOV
    /// states a late start as an edit in milliseconds, 480 samples where the part wrote 512.)
    mutating func copy(into inputs: [AssetWriterInput], timeBases: [Rational]) async throws {
        let rate = Rational(parsing: record.frameRate) ?? Rational(30, 1)
        let start = MediaTime(frames: Int64(record.firstFrame), rate: rate)
        let streams = demuxer.streams
        var shifts: [Int64?] = streams.map { s in s.kind == .audio ? (record.audioFirst == nil ? 0 : nil) : start.ticks(in: s.timeBase) }
        var counts = Array(repeating: 0, count: streams.count)
        let packet = Packet()
        while true {
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch { throw MixWriteError.input(file: path, "cannot be read to its end: damaged; render it again") }
            guard more else { break }
            let i = packet.streamIndex
            guard i < counts.count else { continue }
            if shifts[i] == nil, let first = record.audioFirst, let sampleRate = record.sampleRate, let pts = packet.pts {
                shifts[i] = MediaTime(value: first, timescale: Int32(sampleRate)).ticks(in: streams[i].timeBase) - pts
            }
            let shift = shifts[i] ?? 0
            counts[i] += 1
            var encoded = packet.encoded
            encoded.pts = encoded.pts.map { $0 + shift }
            encoded.dts = encoded.dts.map { $0 + shift }
            // The joined track's ends are the record's (the priming's pts, the last packet's length), not where a part's
            // own edit list trimmed it: FFmpeg 9.0's skip samples are not carried.
            if counts[i] == record.packets[i], streams[i].kind == .audio, let end = record.audioEnd,
               let sampleRate = record.sampleRate, let pts = encoded.pts {
                encoded.duration = MediaTime(value: end, timescale: Int32(sampleRate)).ticks(in: streams[i].timeBase) - pts
            }
            try await inputs[i].append(encoded.rescaled(from: streams[i].timeBase, to: timeBases[i]))
        }
        guard counts == record.packets else {
            throw MixWriteError.input(file: path, "holds \(counts.map(String.init).joined(separator: "+")) packets, its record says "
                                      + "\(record.packets.map(String.init).joined(separator: "+")): damaged; render it again")
        }
    }
}

extension EncodedPacket {
    /// Its times in another time base (itself when the same: a part's streams have part 1's).
    func rescaled(from a: Rational, to b: Rational) -> EncodedPacket {
        guard a != b else { return self }
        var p = self
        let move = { (t: Int64) in MediaTime(ticks: t, timeBase: a).ticks(in: b) }
        (p.pts, p.dts, p.duration) = (pts.map(move), dts.map(move), move(duration))
        return p
    }
}
