import FFmpegSupport

/// One audio track that goes into the mix.
public struct AudioSource: Sendable, Codable {
    /// The source's name on the command line: `fx`, `base`, `audio1` …
    public var label: String
    public var path: String
    public var streamIndex: Int
    /// 1-based number of this track among the file's audio tracks (`fx:2`).
    public var track: Int
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var layout: String
    public var gainDB: Double
    /// Extra delay given by the user; the track's own start within its file is added to it.
    public var offsetSeconds: Double
    /// Where the track starts on its file's timeline (after the file's origin).
    var startOffset: MediaTime
    /// How the track reaches the output (decoded, resampled, downmixed, gain, offset, mixed).
    public var route: String = ""
    /// Where the track's input starts on the output timeline (a concat clip's start); 0 otherwise.
    var timelineStart: MediaTime = .zero
    /// The track is cut to this length (a concat clip's span), so it never runs into the next clip.
    var span: MediaTime?

    public var name: String { "\(label):\(track)" }

    enum CodingKeys: String, CodingKey {
        case label, path, streamIndex, track, codec, sampleRate, channels, layout, gainDB, offsetSeconds, route, startSeconds
    }
    public init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        label = try c.decode(String.self, forKey: .label)
        path = try c.decode(String.self, forKey: .path)
        streamIndex = try c.decode(Int.self, forKey: .streamIndex)
        track = try c.decode(Int.self, forKey: .track)
        codec = try c.decode(String.self, forKey: .codec)
        sampleRate = try c.decode(Int.self, forKey: .sampleRate)
        channels = try c.decode(Int.self, forKey: .channels)
        layout = try c.decode(String.self, forKey: .layout)
        gainDB = try c.decode(Double.self, forKey: .gainDB)
        offsetSeconds = try c.decode(Double.self, forKey: .offsetSeconds)
        route = try c.decodeIfPresent(String.self, forKey: .route) ?? ""
        startOffset = MediaTime(seconds: String(try c.decodeIfPresent(Double.self, forKey: .startSeconds) ?? 0)) ?? .zero
    }
    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label); try c.encode(path, forKey: .path)
        try c.encode(streamIndex, forKey: .streamIndex); try c.encode(track, forKey: .track)
        try c.encode(codec, forKey: .codec); try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(channels, forKey: .channels); try c.encode(layout, forKey: .layout)
        try c.encode(gainDB, forKey: .gainDB); try c.encode(offsetSeconds, forKey: .offsetSeconds)
        try c.encode(route, forKey: .route); try c.encode(startOffset.seconds, forKey: .startSeconds)
    }

    init(label: String, path: String, streamIndex: Int, track: Int, codec: String, sampleRate: Int, channels: Int,
         layout: String, gainDB: Double, offsetSeconds: Double, startOffset: MediaTime) {
        self.label = label; self.path = path; self.streamIndex = streamIndex; self.track = track; self.codec = codec
        self.sampleRate = sampleRate; self.channels = channels; self.layout = layout; self.gainDB = gainDB
        self.offsetSeconds = offsetSeconds; self.startOffset = startOffset
    }
}

/// How the tracks are summed.
public enum MixMode: String, Sendable, Codable, CaseIterable {
    /// Each source at its own level, then a limiter at -1 dBFS (a mixing desk; AVFoundation's audio mix).
    case sum
    /// ffmpeg's amix default: each source at 1/N.
    case average
}

/// The audio half of every job: decodes every source track, mixes them in one avfilter graph
/// (abuffer×N → [volume, adelay] → aformat → amix → alimiter → apad/atrim), and encodes AAC for the writer.
struct AudioStage: Sendable {
    struct Plan: Sendable {
        var sources: [AudioSource]
        var sampleRate: Int
        var channels: Int
        /// The mix is padded with silence or cut to exactly this many samples.
        var totalSamples: Int64
        var bitRate: Int
        var mode: MixMode
        /// Fail at the first damaged packet instead of skipping it.
        var strict: Bool
    }

    let plan: Plan
    let slot: Int

    /// The limiter's ceiling: -1.5 dBFS, so that after AAC encoding (which overshoots a few tenths of a
    /// dB on loud tones) the decoded peaks stay at or under the promised -1 dBFS.
    static let ceiling = 0.841395

    /// The filter description between the sources `[in0]…` and the sink `[out]`.
    static func graphDescription(_ plan: Plan, inputFormats: [(channels: Int, sampleRate: Int)]) -> String {
        let layout = plan.channels == 1 ? "mono" : plan.channels == 2 ? "stereo" : "\(plan.channels)c"
        var chains: [String] = []
        for (i, s) in plan.sources.enumerated() {
            var filters: [String] = []
            // A mono source plays at its own level in both channels, as players play a mono file.
            if inputFormats[i].channels == 1 && plan.channels == 2 {
                filters.append("pan=stereo|c0=c0|c1=c0")
            }
            if s.gainDB != 0 { filters.append("volume=\(s.gainDB)dB") }
            filters.append("aformat=sample_fmts=fltp:sample_rates=\(plan.sampleRate):channel_layouts=\(layout)")
            let rate = Rational(1, Int32(plan.sampleRate))
            if let span = s.span { filters.append("atrim=end_sample=\(max(1, (span - s.startOffset).ticks(in: rate)))") }
            let delaySamples = (s.timelineStart + s.startOffset).ticks(in: rate)
                + Int64((s.offsetSeconds * Double(plan.sampleRate)).rounded())
            if delaySamples > 0 { filters.append("adelay=delays=\(delaySamples)S:all=1") }
            chains.append("[in\(i)]" + filters.joined(separator: ",") + "[m\(i)]")
        }
        let inputs = (0..<plan.sources.count).map { "[m\($0)]" }.joined()
        let normalize = plan.mode == .average ? 1 : 0
        var tail = "\(inputs)amix=inputs=\(plan.sources.count):duration=longest:dropout_transition=0:normalize=\(normalize)"
        if plan.mode == .sum { tail += ",alimiter=limit=\(ceiling):level=0:latency=1:attack=5:release=50" }
        tail += ",apad=whole_len=\(plan.totalSamples),atrim=end_sample=\(plan.totalSamples)"
        tail += ",aformat=sample_fmts=fltp:sample_rates=\(plan.sampleRate):channel_layouts=\(layout)[out]"
        return (chains + [tail]).joined(separator: ";")
    }

    /// One input file and the decoders of its tracks in the mix.
    private final class Input {
        let path: String
        let demuxer: Demuxer
        var decoders: [Int: (decoder: Decoder, source: Int)] = [:]
        var ended = false
        var position: MediaTime = .zero

        init(path: String) throws {
            self.path = path
            demuxer = try Demuxer(url: path)
        }
    }

    /// Runs to the end, then marks the track finished. Returns the count of damaged packets skipped.
    func run(writer: AssetWriter) async throws -> Int {
        let p = plan
        let encoder: Encoder
        do {
            encoder = try Encoder(aacSampleRate: p.sampleRate, channels: p.channels, bitRate: p.bitRate,
                                  globalHeader: writer.wantsGlobalHeader)
        } catch {
            throw MixWriteError.processing(file: nil, "cannot open the AAC encoder (\(error.message.lowercased()))")
        }
        try await writer.addTrack(slot, parameters: encoder.streamParameters())

        // Open each file once, with a decoder for each of its tracks in the mix.
        var inputs: [Input] = []
        for (i, s) in p.sources.enumerated() {
            let input: Input
            if let existing = inputs.first(where: { $0.path == s.path }) {
                input = existing
            } else {
                do { input = try Input(path: s.path) } catch let e as FFmpegError {
                    throw MixWriteError.input(file: s.path, MediaFile.explain(e))
                }
                inputs.append(input)
            }
            do {
                input.decoders[s.streamIndex] = (try Decoder(demuxer: input.demuxer, streamIndex: s.streamIndex, threads: 1), i)
            } catch {
                throw MixWriteError.input(file: s.path, "audio stream #\(s.streamIndex) (\(s.codec)) cannot be decoded: \(error.message.lowercased())")
            }
        }
        for input in inputs { input.demuxer.keepOnly(Set(input.decoders.keys)) }

        var damaged = 0 {
            didSet { if p.strict { strictFailure = true } }
        }
        var strictFailure = false
        let packet = Packet()
        let decoded = Frame()
        // Decoded frames wait here until the graph exists: it is built from each track's first real frame,
        // whose format can differ from the container's header (HE-AAC, for one).
        var pending: [[Frame]] = Array(repeating: [], count: p.sources.count)
        var exhausted = Array(repeating: false, count: p.sources.count)
        var graph: FilterGraph?
        var sinkEnded = false
        let mixed = Frame()
        var samplesOut: Int64 = 0

        // Each track's frames are numbered by their samples from 0: its place on the timeline is set by
        // adelay, so a stray timestamp cannot shift or stretch the mix.
        var nextSample = Array(repeating: Int64(0), count: p.sources.count)
        func deliver(_ frame: Frame, source: Int) throws {
            frame.pts = nextSample[source]
            nextSample[source] += Int64(frame.sampleCount)
            if let graph {
                try graph.push(frame, to: source)
            } else {
                pending[source].append(frame.take())
            }
        }

        func buildGraphIfReady(force: Bool) throws {
            guard graph == nil else { return }
            let ready = (0..<p.sources.count).allSatisfy { !pending[$0].isEmpty || exhausted[$0] }
            guard ready || force else { return }
            let g = FilterGraph()
            var formats: [(Int, Int)] = []
            for i in 0..<p.sources.count {
                if let first = pending[i].first {
                    try g.addAudioSource(matching: first)
                    formats.append((first.channelCount, first.sampleRate))
                } else {
                    // A track that gave no sound at all is silence: a source with no frames, closed at once.
                    let rate = p.sources[i].sampleRate > 0 ? p.sources[i].sampleRate : p.sampleRate
                    try g.addSilentAudioSource(sampleRate: rate, channels: max(1, p.sources[i].channels))
                    formats.append((max(1, p.sources[i].channels), rate))
                }
            }
            try g.addAudioSink(frameSize: encoder.frameSize)
            try g.configure(AudioStage.graphDescription(p, inputFormats: formats))
            graph = g
            for i in 0..<p.sources.count {
                for f in pending[i] { try g.push(f, to: i) }
                pending[i] = []
                if exhausted[i] { try g.close(i) }
            }
        }

        // The mix goes to SegmentedAAC: segments are encoded side by side, two at a time, and their packets
        // reach the writer in order.
        let aac = SegmentedAAC(sampleRate: p.sampleRate, channels: p.channels, bitRate: p.bitRate)
        var cutter = SegmentCutter(channels: p.channels)
        var finishedSegments: [Int: [EncodedPacket]] = [:]
        var nextToWrite = 0
        var inFlight = 0

        func writeReady() async throws {
            while let packets = finishedSegments.removeValue(forKey: nextToWrite) {
                for packet in packets { try await writer.append(packet, to: slot) }
                nextToWrite += 1
            }
        }

        func dispatch(_ group: inout ThrowingTaskGroup<(Int, [EncodedPacket]), any Error>, final: Bool) async throws {
            while let segment = cutter.cut(final: final) {
                if inFlight >= 2, let (i, packets) = try await group.next() {
                    finishedSegments[i] = packets
                    inFlight -= 1
                    try await writeReady()
                }
                group.addTask { (segment.index, try aac.encode(segment)) }
                inFlight += 1
            }
        }

        func pullAndEncode(_ group: inout ThrowingTaskGroup<(Int, [EncodedPacket]), any Error>) async throws {
            guard let graph, !sinkEnded else { return }
            while true {
                switch try graph.pull(into: mixed) {
                case .value:
                    samplesOut += Int64(mixed.sampleCount)
                    cutter.append(mixed.planarFloats())
                    mixed.unref()
                case .needsInput:
                    try await dispatch(&group, final: false)
                    return
                case .endOfStream:
                    sinkEnded = true
                    return
                }
            }
        }

        func drainDecoder(_ decoder: Decoder, source: Int) throws {
            while true {
                let r: Receive<Void>
                // A damaged frame is counted and skipped; the next packet gets its chance.
                do { r = try decoder.receive(into: decoded) } catch { damaged += 1; return }
                switch r {
                case .value:
                    if decoded.sampleCount > 0 { try deliver(decoded, source: source) }
                    decoded.unref()
                case .needsInput, .endOfStream:
                    return
                }
            }
        }

        try await withThrowingTaskGroup(of: (Int, [EncodedPacket]).self) { group in
            while !sinkEnded {
                try Task.checkCancellation()
                // Read from the input that is furthest behind, so the mix never waits long on one file.
                guard let input = inputs.filter({ !$0.ended }).min(by: { $0.position < $1.position }) else { break }
                var more: Bool
                do { more = try input.demuxer.read(into: packet) } catch { damaged += 1; more = false }
                if more, let (decoder, source) = input.decoders[packet.streamIndex] {
                    if let ts = packet.dts ?? packet.pts {
                        input.position = MediaTime(ticks: ts, timeBase: decoder.timeBase)
                    }
                    do { _ = try decoder.send(packet) } catch { damaged += 1 }
                    try drainDecoder(decoder, source: source)
                } else if !more {
                    input.ended = true
                    for (decoder, source) in input.decoders.values {
                        do { _ = try decoder.send(nil) } catch { damaged += 1 }
                        try drainDecoder(decoder, source: source)
                        exhausted[source] = true
                        if let graph { try graph.close(source) }
                    }
                }
                if strictFailure {
                    throw MixWriteError.processing(file: input.path, "damaged audio packet (--strict stops at the first)")
                }
                try buildGraphIfReady(force: false)
                try await pullAndEncode(&group)
            }
            try buildGraphIfReady(force: true)
            if let graph, !sinkEnded {
                for i in 0..<p.sources.count where !exhausted[i] { try graph.close(i) }
                try await pullAndEncode(&group)
            }
            try await dispatch(&group, final: true)
            while let (i, packets) = try await group.next() {
                finishedSegments[i] = packets
                try await writeReady()
            }
        }
        try await writer.finishTrack(slot)
        return damaged
    }
}
