import FFmpegSupport

/// A file's sound for syncing: its first audio track decoded, downmixed to mono and resampled to one rate, handed out a
/// block at a time, each block with the place of its first sample on the file's timeline (samples at `rate` from the
/// file's origin, by the frames' own timestamps). From the start, or from a time (a seek, then what comes before that
/// time is cut), so that a window of an hour-long file is read without the hour before it.
final class MonoSound {
    let path: String
    let rate: Int
    private let demuxer: Demuxer
    private let decoder: Decoder
    private let stream: StreamInfo
    private let origin: MediaTime
    private var graph: FilterGraph?
    private let packet = Packet()
    private let out = Frame()
    private var ended = false
    private var drained = false

    /// `file`'s audio track `stream` (a stream index; nil: its first audio track) at `rate`, read from `from` (its own
    /// time after its origin) on.
    init(_ file: MediaFile, stream index: Int? = nil, rate: Int, from: MediaTime? = nil) throws(MixWriteError) {
        guard let stream = file.audioStreams.first(where: { index == nil || $0.index == index }) else {
            throw .input(file: file.path, "has no sound (no audio stream)")
        }
        (path, self.rate, self.stream, origin) = (file.path, rate, stream, file.origin)
        do {
            demuxer = try Demuxer(url: file.path)
            demuxer.keepOnly([stream.index])
            decoder = try Decoder(demuxer: demuxer, streamIndex: stream.index, threads: 1)
            if let from, from > .zero { try demuxer.seek(to: from + file.origin, streamIndex: stream.index) }
        } catch {
            throw .input(file: file.path, "its sound cannot be read: \(error.message.lowercased())")
        }
    }

    /// The next block: where its first sample lies (samples at `rate` from the file's origin) and its samples; nil at
    /// the end.
    func next() throws(MixWriteError) -> (start: Int64, samples: [Float])? {
        while true {
            if let graph {
                let r: Receive<Void>
                do { r = try graph.pull(into: out) } catch { throw .processing(file: path, "reading its sound: \(error.description)") }
                switch r {
                case .value:
                    defer { out.unref() }
                    let start = out.pts.map { MediaTime(ticks: $0, timeBase: graph.sinkTimeBase).ticks(in: Rational(1, Int32(rate))) } ?? 0
                    return (start, out.planarFloats().first ?? [])
                case .endOfStream: return nil
                case .needsInput: break
                }
            }
            if drained { return nil }
            try feed()
        }
    }

    /// Decodes a packet (or, at the end, what the decoder holds) into the graph.
    private func feed() throws(MixWriteError) {
        var more = false
        if !ended {
            do { more = try demuxer.read(into: packet) } catch { more = false }
            if !more { ended = true }
        }
        if more && packet.streamIndex != stream.index { return }
        let frames: [Frame]
        do { frames = try decoder.decode(more ? packet : nil).frames } catch {
            throw .processing(file: path, "decoding its sound: \(error.description)")
        }
        do {
            for frame in frames where frame.sampleCount > 0 {
                if graph == nil { graph = try Self.graph(matching: frame, rate: rate) }
                // The frame's own time, in its samples from the file's origin: the graph's time base.
                frame.pts = frame.bestEffortTimestamp.map {
                    (MediaTime(ticks: $0, timeBase: decoder.timeBase) - origin).ticks(in: Rational(1, Int32(frame.sampleRate)))
                }
                _ = try graph?.push(frame, to: 0)
            }
            if !more {
                drained = true
                if let graph { try graph.close(0) }
            }
        } catch {
            throw .processing(file: path, "reading its sound: \(error.description)")
        }
    }

    private static func graph(matching frame: Frame, rate: Int) throws(FFmpegError) -> FilterGraph {
        let g = FilterGraph()
        try g.addAudioSource(matching: frame)
        try g.addAudioSink(frameSize: nil)
        try g.configure("[in0]aresample=\(rate),aformat=sample_fmts=fltp:channel_layouts=mono[out]")
        return g
    }

    /// `length` samples from sample `start` (at `rate`, on the file's timeline), read from a seek near it: what the
    /// file does not hold there is silence.
    static func window(_ file: MediaFile, stream: Int? = nil, rate: Int, start: Int64, length: Int) throws(MixWriteError) -> [Float] {
        let r = Rational(1, Int32(rate))
        // A second before it: the seek lands on a packet at or before its time, and the resampler settles.
        let from = MediaTime(ticks: max(0, start - Int64(rate)), timeBase: r)
        let sound = try MonoSound(file, stream: stream, rate: rate, from: from)
        var window = [Float](repeating: 0, count: length)
        while let (first, samples) = try sound.next() {
            if first >= start + Int64(length) { break }
            for (i, x) in samples.enumerated() {
                let k = first + Int64(i) - start
                if k >= 0 && k < Int64(length) { window[Int(k)] = x }
            }
        }
        return window
    }
}
