import FFmpegSupport

extension BlendStage {
    /// A blend rendered smart: base's copied GOPs beside the composed pictures of the encoded spans (`SmartTrack`).
    func runSmart(_ smart: SmartPlan, into input: AssetWriterInput) async throws -> Int {
        let (p, v) = (plan, plan.video)
        let picture = try Compositor(p, steady: true)
        try await SmartTrack(plan: smart, video: v).run(into: input, seek: { n throws(MixWriteError) in
            try picture.seek(to: v.time(ofFrame: n))
        }, make: { n, frame throws(MixWriteError) in
            let output = try picture.compose(at: v.time(ofFrame: n))
            do { try frame.copyPlanes(from: output) } catch { throw MixWriteError.processing(error, file: nil) }
        })
        smart.recordDamage()
        return picture.damagedPackets + smart.damagedPackets
    }
}

extension SequenceStage {
    /// A concat rendered smart: the clips' copied GOPs beside the encoded spans' pieces and crossings (`SmartTrack`).
    func runSmart(_ smart: SmartPlan, into input: AssetWriterInput) async throws -> Int {
        let p = plan
        let readers = PieceReaders(plan: p)
        // The pieces' readers seek on their own where a span starts (PieceReaders).
        try await SmartTrack(plan: smart, video: p.video).run(into: input, seek: { _ throws(MixWriteError) in }) { n, frame throws(MixWriteError) in
            try readers.picture(ofFrame: n, into: frame)
        }
        smart.recordDamage()
        return readers.close() + smart.damagedPackets
    }
}

/// One smart track (`SmartPlan`): each copied span is its input's packets as they are, each encoded span the stage's
/// pictures through an encoder of its own (an IDR first), all in one track: H.264's configuration record holds every
/// set (the encoder's by `spsID`); HEVC's GOPs each lead with their own stream's sets, in-band. Every packet is timed
/// on the output's frame grid: its picture's frame, and a decode time one frame after the one before, `delay` frames
/// back (the deeper of the inputs' and the encoder's reordering), so that no picture shows before it is decoded.
struct SmartTrack {
    let plan: SmartPlan
    let video: VideoPlan

    /// Runs every span: `seek(n)` before an encoded span from output frame n, `make(n, frame)` for each of its
    /// pictures (on FramesAhead's thread). A copied packet that cannot be read ends the render (the input changed since
    /// its GOPs were read: `GOPScan` read every packet).
    func run(into input: AssetWriterInput, seek: (Int) throws(MixWriteError) -> Void,
             make: @escaping (Int, Frame) throws(MixWriteError) -> Void) async throws {
        var settings = video.encoding
        (settings.stitchable, settings.spsID) = (true, plan.spsID)
        var fresh: VideoEncoder? = try VideoEncoder(settings)
        let parameters = fresh!.parameters
        // HEVC: each GOP led by its own stream's sets (`led`); the first input's record is the track's (a record, as
        // the muxer wants beside length-prefixed packets; which one matters only until the first GOP's sets).
        var encoderSets: HVCConfig?
        switch plan.config {
        case .avc(let inputs):
            guard let own = AVCConfig(annexB: parameters.extradata), let record = inputs.combined(with: own) else {
                throw MixWriteError.processing(file: nil, "smart rendering: the H.264 encoder's parameter sets do not sit beside the inputs'")
            }
            try await input.start(try parameters.replacingExtradata(record.bytes))
        case .hevc(let first):
            guard let own = HVCConfig(annexB: parameters.extradata) else {
                throw MixWriteError.processing(file: nil, "smart rendering: the HEVC encoder gave no parameter sets")
            }
            encoderSets = own
            try await input.start(try parameters.replacingExtradata(first.record).inBand())
        case nil:
            throw MixWriteError.processing(file: nil, "smart rendering: no input's record")
        }
        var timing = SmartTiming(delay: max(plan.delay, parameters.videoDelay), firstFrame: video.firstFrame)
        var copier: SourceCopier?
        let buffers = try (0..<3).map { _ in try Frame(width: video.width, height: video.height, pixelFormat: .yuv420p) }
        for span in plan.spans {
            try Task.checkCancellation()
            switch span {
            case .copy(let frames, let source):
                if copier?.source != source { copier = try SourceCopier(plan.sources[source], index: source, rate: video.frameRate) }
                let sets = plan.inBandSets[source]
                try await copier!.copy(frames) { packet, frame in
                    try await input.append(try timing.place(SmartTrack.led(packet, by: sets), frame: frame))
                }
            case .encode(let frames):
                let encoder = try fresh ?? VideoEncoder(settings)
                fresh = nil
                try seek(frames.lowerBound)
                let ahead = FramesAhead(frames, buffers: buffers, make: video.drawingCaptions(make))
                defer { ahead.stop() }
                let first = Int64(frames.lowerBound)
                try await ahead.encodeAll(with: encoder, pts: { first + $0 }) { packet in
                    var p = packet
                    p.data = H264.lengthPrefixed(annexB: packet.data)
                    try await input.append(try timing.place(SmartTrack.led(p, by: encoderSets), frame: Int(packet.pts ?? first)))
                }
                ahead.stop()
            }
        }
        try await input.finish()
    }

    /// An HEVC packet whose picture starts a GOP (an IRAP picture), led by `sets` unless it has a VPS of its own, so
    /// that a decoder starting there (a seek) has its stream's sets; any other packet, or any without `sets`, as it is.
    static func led(_ packet: EncodedPacket, by sets: HVCConfig?) -> EncodedPacket {
        guard let sets, let units = H264.units(packet.data, lengthSize: sets.lengthSize),
              units.contains(where: { HEVC.isIRAP(HEVC.type($0)) }),
              !units.contains(where: { HEVC.type($0) == HEVC.vps }) else { return packet }
        var p = packet
        p.data = sets.leadingUnits + packet.data
        return p
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

/// An input's video packets in decode order, for the spans a smart render copies: its n-th packet is its n-th frame's
/// decode slot, output frame n + `offset` (`GOPScan` checked that GOPs and frames line up so). Read by `PacketReader`,
/// whose times are on the file's own timeline less its start.
final class SourceCopier {
    let source: Int
    private let reader: PacketReader
    private let rate: Rational
    private let offset: Int
    private var read = 0

    init(_ s: SmartPlan.Source, index: Int, rate: Rational) throws(MixWriteError) {
        guard let stream = s.file.mainVideo else { throw .input(file: s.file.path, "has no video stream") }
        (source, reader, self.rate, offset) = (index, try PacketReader(file: s.file, stream: stream), rate, s.offset)
    }

    /// Hands the packets of output frames `frames` to `append`, each with its picture's output frame.
    func copy(_ frames: Range<Int>, append: (EncodedPacket, Int) async throws -> Void) async throws {
        while read + offset < frames.upperBound {
            guard let packet = reader.next() else {
                throw MixWriteError.input(file: reader.file.path, "ended at packet \(read) while its GOP up to frame \(frames.upperBound - offset) was copied (changed since it was read?)")
            }
            defer { read += 1 }
            guard read + offset >= frames.lowerBound else { continue }
            let t = MediaTime(ticks: packet.pts ?? 0, timeBase: reader.stream.timeBase)
            try await append(packet, Int(t.ticks(in: rate.inverted)) + offset)
        }
    }
}
