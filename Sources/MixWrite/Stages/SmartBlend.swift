import FFmpegSupport

extension BlendStage {
    /// A blend rendered smart (`SmartPlan`): each copied span is base's packets as they are, each encoded span the
    /// composed pictures through an encoder of its own (an IDR first, its parameter sets by `spsID`), all in one track
    /// whose configuration record holds both encoders' sets. Every packet is timed on the output's frame grid: its
    /// picture's frame, and a decode time one frame after the one before, `delay` frames back (the deeper of base's
    /// and x264's reordering), so that no picture shows before it is decoded.
    func runSmart(_ smart: SmartPlan, into input: AssetWriterInput) async throws -> Int {
        let (p, v) = (plan, plan.video)
        var settings = v.encoding
        (settings.stitchable, settings.spsID) = (true, smart.spsID)
        var fresh: VideoEncoder? = try VideoEncoder(settings)
        let parameters = fresh!.parameters
        guard let base = smart.config, let own = AVCConfig(annexB: parameters.extradata) else {
            throw MixWriteError.processing(file: nil, "smart rendering: the H.264 encoder gave no parameter sets to merge")
        }
        try await input.start(try parameters.replacingExtradata(base.merged(with: own).bytes))
        var timing = SmartTiming(delay: max(smart.delay, parameters.videoDelay), firstFrame: v.firstFrame)
        let copier = try BaseCopier(file: p.base, rate: v.frameRate)
        let picture = try Compositor(p)
        let buffers = try (0..<3).map { _ in try Frame(width: v.width, height: v.height, pixelFormat: .yuv420p) }
        for span in smart.spans {
            try Task.checkCancellation()
            switch span {
            case .copy(let frames):
                try await copier.copy(frames) { packet, frame in try await input.append(try timing.place(packet, frame: frame)) }
            case .encode(let frames):
                let encoder = try fresh ?? VideoEncoder(settings)
                fresh = nil
                try picture.seek(to: v.time(ofFrame: frames.lowerBound))
                let ahead = FramesAhead(frames, buffers: buffers) { n, frame throws(MixWriteError) in
                    let output = try picture.compose(at: v.time(ofFrame: n))
                    do { try frame.copyPlanes(from: output) } catch { throw MixWriteError.processing(error, file: nil) }
                }
                defer { ahead.stop() }
                let first = Int64(frames.lowerBound)
                try await ahead.encodeAll(with: encoder, pts: { first + $0 }) { packet in
                    var p = packet
                    p.data = H264.lengthPrefixed(annexB: packet.data)
                    try await input.append(try timing.place(p, frame: Int(packet.pts ?? first)))
                }
                ahead.stop()
            }
        }
        try await input.finish()
        return picture.damagedPackets + copier.damaged
    }
}

/// The smart track's timing: each packet at its picture's frame (less the render's first), decode times one frame
/// apart, `delay` frames back.
struct SmartTiming {
    let delay: Int
    let firstFrame: Int
    private var written = 0

    init(delay: Int, firstFrame: Int) { (self.delay, self.firstFrame) = (delay, firstFrame) }

    /// `packet` of whole-output frame `frame`, timed; refused (a bug, not the input's fault) if it would show before
    /// it is decoded.
    mutating func place(_ packet: EncodedPacket, frame: Int) throws(MixWriteError) -> EncodedPacket {
        var p = packet
        (p.pts, p.dts, p.duration) = (Int64(frame - firstFrame), Int64(written - delay), 1)
        guard p.dts! <= p.pts! else {
            throw .processing(file: nil, "smart rendering: frame \(frame) would show before it is decoded (reordered deeper than \(delay))")
        }
        written += 1
        return p
    }
}

/// base's video packets in decode order, for the spans a smart render copies: the n-th packet is the n-th frame's
/// decode slot (`GOPScan` checked that GOPs and frames line up so).
final class BaseCopier {
    private let demuxer: Demuxer
    private let stream: StreamInfo
    private let packet = Packet()
    private let origin: MediaTime
    private let rate: Rational
    private let path: String
    private var read = 0
    private(set) var damaged = 0

    init(file: MediaFile, rate: Rational) throws(MixWriteError) {
        guard let stream = file.mainVideo else { throw .input(file: file.path, "has no video stream") }
        do { demuxer = try Demuxer(url: file.path) } catch { throw .input(file: file.path, MediaFile.explain(error)) }
        demuxer.keepOnly([stream.index])
        (self.stream, origin, self.rate, path) = (stream, file.origin, rate, file.path)
    }

    /// Hands the packets of decode slots `frames` to `append`, each with its picture's frame.
    func copy(_ frames: Range<Int>, append: (EncodedPacket, Int) async throws -> Void) async throws {
        while read < frames.upperBound {
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch { more = false }
            guard more else {
                throw MixWriteError.input(file: path, "ended at packet \(read) while its GOP up to frame \(frames.upperBound) was copied (changed since it was read?)")
            }
            guard packet.streamIndex == stream.index else { continue }
            defer { read += 1 }
            guard read >= frames.lowerBound else { continue }
            let t = MediaTime(ticks: packet.pts ?? 0, timeBase: stream.timeBase) - origin
            try await append(packet.encoded, Int(t.ticks(in: rate.inverted)))
        }
    }
}
