import FFmpegSupport

/// The one owner of the output muxer. Each stage gets an `AssetWriterInput` for its track: it starts the
/// track with its stream's parameters, appends encoded packets and marks the track finished; the writer
/// interleaves them by decode time. `append` suspends while the appending track is far ahead of a track
/// that has nothing queued, so memory stays bounded (as `AVAssetWriterInput.isReadyForMoreMediaData`).
actor AssetWriter {
    enum TrackKind: Sendable { case video, audio, subtitle }

    private struct Track {
        var kind: TrackKind
        /// A stem's name (`fx:1`), and whether a player plays the track by default; nil: the muxer's choice.
        var title: String?
        var isDefault: Bool?
        /// ISO 639-2, as the container tags it (a subtitle track's).
        var language: String?
        var encoderTimeBase = Rational(1, 1)
        var parameters: CodecParameters?
        var streamIndex: Int?
        var queue: [EncodedPacket] = []
        var head = 0
        var finished = false
        var lastEnd: MediaTime = .zero
        var written = 0
        var waiters: [CheckedContinuation<Void, any Error>] = []

        var pending: Int { queue.count - head }
    }

    private let muxer: Muxer
    private let output: OutputFile
    /// The right to write `output`, held from the first byte until the file is in place or given up.
    private let claim: OutputClaim
    private var tracks: [Track]
    private var headerWritten = false
    private var failure: MixWriteError?
    private var headerWaiters: [CheckedContinuation<Void, any Error>] = []
    private let chapters: [(title: String, start: MediaTime, end: MediaTime)]
    /// The video's rate, which a timecode counts in.
    private let frameRate: Rational?
    /// How many packets a track may queue ahead of a lagging track before `append` waits.
    private let queueLimit: Int
    private let progress: ProgressReporter?
    private var bytesWritten: Int64 = 0

    /// Packets a track may queue ahead of a lagging track by default: a few seconds of either kind, a few MB.
    static let defaultQueueLimit = 256

    private nonisolated let kinds: [TrackKind]

    /// One input a track, in the order of `tracks` given at `init` (the streams' order in the file).
    nonisolated var inputs: [AssetWriterInput] {
        kinds.indices.map { AssetWriterInput(writer: self, slot: $0, kind: kinds[$0]) }
    }

    /// The input of the first track of `kind`.
    nonisolated func input(_ kind: TrackKind) -> AssetWriterInput? { inputs.first { $0.kind == kind } }

    /// Opens the temporary output file, with one input for each of `tracks` (in the file, in this order).
    /// `stems`: titles and languages of audio tracks after the first (the mix, then titled so, in their language when
    /// they share one), which is then the default and they are not.
    /// `subtitles`: each subtitle track's language and title, in their order.
    init(output: OutputFile, tracks: [TrackKind], chapters: [(title: String, start: MediaTime, end: MediaTime)] = [],
                queueLimit: Int = AssetWriter.defaultQueueLimit, progress: ProgressReporter? = nil,
                stems: [(title: String, language: String?)] = [], subtitles: [(language: String?, title: String?)] = [],
                metadata: [String: String] = [:], frameRate: Rational? = nil) throws(MixWriteError) {
        claim = try OutputClaim.take(output.path)
        do {
            muxer = try Muxer(path: output.temporaryPath, format: output.container.muxerName)
        } catch {
            claim.release()
            throw .output(file: output.path, error.isNoSpace ? "no space left on device" : "cannot be created (\(error.message.lowercased()))")
        }
        self.output = output
        muxer.setMetadata(metadata)
        self.frameRate = frameRate
        self.tracks = tracks.map { Track(kind: $0) }
        if !stems.isEmpty, let mix = tracks.firstIndex(of: .audio) {
            self.tracks[mix].isDefault = true
            if let video = tracks.firstIndex(of: .video) { self.tracks[video].isDefault = true }
            for (n, stem) in stems.enumerated() where mix + 1 + n < tracks.count {
                (self.tracks[mix + 1 + n].title, self.tracks[mix + 1 + n].language, self.tracks[mix + 1 + n].isDefault) = (stem.title, stem.language, false)
            }
            let languages = Set(stems.map(\.language))
            (self.tracks[mix].title, self.tracks[mix].language) = ("Mix", languages.count == 1 ? languages.first! : nil)
        }
        for (n, i) in tracks.indices.filter({ tracks[$0] == .subtitle }).enumerated() where n < subtitles.count {
            (self.tracks[i].language, self.tracks[i].title) = subtitles[n]
        }
        kinds = tracks
        self.chapters = chapters
        self.queueLimit = queueLimit
        self.progress = progress
    }

    /// Whether an encoder for this output must put its headers in extradata.
    nonisolated var wantsGlobalHeader: Bool { true }

    /// Registers the encoded stream of `slot`; the file header is written once every slot has registered.
    /// Returns when the header is written.
    func start(_ slot: Int, parameters: CodecParameters) async throws {
        try throwIfFailed()
        tracks[slot].parameters = parameters
        tracks[slot].encoderTimeBase = parameters.timeBase
        if tracks.allSatisfy({ $0.parameters != nil }) {
            do {
                // Streams in slot order (video first), whichever stage registered first.
                for i in tracks.indices {
                    tracks[i].streamIndex = try muxer.addStream(tracks[i].parameters!, language: tracks[i].language, title: tracks[i].title,
                                                                    isDefault: tracks[i].isDefault, frameRate: frameRate)
                }
                for (i, c) in chapters.enumerated() {
                    try muxer.addChapter(id: i + 1, start: c.start, end: c.end, title: c.title)
                }
                try muxer.writeHeader(fastStart: output.container.fastStart)
            } catch {
                throw fail(.processing(error, file: output.path))
            }
            headerWritten = true
            let waiting = headerWaiters
            headerWaiters = []
            for w in waiting { w.resume() }
            try drain()
        } else {
            try await wait(for: .header)
        }
    }

    /// Queues one encoded packet of `slot` (timestamps in the encoder's time base) and writes what can be
    /// interleaved. Suspends while this track is `queueLimit` packets ahead of a lagging one.
    func append(_ packet: EncodedPacket, to slot: Int) async throws {
        try throwIfFailed()
        tracks[slot].queue.append(packet)
        try drain()
        while tracks[slot].pending > queueLimit {
            try await wait(for: .space(slot: slot))
        }
    }

    /// Marks `slot` finished: no more packets come from it.
    func finish(_ slot: Int) throws {
        try throwIfFailed()
        precondition(!tracks[slot].finished, "track \(slot) finished twice")
        tracks[slot].finished = true
        try drain()
    }

    /// Writes what is left, the trailer, and puts the file in place. Call after every stage has finished.
    func finish() throws -> FinishedOutput {
        try throwIfFailed()
        precondition(tracks.allSatisfy(\.finished), "finish() before every track finished")
        try drain()
        // A stream without a single packet makes a file players choke on: never write one.
        if let empty = tracks.first(where: { $0.written == 0 }) {
            throw fail(.processing(file: output.path, "the \(empty.kind) stream came out empty; nothing was written"))
        }
        do {
            try muxer.finish()
        } catch {
            output.discard()
            throw fail(.processing(error, file: output.path))
        }
        // What was written must read back: a muxer can write a header FFmpeg's own demuxer then refuses (a copied VP9
        // stream whose bitstream gave it nothing for its configuration box, in .mp4).
        do { _ = try Demuxer(url: output.temporaryPath) } catch {
            throw fail(.processing(file: output.path, "the file written cannot be read back (\(error.message.lowercased())); nothing was "
                                   + "written: a copied stream the container cannot describe (try .mkv)"))
        }
        do throws(MixWriteError) { try output.commit() } catch { throw fail(error) }
        claim.release()
        return FinishedOutput(bytes: bytesWritten, trackEnds: tracks.map(\.lastEnd), packets: tracks.map(\.written))
    }

    /// Stops everything after a failure elsewhere: wakes waiting stages, closes and removes the temporary file.
    func abandon(_ error: any Error) {
        _ = fail(.processing(error, file: nil))
    }

    // MARK: - Internals

    private func throwIfFailed() throws {
        if let failure { throw failure }
        try Task.checkCancellation()
    }

    /// Records the first failure, wakes every waiter with it and removes the temporary file.
    private func fail(_ error: MixWriteError) -> MixWriteError {
        if failure == nil {
            failure = error
            muxer.abandon()
            output.discard()
            claim.release()
        }
        let all = headerWaiters + tracks.flatMap(\.waiters)
        headerWaiters = []
        for i in tracks.indices { tracks[i].waiters = [] }
        for w in all { w.resume(throwing: failure!) }
        return failure!
    }

    private func cancelWaiters() {
        let all = headerWaiters + tracks.flatMap(\.waiters)
        headerWaiters = []
        for i in tracks.indices { tracks[i].waiters = [] }
        for w in all { w.resume(throwing: CancellationError()) }
    }

    /// What a suspended stage waits for.
    private enum Wait { case header, space(slot: Int) }

    /// Suspends until resumed; cancellation of the waiting task wakes it with `CancellationError`.
    private func wait(for what: Wait) async throws {
        try await withTaskCancellationHandler {
            try await self.enqueue(what)
        } onCancel: {
            Task { await self.cancelWaiters() }
        }
    }

    /// Registers the continuation on the actor itself. (A continuation body reached through a closure
    /// handed to withTaskCancellationHandler ran off the actor and raced with `drain()`: ThreadSanitizer
    /// caught it, after rare crashes and a hang. Here the body is actor-isolated and the compiler checks it.)
    private func enqueue(_ what: Wait) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            if Task.isCancelled || failure != nil {
                c.resume(throwing: failure ?? CancellationError())
                return
            }
            switch what {
            case .header: headerWaiters.append(c)
            case .space(let slot): tracks[slot].waiters.append(c)
            }
        }
    }

    /// Writes queued packets in decode-time order while every unfinished track has one to compare.
    private func drain() throws {
        guard headerWritten else { return }
        while true {
            var best: Int? = nil
            var bestTime = MediaTime.zero
            var blocked = false
            for (i, t) in tracks.enumerated() {
                if t.pending == 0 {
                    if !t.finished { blocked = true; break }
                    continue
                }
                let p = t.queue[t.head]
                let time = MediaTime(ticks: p.dts ?? p.pts ?? 0, timeBase: t.encoderTimeBase)
                if best == nil || time < bestTime { best = i; bestTime = time }
            }
            guard !blocked, let i = best else { break }
            let packet = tracks[i].queue[tracks[i].head]
            tracks[i].head += 1
            // The written head of the queue is dropped in batches, not one packet at a time.
            if tracks[i].head > AssetWriter.defaultQueueLimit {
                tracks[i].queue.removeFirst(tracks[i].head)
                tracks[i].head = 0
            }
            try write(packet, track: i)
        }
        for i in tracks.indices where tracks[i].pending <= queueLimit && !tracks[i].waiters.isEmpty {
            let waiting = tracks[i].waiters
            tracks[i].waiters = []
            for w in waiting { w.resume() }
        }
    }

    private func write(_ encoded: EncodedPacket, track i: Int) throws {
        let index = tracks[i].streamIndex!
        let tb = tracks[i].encoderTimeBase
        let end = MediaTime(ticks: (encoded.pts ?? 0) + encoded.duration, timeBase: tb)
        if tracks[i].lastEnd < end { tracks[i].lastEnd = end }
        bytesWritten += Int64(encoded.data.count)
        tracks[i].written += 1
        do {
            try muxer.write(encoded, stream: index, timeBase: tb)
        } catch {
            throw fail(.processing(error, file: output.path))
        }
        if tracks[i].kind == .video || !tracks.contains(where: { $0.kind == .video }) {
            progress?.advance(to: tracks[i].lastEnd)
        }
    }
}

/// What the writer knows of the file it finished.
struct FinishedOutput: Sendable {
    var bytes: Int64
    /// Where each track's last packet ends, in slot order.
    var trackEnds: [MediaTime]
    /// Packets written, a track at a time in slot order.
    var packets: [Int]
}

/// A stage's handle on its track of the output (as `AVAssetWriterInput`): start it with the stream's
/// parameters, append its packets in order, mark it finished exactly once.
struct AssetWriterInput: Sendable {
    let writer: AssetWriter
    let slot: Int
    let kind: AssetWriter.TrackKind

    /// Registers the stream; returns once every track has registered and the file header is written.
    func start(_ parameters: CodecParameters) async throws {
        try await writer.start(slot, parameters: parameters)
    }

    /// Queues one encoded packet (timestamps in the stream's time base); suspends while this track is far
    /// ahead of a lagging one.
    func append(_ packet: EncodedPacket) async throws {
        try await writer.append(packet, to: slot)
    }

    /// Marks the track finished: no more packets come.
    func finish() async throws {
        try await writer.finish(slot)
    }
}
