import FFmpegSupport

/// What reads a mix: its blocks, the damage skipped, the measurement.
protocol AudioMixReading: AnyObject {
    func next() throws(MixWriteError) -> [[Float]]?
    var damagedPackets: Int { get }
    var measurement: [String: String] { get }
}

enum AudioMix {
    /// A block of mixed sound from `graph`'s sink into `frame` (planar floats), with the ebur128 filter's figures kept in
    /// `measurement` when the plan measures; or that the graph needs input, or has ended.
    static func pull(_ graph: FilterGraph, into frame: Frame, measuring: Bool,
                     measurement: inout [String: String]) throws(MixWriteError) -> Receive<[[Float]]> {
        let r: Receive<Void>
        do { r = try graph.pull(into: frame) } catch { throw .processing(file: nil, "mixing the audio: \(error.description)") }
        switch r {
        case .value:
            defer { frame.unref() }
            if measuring {
                let figures = frame.metadata(prefix: "lavfi.r128.")
                if !figures.isEmpty { measurement = figures }
            }
            return .value(frame.planarFloats())
        case .needsInput: return .needsInput
        case .endOfStream: return .endOfStream
        }
    }

    /// The reader of `plan`: by lanes where the plan has them (`AudioMixPlan.lanes`), else every source its own input
    /// of the mix (`AudioMixReader`).
    static func reader(plan: AudioMixPlan, blockSize: Int) throws(MixWriteError) -> any AudioMixReading {
        if let lanes = plan.lanes { return try LaneMixReader(plan: plan, lanes: lanes, blockSize: blockSize) }
        return try AudioMixReader(plan: plan, blockSize: blockSize)
    }
}

/// A mix whose sources are read a lane at a time (`AudioMixPlan.lanes`): the graph sums a few lanes, whatever the
/// number of sources (a timeline of 1,000 clips is two lanes), and each lane is fed by the reader: silence up to its
/// next source's place, then that source's samples, each source decoded and shaped (its channels, gain, format, span,
/// fades: `AudioMixPlan.sourceFilters`) by a small graph of its own. A source's file is opened when its lane reaches
/// it (or taken from the few kept open since an earlier source of it), so memory and open files do not grow with the
/// sources, and no source's silence is mixed.
final class LaneMixReader: AudioMixReading {
    /// One source being read: its file, decoder, clock and graph (made from its first frame).
    private final class Member {
        let source: Int
        let demuxer: Demuxer
        let decoder: Decoder
        var clock: TrackClock
        /// Where its reading was sought to, on its stream's timeline (nil: read from its start); then the clock starts
        /// at its first frame, and `skipped` samples of its start are not read.
        var sought: Int64?
        var skipped: Int64 = 0
        var graph: FilterGraph?
        var nextSample: Int64 = 0
        var position: MediaTime = .zero
        /// Its file is read to its end, or its graph takes no more.
        var read = false
        /// Samples of its start under the sound before it on its lane, still to drop.
        var drop: Int64

        init(source: Int, demuxer: Demuxer, decoder: Decoder, clock: TrackClock, drop: Int64) {
            (self.source, self.demuxer, self.decoder, self.clock, self.drop) = (source, demuxer, decoder, clock, drop)
        }
    }

    /// One input of the mix: its sources in order, the one being read, and the samples handed to the mix so far.
    private final class Lane {
        let index: Int
        let members: [Int]
        var next = 0
        var current: Member?
        var cursor: Int64 = 0
        var closed = false
        init(_ index: Int, _ members: [Int]) { (self.index, self.members) = (index, members) }
    }

    private let plan: AudioMixPlan
    private let lanes: [Lane]
    private let places: [AudioMixPlan.Placement]
    private let graph: FilterGraph
    private var sinkEnded = false
    private let packet = Packet()
    private let mixed = Frame()
    private(set) var damagedPackets = 0
    private(set) var measurement: [String: String] = [:]

    init(plan: AudioMixPlan, lanes: [[Int]], blockSize: Int) throws(MixWriteError) {
        (self.plan, self.lanes, places) = (plan, lanes.enumerated().map(Lane.init), plan.sources.map(plan.placement))
        graph = FilterGraph()
        do {
            for _ in lanes { try graph.addSilentAudioSource(sampleRate: plan.sampleRate, channels: plan.channels) }
            try graph.addAudioSink(frameSize: blockSize)
            try graph.configure(plan.laneGraphDescription(lanes: lanes.count))
        } catch {
            throw .processing(file: nil, "cannot set up the audio mix: \(error.description)")
        }
    }

    func next() throws(MixWriteError) -> [[Float]]? {
        while true {
            if let block = try pull() { return block }
            if sinkEnded { return nil }
            // The lane furthest behind: the mix waits on it.
            guard let lane = lanes.lazy.filter({ !$0.closed }).min(by: { $0.cursor < $1.cursor }) else { return try pull() }
            try advance(lane)
        }
    }

    private func pull() throws(MixWriteError) -> [[Float]]? {
        guard !sinkEnded else { return nil }
        switch try AudioMix.pull(graph, into: mixed, measuring: plan.measure, measurement: &measurement) {
        case .value(let block): return block
        case .needsInput: return nil
        case .endOfStream:
            sinkEnded = true
            for lane in lanes { if let m = lane.current { finish(m, of: lane) } }
            return nil
        }
    }

    /// One step of `lane`: a second of silence up to its next source, that source opened, or a packet of it read and
    /// what its graph gives handed on; the lane closed after its last source.
    private func advance(_ lane: Lane) throws(MixWriteError) {
        guard let member = lane.current else {
            guard lane.next < lane.members.count else { return try close(lane) }
            let s = lane.members[lane.next], first = places[s].first
            if lane.cursor < first {
                let silence: Frame
                do { silence = try Frame.silence(samples: Int(min(first - lane.cursor, Int64(plan.sampleRate))), sampleRate: plan.sampleRate, channels: plan.channels) } catch {
                    throw .processing(file: nil, "mixing the audio: \(error.description)")
                }
                return try hand(silence, to: lane)
            }
            lane.current = try open(s, drop: lane.cursor - first)
            lane.next += 1
            return
        }
        if !member.read { try read(member) }
        guard let g = member.graph else {
            if member.read { finish(member, of: lane) }
            return
        }
        while true {
            let out = Frame()
            let r: Receive<Void>
            do { r = try g.pull(into: out) } catch { throw .processing(file: plan.sources[member.source].path, "audio: \(error.description)") }
            switch r {
            case .value:
                if member.drop > 0 {
                    let n = Int(min(member.drop, Int64(out.sampleCount)))
                    member.drop -= Int64(n)
                    if n == out.sampleCount { continue }
                    let rest: Frame
                    do { rest = try out.droppingLeading(n) } catch { throw .processing(file: nil, "audio: \(error.description)") }
                    try hand(rest, to: lane)
                } else {
                    try hand(out, to: lane)
                }
            case .needsInput: return
            case .endOfStream: return finish(member, of: lane)
            }
        }
    }

    /// Seconds of sound read before a source's first heard sample when its file is sought into: the decoder's
    /// start after a seek (an AAC frame's overlap, an MP3 frame's bit reservoir, Opus's pre-roll) falls in them, and
    /// they are cut.
    static let seekLead = 0.5
    /// Files read by sources that are done, kept open for the next source of the same file and track (a timeline cuts
    /// a few files into many clips): opening a file and its decoder again costs more than a short clip's sound.
    private var idle: [(key: String, demuxer: Demuxer, decoder: Decoder)] = []
    static let idleFiles = 8

    /// Source `s`'s file opened (or taken from `idle`), its decoder and clock made. A source whose first heard sample
    /// lies more than twice `seekLead` into its file (a clip cut from its middle) is sought to `seekLead` before it,
    /// where that is exact: its stream counts in samples of the mix's rate, so what the seek skips is a whole number
    /// of the mix's samples. Only a source that is sought takes an idle file.
    private func open(_ s: Int, drop: Int64) throws(MixWriteError) -> Member {
        let source = plan.sources[s], key = "\(source.streamIndex):\(source.path)"
        let cut = Double(places[s].cut) / Double(plan.sampleRate)
        let seeks = cut > 2 * Self.seekLead && source.driftPPM == 0 && source.sampleRate == plan.sampleRate
        let exact = Rational(1, Int32(plan.sampleRate))
        do {
            let demuxer: Demuxer, decoder: Decoder
            if seeks, let i = idle.lastIndex(where: { $0.key == key && $0.decoder.timeBase == exact }) {
                (demuxer, decoder) = (idle[i].demuxer, idle[i].decoder)
                idle.remove(at: i)
                decoder.flush()
            } else {
                demuxer = try Demuxer(url: source.path)
                demuxer.keepOnly([source.streamIndex])
                decoder = try Decoder(demuxer: demuxer, streamIndex: source.streamIndex, threads: 1)
            }
            let start = (demuxer.startTime ?? .zero) + source.startOffset
            let m = Member(source: s, demuxer: demuxer, decoder: decoder, clock: TrackClock(start: start, timeBase: decoder.timeBase), drop: max(0, drop))
            if seeks, decoder.timeBase == exact, let lead = MediaTime(seconds: cut - Self.seekLead) {
                try demuxer.seek(to: start + lead, streamIndex: source.streamIndex)
                m.sought = start.ticks(in: decoder.timeBase)
            }
            return m
        } catch {
            throw .input(file: source.path, "audio stream #\(source.streamIndex) (\(source.codec)) cannot be read: \(error.message.lowercased())")
        }
    }

    /// Reads and decodes one packet of `m` (its end: the decoder's last frames, and the end of its graph's input), and
    /// hands its frames, placed by their timestamps, to its graph.
    private func read(_ m: Member) throws(MixWriteError) {
        let source = plan.sources[m.source]
        let damagedBefore = damagedPackets
        var more: Bool
        do { more = try m.demuxer.read(into: packet) } catch { damagedPackets += 1; more = false }
        if more && packet.streamIndex != source.streamIndex { return }
        if more, let ts = packet.dts ?? packet.pts { m.position = MediaTime(ticks: ts, timeBase: m.decoder.timeBase) }
        let decoded: Decoder.Decoded
        do { decoded = try m.decoder.decode(more ? packet : nil) } catch {
            throw .processing(file: source.path, "audio stream #\(source.streamIndex): \(error.description)")
        }
        damagedPackets += decoded.damaged
        if plan.strict && damagedPackets > damagedBefore {
            throw .processing(file: source.path, "damaged audio packet (--strict stops at the first)")
        }
        DamageLog.record(source.path, damagedPackets - damagedBefore, at: m.position)
        do {
            if let from = m.sought, let first = decoded.frames.first(where: { $0.sampleCount > 0 }), let pts = first.bestEffortTimestamp {
                // The first frame after the seek: the clock starts with it, the samples before it are skipped.
                m.skipped = max(0, min(Int64(places[m.source].cut), pts - from))
                m.clock = TrackClock(start: MediaTime(ticks: from + m.skipped, timeBase: m.decoder.timeBase), timeBase: m.decoder.timeBase)
                m.sought = nil
            }
            for frame in try m.clock.place(decoded.frames) where !m.read {
                frame.pts = source.stamp(sample: m.nextSample)
                m.nextSample += Int64(frame.sampleCount)
                if m.graph == nil { m.graph = try graph(of: m, first: frame) }
                // Its span is over: nothing more is read of it.
                if try !m.graph!.push(frame, to: 0) { m.read = true }
            }
            if !more || m.read {
                m.read = true
                try m.graph?.close(0)
            }
        } catch {
            throw .processing(file: source.path, "mixing \(source.name): \(error.description)")
        }
    }

    /// The graph that shapes `m`'s sound for its lane, made for its first frame's format.
    private func graph(of m: Member, first: Frame) throws(FFmpegError) -> FilterGraph {
        let g = FilterGraph()
        try g.addAudioSource(matching: first)
        try g.addAudioSink(frameSize: nil)
        try g.configure("[in0]" + plan.sourceFilters(plan.sources[m.source], channels: first.channelCount, layout: plan.layoutName, placed: false,
                                                     skipped: m.skipped) + "[out]")
        return g
    }

    /// `m` done: its corrections said, its file closed; its lane goes on to the next source.
    private func finish(_ m: Member, of lane: Lane) {
        let source = plan.sources[m.source]
        TimingLog.record(source.path, source, m.clock.corrections, origin: (m.demuxer.startTime ?? .zero).seconds)
        lane.current = nil
        idle.append(("\(source.streamIndex):\(source.path)", m.demuxer, m.decoder))
        if idle.count > Self.idleFiles { idle.removeFirst() }
    }

    /// `frame` to the mix on `lane`, after what the lane had.
    private func hand(_ frame: Frame, to lane: Lane) throws(MixWriteError) {
        frame.pts = lane.cursor
        lane.cursor += Int64(frame.sampleCount)
        do {
            // The mix has all it takes (its length is reached).
            if try !graph.push(frame, to: lane.index) { lane.closed = true }
        } catch {
            throw .processing(file: nil, "mixing the audio: \(error.description)")
        }
    }

    private func close(_ lane: Lane) throws(MixWriteError) {
        lane.closed = true
        do { try graph.close(lane.index) } catch {
            throw .processing(file: nil, "mixing the audio: \(error.description)")
        }
    }
}
