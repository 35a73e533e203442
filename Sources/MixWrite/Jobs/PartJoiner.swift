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
        for k in 1...n {
            let selection = PartSelection(index: k, count: n)
            let movie = PartFolder.movie(selection, of: output)
            guard let record = found.first(where: { $0.record.part == k })?.record else {
                let why = FileManager.default.fileExists(atPath: movie) ? "is not finished (it has no record yet)" : "is missing"
                throw .input(file: movie, "\(why): render it with --parts \(n) --part \(k)")
            }
            let size = PartRecord.size(of: movie)
            guard size == record.bytes else {
                throw .input(file: movie, size < 0 ? "is missing (its record is there): render it again with --parts \(n) --part \(k)"
                             : "is \(size) bytes, its record says \(record.bytes): damaged or replaced; render it again")
            }
            records.append(record)
        }
        // Contiguous frames, as the parts were planned.
        for (a, b) in zip(records, records.dropFirst()) where a.firstFrame + a.frames != b.firstFrame {
            throw .input(file: PartFolder.movie(PartSelection(index: b.part, count: n), of: output),
                         "starts at frame \(b.firstFrame), not \(a.firstFrame + a.frames) where part \(a.part) ends")
        }
        self.records = records
    }

    /// Copies every part's packets into OUT, then removes the parts unless `keepParts`.
    func join(overwrite: Bool, keepParts: Bool) throws(MixWriteError) -> Report {
        let started = ContinuousClock.now
        let first = records[0]
        let final = try OutputFile(path: output, overwrite: overwrite || first.overwrite, inputs: first.inputs.map(\.path))
        let muxer: Muxer
        do { muxer = try Muxer(path: final.temporaryPath, format: final.container.muxerName) } catch {
            throw .output(file: output, error.isNoSpace ? "no space left on device" : "cannot be created (\(error.message.lowercased()))")
        }
        do {
            try copyParts(into: muxer, final: final)
        } catch {
            muxer.abandon()
            final.discard()
            throw error
        }
        do { try muxer.finish() } catch {
            final.discard()
            throw .processing(error, file: output)
        }
        try final.commit()
        if !keepParts {
            for r in records {
                let s = PartSelection(index: r.part, count: r.parts)
                unlink(PartFolder.movie(s, of: output))
                unlink(PartFolder.record(s, of: output))
            }
            rmdir(PartFolder.path(of: output))
        }
        return report(started: started)
    }

    /// Streams as part 1 has them (their parameter sets must be every part's), chapters, then each part's packets
    /// moved onto the whole timeline: its pictures by its first frame's time, its sound by its origin's samples.
    private func copyParts(into muxer: Muxer, final: OutputFile) throws(MixWriteError) {
        let first = records[0]
        let rate = Rational(parsing: first.frameRate) ?? Rational(30, 1)
        var streams: [(parameters: CodecParameters, index: Int)] = []
        var interleaver: PacketInterleaver?
        var audioSeen = 0
        for record in records {
            let selection = PartSelection(index: record.part, count: record.parts)
            let path = PartFolder.movie(selection, of: output)
            let demuxer: Demuxer
            do { demuxer = try Demuxer(url: path) } catch { throw .input(file: path, MediaFile.explain(error)) }
            guard demuxer.streams.count == record.packets.count else {
                throw .input(file: path, "has \(demuxer.streams.count) streams, its record says \(record.packets.count): damaged")
            }
            var parameters: [CodecParameters] = []
            for s in demuxer.streams {
                do { parameters.append(try demuxer.codecParameters(s.index, ours: true)) } catch { throw .input(file: path, MediaFile.explain(error)) }
            }
            if streams.isEmpty {
                do {
                    for (i, p) in parameters.enumerated() {
                        let audioIndex = demuxer.streams[i].kind == .audio ? audioSeen : nil
                        if audioIndex != nil { audioSeen += 1 }
                        let stem = audioIndex.flatMap { $0 >= 1 && $0 - 1 < first.stems.count ? first.stems[$0 - 1] : nil }
                        let isDefault: Bool? = first.stems.isEmpty ? nil : stem == nil
                        streams.append((p, try muxer.addStream(p, title: stem, isDefault: isDefault)))
                    }
                    for (i, c) in first.chapters.enumerated() {
                        try muxer.addChapter(id: i + 1, start: MediaTime(seconds: String(c.start)) ?? .zero,
                                             end: MediaTime(seconds: String(c.end)) ?? .zero, title: c.title)
                    }
                    try muxer.writeHeader(fastStart: final.container.fastStart)
                } catch { throw .processing(error, file: output) }
            } else {
                for (i, p) in parameters.enumerated() where p.codecName != streams[i].parameters.codecName || p.extradata != streams[i].parameters.extradata {
                    throw .input(file: path, "stream #\(i) was encoded with other parameters than part 1's (\(p.codecName)); render it again")
                }
            }
            if interleaver == nil { interleaver = PacketInterleaver(muxer: muxer, streams: streams.map(\.index)) }
            try copy(demuxer, of: record, from: path, rate: rate, into: interleaver!)
        }
        do { try interleaver?.finish() } catch { throw .processing(error, file: output) }
    }

    /// One part's packets, each stream's timestamps moved by the part's place, counted against its record. The
    /// pictures move by the part's first frame's time; the sound so that its first packet lands on the packet of
    /// the whole stream its record names. (Not by the part's own start time: a MOV states a late start as an edit
    /// in milliseconds, 480 samples where the part wrote 512.)
    private func copy(_ demuxer: Demuxer, of record: PartRecord, from path: String, rate: Rational,
                      into interleaver: PacketInterleaver) throws(MixWriteError) {
        let start = MediaTime(frames: Int64(record.firstFrame), rate: rate)
        var shifts: [Int64?] = demuxer.streams.map { s in s.kind == .audio ? (record.audioFirst == nil ? 0 : nil) : start.ticks(in: s.timeBase) }
        var counts = Array(repeating: 0, count: demuxer.streams.count)
        let packet = Packet()
        while true {
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch { throw .input(file: path, "cannot be read to its end: damaged; render it again") }
            guard more else { break }
            let i = packet.streamIndex
            guard i < counts.count else { continue }
            if shifts[i] == nil, let first = record.audioFirst, let sampleRate = record.sampleRate, let pts = packet.pts {
                shifts[i] = MediaTime(value: first, timescale: Int32(sampleRate)).ticks(in: demuxer.streams[i].timeBase) - pts
            }
            let shift = shifts[i] ?? 0
            counts[i] += 1
            packet.pts = packet.pts.map { $0 + shift }
            packet.dts = packet.dts.map { $0 + shift }
            // The joined track's ends are the record's (the priming's pts, the last packet's length), not where a part's
            // own edit list trimmed it: what FFmpeg 9.0's demuxer says of that is dropped.
            if demuxer.streams[i].kind == .audio { packet.removeSkipSamples() }
            if counts[i] == record.packets[i], demuxer.streams[i].kind == .audio, let end = record.audioEnd,
               let sampleRate = record.sampleRate, let pts = packet.pts {
                packet.duration = MediaTime(value: end, timescale: Int32(sampleRate)).ticks(in: demuxer.streams[i].timeBase) - pts
            }
            do { try interleaver.add(packet, stream: i, timeBase: demuxer.streams[i].timeBase) } catch {
                throw .processing(error, file: output)
            }
        }
        guard counts == record.packets else {
            throw .input(file: path, "holds \(counts.map(String.init).joined(separator: "+")) packets, its record says "
                         + "\(record.packets.map(String.init).joined(separator: "+")): damaged; render it again")
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

/// Writes packets in decode-time order across the streams, as `AssetWriter` does, through `av_write_frame`. (Left to
/// the muxer's own interleaving, Matroska's timestamps moved by 21 ms: it takes its shift from the first packet
/// handed to it, here the sound's priming, where a single render hands it the first picture first.)
final class PacketInterleaver {
    private let muxer: Muxer
    /// The output stream of each queue.
    private let streams: [Int]
    private var queues: [[(packet: Packet, time: MediaTime, timeBase: Rational)]]

    init(muxer: Muxer, streams: [Int]) {
        self.muxer = muxer
        self.streams = streams
        queues = Array(repeating: [], count: streams.count)
    }

    /// Queues a copy of `packet` (of queue `stream`, timed in `timeBase`; `packet` is left blank) and writes what can
    /// be written: while every stream has a packet waiting, the earliest.
    func add(_ packet: Packet, stream: Int, timeBase: Rational) throws(FFmpegError) {
        let time = MediaTime(ticks: packet.dts ?? packet.pts ?? 0, timeBase: timeBase)
        queues[stream].append((packet.take(), time, timeBase))
        try drain(all: false)
    }

    /// Writes whatever is still queued.
    func finish() throws(FFmpegError) { try drain(all: true) }

    private func drain(all: Bool) throws(FFmpegError) {
        while all || queues.allSatisfy({ !$0.isEmpty }) {
            guard let i = queues.indices.filter({ !queues[$0].isEmpty }).min(by: { queues[$0][0].time < queues[$1][0].time }) else { return }
            let next = queues[i].removeFirst()
            try muxer.write(next.packet, stream: streams[i], timeBase: next.timeBase)
        }
    }
}
