import FFmpegSupport

/// Every source track of a mix, decoded and mixed in one avfilter graph: hands out the mixed sound in
/// blocks of `blockSize` samples (planar float, the plan's channels), padded or cut to the plan's length.
/// Each use of a file (a clip: its place on the output, what is left out before it) is opened once, with a decoder
/// for each of its tracks in the mix; the graph is built from each track's first real frame, whose format can differ
/// from the container's header (HE-AAC, for one). The inputs are read in the order of the output's time, so a clip
/// that comes late is read when the mix gets there: what waits in the graph is a packet or two a track, however long
/// the output (not every later clip's sound decoded at the start and held).
final class AudioMixReader: AudioMixReading {
    /// One input file and the decoders of its tracks in the mix.
    private final class Input {
        let path: String
        /// The use of the file it reads: where it starts on the output and what is left out before it.
        let use: Use
        let demuxer: Demuxer
        /// By stream index: the track's decoder, clock and the sources it feeds.
        var decoders: [Int: Track] = [:]
        var ended = false
        /// Its tracks' timing corrections were said.
        var logged = false
        var position: MediaTime = .zero

        init(path: String, use: Use, demuxer: Demuxer) {
            (self.path, self.use, self.demuxer) = (path, use, demuxer)
        }
    }

    /// One track of an input: its decoder, the sources (indices into the plan's sources) it feeds (more than one when
    /// one use of the file names a track twice: its frames then go to each, a reference apiece), and the clock that
    /// places its frames by their timestamps.
    private final class Track {
        let decoder: Decoder
        var sources: [Int]
        var clock: TrackClock

        init(decoder: Decoder, source: Int, clock: TrackClock) { (self.decoder, sources, self.clock) = (decoder, [source], clock) }
    }

    /// A clip's use of its file: its tracks share one input (one demuxer); another use of the file, elsewhere on the
    /// output, is another input, read when the mix reaches it.
    private struct Use: Equatable {
        var timelineStart: MediaTime
        var head: MediaTime
        var offsetSeconds: Double
        init(_ s: AudioSource) { (timelineStart, head, offsetSeconds) = (s.timelineStart, s.head, s.offsetSeconds) }
    }

    private let plan: AudioMixPlan
    private let blockSize: Int
    private var inputs: [Input] = []
    /// Decoded frames wait here until the graph exists.
    private var pending: [[Frame]]
    private var exhausted: [Bool]
    private var closed: [Bool]
    /// Each track's frames are numbered by their samples from 0, once its clock has filled its gaps and trimmed its
    /// overlaps: its place on the timeline is set by adelay.
    private var nextSample: [Int64]
    /// Each track's place on the output: the time of its first sample (seconds), and of the next, by the seconds
    /// of sound delivered to it.
    private let firstOnOutput: [Double]
    private var delivered: [Double]
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
        delivered = Array(repeating: 0, count: n)
        // As the graph places it (AudioMixPlan's sourceFilters): its input's start, its own start in the file less
        // what is left out, and --offset.
        firstOnOutput = plan.sources.map { ($0.timelineStart + $0.startOffset - $0.head).seconds + $0.offsetSeconds }
        for (i, s) in plan.sources.enumerated() { try open(s, as: i) }
        for input in inputs { input.demuxer.keepOnly(Set(input.decoders.keys)) }
    }

    private func open(_ s: AudioSource, as source: Int) throws(MixWriteError) {
        let input: Input
        if let existing = inputs.first(where: { $0.path == s.path && $0.use == Use(s) }) {
            input = existing
        } else {
            do { input = Input(path: s.path, use: Use(s), demuxer: try Demuxer(url: s.path)) } catch {
                throw .input(file: s.path, MediaFile.explain(error))
            }
            inputs.append(input)
        }
        if let shared = input.decoders[s.streamIndex] {
            shared.sources.append(source)
            return
        }
        do {
            let decoder = try Decoder(demuxer: input.demuxer, streamIndex: s.streamIndex, threads: 1)
            let start = (input.demuxer.startTime ?? .zero) + s.startOffset
            input.decoders[s.streamIndex] = Track(decoder: decoder, source: source, clock: TrackClock(start: start, timeBase: decoder.timeBase))
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
        switch try AudioMix.pull(graph, into: mixed, measuring: plan.measure, measurement: &measurement) {
        case .value(let block): return block
        case .needsInput:
            return nil
        case .endOfStream:
            sinkEnded = true
            for input in inputs { logTiming(input) }
            return nil
        }
    }

    /// Reads and decodes one packet of the input that is furthest behind on the output's time (so the mix never
    /// waits long on one file, and nothing is read long before the mix needs it); before the graph exists, of an
    /// input a track still waits on for its first frame. An input whose every track the graph has taken all it wants
    /// of is not read on. False when every input is done.
    private func readPacket() throws(MixWriteError) -> Bool {
        for input in inputs where !input.ended && input.decoders.values.allSatisfy({ $0.sources.allSatisfy { closed[$0] } }) {
            input.ended = true
            logTiming(input)
        }
        let open = inputs.filter { !$0.ended }
        let waiting = graph == nil ? open.first { $0.decoders.values.contains { $0.sources.contains { pending[$0].isEmpty && !exhausted[$0] } } } : nil
        guard let input = waiting ?? open.min(by: { onOutput($0) < onOutput($1) }) else { return false }
        let damagedBefore = damagedPackets
        var more: Bool
        do { more = try input.demuxer.read(into: packet) } catch { damagedPackets += 1; more = false }
        if more, let track = input.decoders[packet.streamIndex] {
            if let ts = packet.dts ?? packet.pts { input.position = MediaTime(ticks: ts, timeBase: track.decoder.timeBase) }
            try deliver(decode(packet, track.decoder, input), of: track)
        } else if !more {
            input.ended = true
            defer { logTiming(input) }
            for track in input.decoders.values {
                try deliver(decode(nil, track.decoder, input), of: track)
                for source in track.sources {
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

    /// Says once what the input's clocks corrected (however the reading of it ended).
    private func logTiming(_ input: Input) {
        guard !input.logged else { return }
        input.logged = true
        for track in input.decoders.values.sorted(by: { $0.decoder.streamIndex < $1.decoder.streamIndex }) {
            TimingLog.record(input.path, plan.sources[track.sources[0]], track.clock.corrections,
                             origin: (input.demuxer.startTime ?? .zero).seconds)
        }
    }

    private func decode(_ packet: Packet?, _ decoder: Decoder, _ input: Input) throws(MixWriteError) -> [Frame] {
        let decoded: Decoder.Decoded
        do { decoded = try decoder.decode(packet) } catch {
            throw .processing(file: input.path, "audio stream #\(decoder.streamIndex): \(error.description)")
        }
        damagedPackets += decoded.damaged
        return decoded.frames
    }

    /// How far `input` has come on the output: its tracks' least (those the graph still takes).
    private func onOutput(_ input: Input) -> Double {
        var least = Double.infinity
        for track in input.decoders.values {
            for i in track.sources where !closed[i] { least = min(least, firstOnOutput[i] + delivered[i]) }
        }
        return least
    }

    /// Each decoded frame, placed by its timestamp (silence before it, or its overlap dropped), to every source its
    /// track feeds (a reference each, numbered by that source's samples).
    private func deliver(_ frames: [Frame], of track: Track) throws(MixWriteError) {
        let sources = track.sources
        let placed: [Frame]
        do { placed = try track.clock.place(frames) } catch {
            throw .processing(file: plan.sources[sources[0]].path, "audio: \(error.description)")
        }
        for decoded in placed {
            for (k, source) in sources.enumerated() {
                let frame: Frame
                if k == sources.count - 1 { frame = decoded } else {
                    do { frame = try decoded.reference() } catch { throw .processing(file: plan.sources[source].path, "audio: \(error.description)") }
                }
                frame.pts = plan.sources[source].stamp(sample: nextSample[source])
                nextSample[source] += Int64(frame.sampleCount)
                delivered[source] += Double(frame.sampleCount) / Double(max(1, frame.sampleRate))
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
