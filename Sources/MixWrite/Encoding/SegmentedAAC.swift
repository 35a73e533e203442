import Foundation
import FFmpegSupport
import Synchronization

/// AAC encoding on every core: the mix is cut into segments that separate encoders encode side by side.
///
/// FFmpeg's AAC encoder is the audio stage's whole cost (about 90× real time on one core here). An AAC
/// packet with time p carries the transform of samples [p, p + 2048); a decoder overlaps consecutive
/// packets. So each segment's encoder is fed `preroll` frames before its share (its psychoacoustic state and
/// window decisions settle on the real signal) and `postroll` frames after it (its last packets see what
/// follows), and only the packets of its own share are kept. Packets of neighbouring segments then join
/// as a single encoder's would; the first segment keeps the priming packet, the last the flush.
struct SegmentedAAC: Sendable {
    /// Frames of 1024 samples a segment owns (about 44 s at 48 kHz). Each segment's encoder costs a set-up of
    /// tens of milliseconds: 128-frame segments doubled the CPU time, 1024 cost 0.8 s more than 2048 on 10 minutes.
    /// `MIXWRITE_AAC_SEGMENT_FRAMES` overrides it, so that tests can check the joins on short media.
    static let segmentFrames: Int = {
        if let v = ProcessInfo.processInfo.environment["MIXWRITE_AAC_SEGMENT_FRAMES"].flatMap(Int.init), v >= 8 { return v }
        return 2048
    }()
    /// Frames fed before a segment's share. With 3, the 1024-sample windows at the joins came out 3 dB worse
    /// than a single encoder's (its rate control had not settled); with 16 they match it (measured on noise
    /// with a tone: 41–42 dB either way).
    static let preroll = 16
    static let postroll = 2
    static let frameSize = 1024

    struct Segment: Sendable {
        var index: Int
        /// Global sample index of `samples`' first sample (pre-roll included).
        var firstSample: Int64
        var samples: [[Float]]
        /// The packets this segment keeps: pts in keep.
        var keepFrom: Int64
        var keepUntil: Int64?
    }

    let sampleRate: Int
    let channels: Int
    let bitRate: Int
    /// The stream as the muxer sees it: the parameters (and AudioSpecificConfig) of the first segment's encoder.
    let parameters: CodecParameters
    /// That encoder, opened before the header is written, waiting for the first segment to use it.
    private let first: EncoderHandOver

    /// Opens the encoder that defines the stream (and encodes the first segment).
    init(sampleRate: Int, channels: Int, bitRate: Int) throws(FFmpegError) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        let encoder = try Encoder(aacSampleRate: sampleRate, channels: channels, bitRate: bitRate, globalHeader: true)
        parameters = try encoder.codecParameters()
        first = EncoderHandOver(encoder)
    }

    /// Encodes the blocks `next` hands out (nil at the end), segment by segment, two segments side by side,
    /// and hands every packet to `deliver` in order. With `share`, the blocks are that part's window of the whole
    /// mix and only its packets are delivered (`--parts`); their timestamps stay the whole stream's.
    func encode(_ next: () throws -> [[Float]]?, share: PartShare? = nil,
                deliver: (EncodedPacket) async throws -> Void) async throws {
        var cutter = SegmentCutter(channels: channels, share: share)
        var finished: [Int: [EncodedPacket]] = [:]
        var nextToWrite = share?.segments.lowerBound ?? 0
        try await withThrowingTaskGroup(of: (Int, [EncodedPacket]).self) { group in
            var inFlight = 0
            func collect(_ done: (Int, [EncodedPacket])) async throws {
                finished[done.0] = done.1
                inFlight -= 1
                while let packets = finished.removeValue(forKey: nextToWrite) {
                    for packet in packets where share?.keeps(packet) ?? true { try await deliver(packet) }
                    nextToWrite += 1
                }
            }
            func dispatch(final: Bool) async throws {
                while let segment = cutter.cut(final: final) {
                    if inFlight >= SegmentedAAC.sideBySide, let done = try await group.next() { try await collect(done) }
                    group.addTask { (segment.index, try self.encode(segment)) }
                    inFlight += 1
                }
            }
            while let block = try next() {
                try Task.checkCancellation()
                cutter.append(block)
                try await dispatch(final: false)
            }
            try await dispatch(final: true)
            while let done = try await group.next() { try await collect(done) }
        }
    }

    /// Segments encoded at once: one a core of the machines mixwrite is measured on.
    static let sideBySide = 2

    /// Encodes one segment and returns the packets it owns, in order.
    func encode(_ s: Segment) throws -> [EncodedPacket] {
        let encoder = try (s.index == 0 ? first.take() : nil)
            ?? Encoder(aacSampleRate: sampleRate, channels: channels, bitRate: bitRate, globalHeader: true)
        var out: [EncodedPacket] = []
        func keep(_ packets: [EncodedPacket]) {
            out += packets.filter { p in
                let pts = p.pts ?? 0
                return pts >= s.keepFrom && (s.keepUntil.map { pts < $0 } ?? true)
            }
        }
        let total = s.samples.first?.count ?? 0
        var offset = 0
        while offset < total {
            try Task.checkCancellation()
            let count = min(SegmentedAAC.frameSize, total - offset)
            let frame = try Frame(planar: s.samples, offset: offset, count: count, sampleRate: sampleRate)
            frame.pts = s.firstSample + Int64(offset)
            keep(try encoder.encode(frame))
            offset += count
        }
        keep(try encoder.drain())
        return out
    }
}

/// Hands the encoder that defined the stream to the task that encodes the first segment: the compiler
/// checks that it is sent (`sending`) and taken once, so no two tasks ever touch it.
private final class EncoderHandOver: Sendable {
    private let slot: Mutex<Encoder?>

    init(_ encoder: sending Encoder) { slot = Mutex(encoder) }

    func take() -> sending Encoder? { slot.withLock { $0.take() } }
}

/// One part's share of the whole movie's AAC stream (`--parts`): the packets it keeps, and the window of the
/// mix its encoders need to make them exactly as one machine's render makes them.
///
/// One machine cuts the mix into segments on a fixed grid (`SegmentedAAC.segmentFrames` frames from sample 0),
/// each encoded from its pre-roll to its post-roll. A part encodes the same segments of that grid, from the same
/// samples, and keeps only its own packets: so each packet of the joined stream is the very packet one machine
/// writes, and the joins are no different from the joins between segments. It costs a part the encoding of its
/// first segment's sound before its share (up to a segment, 44 s of sound at 48 kHz) and the mixing of the sound
/// before its window (decoded, not encoded).
struct PartShare: Sendable, Equatable {
    /// Packets kept, by pts in samples of the whole stream (the first part's from `Int64.min`: the priming
    /// packet; the last part's to `Int64.max`: the encoder's flush).
    var keep: Range<Int64>
    /// The samples of the whole mix the part reads.
    var window: Range<Int64>
    /// The segments of the grid it encodes.
    var segments: ClosedRange<Int>
    /// Whether `segments` ends with the stream (the last segment then takes what is left, as one machine's does).
    var reachesEnd: Bool
    /// The part's first picture on the whole stream's sample clock (rounded down): the part's file counts its
    /// sound's timestamps from it, as it counts its pictures' from that picture.
    var origin: Int64

    /// The share of the part whose pictures start at output time `start` (a frame time) and end at `end` (nil: the
    /// movie's end), in a mix of `totalSamples` at `sampleRate`. A part keeps the packets from the first at or after
    /// its start, so that its sound never starts before its picture.
    init(start: MediaTime, end: MediaTime?, sampleRate: Int, totalSamples: Int64) {
        let f = Int64(SegmentedAAC.frameSize), s = Int64(SegmentedAAC.segmentFrames) * f
        func firstPacket(at t: MediaTime) -> Int64 {
            let samples = t.ticks(in: Rational(1, Int32(sampleRate)), roundingUp: true)
            return (samples + f - 1) / f * f
        }
        let from = start > .zero ? firstPacket(at: start) : Int64.min
        let until = end.map(firstPacket) ?? Int64.max
        keep = from..<until
        origin = start.ticks(in: Rational(1, Int32(sampleRate)), roundingUp: false)
        // Packet p comes from the input frame at p + f, so it belongs to the segment whose share holds p + f.
        let first = from == Int64.min ? 0 : Int((from + f) / s)
        let lastPacket = until == Int64.max ? max(0, totalSamples - 1) : until - f
        let last = max(first, Int((lastPacket + f) / s))
        segments = first...last
        let windowStart = max(0, Int64(first) * s - Int64(SegmentedAAC.preroll) * f)
        // The last segment is fed only to the post-roll after the part's last packet (the packet made from the frame
        // at `until`, which the encoder puts out once it has the next): the encoder has not seen more of the segment
        // when it puts that packet out, so it is the same packet, and the rest of the segment is not encoded.
        let shareEnd = Int64(last + 1) * s
        let windowEnd = (until == Int64.max ? shareEnd : min(shareEnd, until + f)) + Int64(SegmentedAAC.postroll) * f
        reachesEnd = until == Int64.max || windowEnd >= totalSamples
        window = windowStart..<(reachesEnd ? totalSamples : windowEnd)
    }

    func keeps(_ packet: EncodedPacket) -> Bool { keep.contains(packet.pts ?? 0) }

    /// A kept packet as the part's file has it: timed from the part's first picture.
    func local(_ packet: EncodedPacket) -> EncodedPacket {
        var p = packet
        p.pts = p.pts.map { $0 - origin }
        p.dts = p.dts.map { $0 - origin }
        return p
    }
}

/// Collects the mix's samples and cuts segments as soon as each one's post-roll has arrived.
struct SegmentCutter {
    private var buffer: [[Float]]
    /// Global sample index of buffer's first sample.
    private var bufferStart: Int64 = 0
    private var next = 0
    /// A part's last segment, when its window ends before the stream does: nothing is cut after it.
    private var lastSegment: Int?

    /// `share`: the blocks appended are that part's window, from its first segment's pre-roll.
    init(channels: Int, share: PartShare? = nil) {
        if let share {
            (bufferStart, next) = (share.window.lowerBound, share.segments.lowerBound)
            lastSegment = share.reachesEnd ? nil : share.segments.upperBound
        }
        buffer = Array(repeating: [], count: channels)
        // Room for a segment with its pre- and post-roll, so appending never reallocates midway.
        let room = (SegmentedAAC.segmentFrames + SegmentedAAC.preroll + SegmentedAAC.postroll + 2) * SegmentedAAC.frameSize
        for c in buffer.indices { buffer[c].reserveCapacity(room) }
    }

    private var bufferEnd: Int64 { bufferStart + Int64(buffer.first?.count ?? 0) }

    mutating func append(_ planes: [[Float]]) {
        for c in buffer.indices { buffer[c] += planes[c] }
    }

    /// The next segment, if its share and post-roll are all here; with `final`, whatever is left.
    mutating func cut(final: Bool) -> SegmentedAAC.Segment? {
        if let lastSegment, next > lastSegment { return nil }
        let f = Int64(SegmentedAAC.frameSize), s = Int64(SegmentedAAC.segmentFrames)
        let k = Int64(next)
        let shareStart = k * s * f, shareEnd = (k + 1) * s * f
        let needEnd = shareEnd + Int64(SegmentedAAC.postroll) * f
        if !final && bufferEnd < needEnd { return nil }
        if final && next > 0 && bufferEnd <= shareStart { return nil }
        if final && next == 0 && bufferEnd == 0 && bufferStart == 0 { return nil }
        let from = max(0, shareStart - Int64(SegmentedAAC.preroll) * f)
        let until = final && bufferEnd <= needEnd ? bufferEnd : needEnd
        let lo = Int(from - bufferStart), hi = Int(until - bufferStart)
        let samples = buffer.map { Array($0[lo..<hi]) }
        // The last segment is the one the sound ends in. Sound that ends within the post-roll after this segment's
        // share (a 43.70 s mix: 448 samples past the first share) has one more segment, which keeps the packets of
        // those samples and the flush; this one, fed what post-roll there is, keeps its own share's, as always.
        let isLast = final && bufferEnd <= shareEnd
        let segment = SegmentedAAC.Segment(index: next, firstSample: from, samples: samples,
                                           keepFrom: k == 0 ? Int64.min : shareStart - f,
                                           keepUntil: isLast ? nil : shareEnd - f)
        next += 1
        // The next segment's pre-roll starts a few frames before its share.
        let keep = Int((k + 1) * s * f - Int64(SegmentedAAC.preroll) * f - bufferStart)
        if keep > 0 { for c in buffer.indices { buffer[c].removeFirst(min(keep, buffer[c].count)) } }
        bufferStart += Int64(max(0, keep))
        return segment
    }
}
