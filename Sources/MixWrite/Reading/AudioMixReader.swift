import FFmpegSupport

/// Every source track of a mix, decoded and mixed in one avfilter graph: hands out the mixed sound in
/// blocks of `blockSize` samples (planar float, the plan's channels), padded or cut to the plan's length.
/// Each file is opened once, with a decoder for each of its tracks in the mix; the graph is built from each
/// track's first real frame, whose format can differ from the container's header (HE-AAC, for one).
final class AudioMixReader {
    /// One input file and the decoders of its tracks in the mix.
    private final class Input {
        let path: String
        let demuxer: Demuxer
        /// By stream index: the decoder and the sources (indices into the plan's sources) it feeds: more than one when
        /// the file is used twice (a timeline cutting one file into two clips, a concat taking a clip again).
        var decoders: [Int: (decoder: Decoder, sources: [Int])] = [:]
        var ended = false
        var position: MediaTime = .zero

        init(path: String, demuxer: Demuxer) {
            self.path = path
            self.demuxer = demuxer
        }
    }

    private let plan: AudioMixPlan
    private let blockSize: Int
    private var inputs: [Input] = []
    /// Decoded frames wait here until the graph exists.
    private var pending: [[Frame]]
    private var exhausted: [Bool]
    private var closed: [Bool]
    /// Each track's frames are numbered by their samples from 0: its place on the timeline is set by adelay,
    /// so a stray timestamp cannot shift or stretch the mix.
    private var nextSample: [Int64]
    private var graph: FilterGraph?
    private var sinkEnded = false
    private let packet = Packet()
    private let mixed = Frame()
    private(set) var damagedPackets = 0
    /// With `plan.measure`: the ebur128 filter's latest figures ("lavfi.r128.I" …), the whole mix's at the end.
    private(set) var measurement: [String: String] = [:]

    init(plan: AudioMixPlan, blockSize: Int) throws(MixWriteError) {
        self.plan = plan
        self.blockSize = blockSize
        let n = plan.sources.count
        pending = Array(repeating: [], count: n)
        exhausted = Array(repeating: false, count: n)
        closed = Array(repeating: false, count: n)
        nextSample = Array(repeating: 0, count: n)
        for (i, s) in plan.sources.enumerated() { try open(s, as: i) }
        for input in inputs { input.demuxer.keepOnly(Set(input.decoders.keys)) }
    }

    private func open(_ s: AudioSource, as source: Int) throws(MixWriteError) {
        let input: Input
        if let existing = inputs.first(where: { $0.path == s.path }) {
            input = existing
        } else {
            do { input = Input(path: s.path, demuxer: try Demuxer(url: s.path)) } catch {
                throw .input(file: s.path, MediaFile.explain(error))
            }
            inputs.append(input)
        }
        if let shared = input.decoders[s.streamIndex] {
            input.decoders[s.streamIndex]?.sources = shared.sources + [source]
            return
        }
        do {
            input.decoders[s.streamIndex] = (try Decoder(demuxer: input.demuxer, streamIndex: s.streamIndex, threads: 1), [source])
        } catch {
            throw .input(file: s.path, "audio stream #\(s.streamIndex) (\(s.codec)) cannot be decoded: \(error.message.lowercased())")
        }
    }

    /// The next block of the mix, one array a channel, or nil once the whole length has been handed out.
    func next() throws(MixWriteError) -> [[Float]]? {
        while true {
            if let block = try pull() { return block }
            if sinkEnded { return nil }
            if try readPacket() { continue }
            // Every input is read: whatever is still open gets its end, and the graph gives the rest.
            try buildGraph(force: true)
            guard let graph else { return nil }
            for i in plan.sources.indices where !closed[i] { try close(i, in: graph) }
            if let block = try pull() { return block }
            return nil
        }
    }

    /// A block from the graph's sink, if it has one ready.
    private func pull() throws(MixWriteError) -> [[Float]]? {
        guard let graph, !sinkEnded else { return nil }
        let r: Receive<Void>
        do { r = try graph.pull(into: mixed) } catch { throw .processing(file: nil, "mixing the audio: \(error.description)") }
        switch r {
        case .value:
            defer { mixed.unref() }
            if plan.measure {
                let figures = mixed.metadata(prefix: "lavfi.r128.")
                if !figures.isEmpty { measurement = figures }
            }
            return mixed.planarFloats()
        case .needsInput:
            return nil
        case .endOfStream:
            sinkEnded = true
            return nil
        }
    }

    /// Reads and decodes one packet of the input that is furthest behind (so the mix never waits long on
    /// one file); false when every input is read to its end.
    private func readPacket() throws(MixWriteError) -> Bool {
        guard let input = inputs.filter({ !$0.ended }).min(by: { $0.position < $1.position }) else { return false }
        let damagedBefore = damagedPackets
        var more: Bool
        do { more = try input.demuxer.read(into: packet) } catch { damagedPackets += 1; more = false }
        if more, let (decoder, sources) = input.decoders[packet.streamIndex] {
            if let ts = packet.dts ?? packet.pts { input.position = MediaTime(ticks: ts, timeBase: decoder.timeBase) }
            try deliver(decode(packet, decoder, input), to: sources)
        } else if !more {
            input.ended = true
            for (decoder, sources) in input.decoders.values {
                try deliver(decode(nil, decoder, input), to: sources)
                for source in sources {
                    exhausted[source] = true
                    if let graph { try close(source, in: graph) }
                }
            }
        }
        if plan.strict && damagedPackets > damagedBefore {
            throw .processing(file: input.path, "damaged audio packet (--strict stops at the first)")
        }
        DamageLog.record(input.path, damagedPackets - damagedBefore, at: input.position)
        try buildGraph(force: false)
        return true
    }

    private func decode(_ packet: Packet?, _ decoder: Decoder, _ input: Input) throws(MixWriteError) -> [Frame] {
        let decoded: Decoder.Decoded
        do { decoded = try decoder.decode(packet) } catch {
            throw .processing(file: input.path, "audio stream #\(decoder.streamIndex): \(error.description)")
        }
        damagedPackets += decoded.damaged
        return decoded.frames
    }

    /// Each decoded frame to every source its track feeds (a reference each, numbered by that source's samples).
    private func deliver(_ frames: [Frame], to sources: [Int]) throws(MixWriteError) {
        for decoded in frames where decoded.sampleCount > 0 {
            for (k, source) in sources.enumerated() {
                let frame: Frame
                if k == sources.count - 1 { frame = decoded } else {
                    do { frame = try decoded.reference() } catch { throw .processing(file: plan.sources[source].path, "audio: \(error.description)") }
                }
                frame.pts = nextSample[source]
                nextSample[source] += Int64(frame.sampleCount)
                if let graph { try push(frame, to: source, in: graph) } else { pending[source].append(frame) }
            }
        }
    }

    /// Builds the graph once every track has given its first frame or ended (or, with `force`, now).
    private func buildGraph(force: Bool) throws(MixWriteError) {
        guard graph == nil else { return }
        let n = plan.sources.count
        guard force || (0..<n).allSatisfy({ !pending[$0].isEmpty || exhausted[$0] }) else { return }
        let g = FilterGraph()
        var formats: [(channels: Int, sampleRate: Int)] = []
        do {
            for i in 0..<n {
                if let first = pending[i].first {
                    try g.addAudioSource(matching: first)
                    formats.append((first.channelCount, first.sampleRate))
                } else {
                    // A track that gave no sound at all is silence: a source with no frames, closed at once.
                    let s = plan.sources[i]
                    let rate = s.sampleRate > 0 ? s.sampleRate : plan.sampleRate
                    try g.addSilentAudioSource(sampleRate: rate, channels: max(1, s.channels))
                    formats.append((max(1, s.channels), rate))
                }
            }
            try g.addAudioSink(frameSize: blockSize)
            try g.configure(plan.graphDescription(inputFormats: formats))
        } catch {
            throw .processing(file: nil, "cannot set up the audio mix: \(error.description)")
        }
        graph = g
        for i in 0..<n {
            for f in pending[i] { try push(f, to: i, in: g) }
            pending[i] = []
            if exhausted[i] { try close(i, in: g) }
        }
    }

    private func push(_ frame: Frame, to source: Int, in graph: FilterGraph) throws(MixWriteError) {
        guard !closed[source] else { return }
        do {
            // The graph has all it takes of this track (its span in the mix is over): nothing more goes to it.
            if try !graph.push(frame, to: source) { closed[source] = true }
        } catch {
            throw .processing(file: plan.sources[source].path, "mixing \(plan.sources[source].name): \(error.description)")
        }
    }

    private func close(_ source: Int, in graph: FilterGraph) throws(MixWriteError) {
        guard !closed[source] else { return }
        closed[source] = true
        do { try graph.close(source) } catch {
            throw .processing(file: plan.sources[source].path, "ending \(plan.sources[source].name): \(error.description)")
        }
    }
}
