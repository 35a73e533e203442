import FFmpegSupport

/// The video of `concat` (clips end to end) and of `still` (one picture): each piece read upright, fitted
/// into the output frame and encoded as one H.264 stream.
struct SequenceStage: Sendable {
    struct Piece: Sendable {
        var file: MediaFile
        /// Output frames this piece fills.
        var frames: Int
    }

    struct Plan: Sendable {
        var pieces: [Piece]
        var width: Int
        var height: Int
        var frameRate: Rational
        var color: ColorDescription
        var fit: Fit
        var crf: Int
        var codec: VideoCodec = .h264
        var proresProfile: ProResProfile = .hq
        var preset: String
        var strict: Bool
        /// The length of the last frame, when the output must end between two frame times (a still as
        /// long as its audio); nil: one frame.
        var lastFrameTicks: Int64?
        /// Time base of the encoder: 1/fps, or finer when the last frame is cut short.
        var ticksPerFrame: Int64 = 1
        /// A still: the picture is read once and flattened on this background (RGB in 0 … 1).
        var background: (r: Double, g: Double, b: Double)?
        var keyframeInterval: Int?
        var threads = 0
        /// Only these frames of the whole sequence (a part of `--parts`, its parameter sets `stitchable`); nil: all.
        var window: Range<Int>?

        /// Frames written: the window's, or the whole sequence's.
        var frameCount: Int { window?.count ?? wholeFrameCount }
        var wholeFrameCount: Int { pieces.reduce(0) { $0 + $1.frames } }
    }

    let plan: Plan

    func run(into input: AssetWriterInput) async throws -> Int {
        let p = plan
        var settings = Encoder.VideoSettings(width: p.width, height: p.height, frameRate: p.frameRate, crf: p.crf,
                                             preset: p.preset, color: p.color, threads: p.threads, globalHeader: true,
                                             keyframeInterval: p.keyframeInterval)
        settings.timeBase = Rational(p.frameRate.den, Int32(Int64(p.frameRate.num) * p.ticksPerFrame)).reduced()
        (settings.codec, settings.proresProfile, settings.stitchable) = (p.codec, p.proresProfile, p.window != nil)
        let encoder = try VideoEncoder(settings)
        try await input.start(encoder.parameters)
        let output = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p)
        var damaged = 0
        var index: Int64 = 0
        let window = p.window ?? 0..<p.wholeFrameCount
        var pieceStart = 0
        for piece in p.pieces {
            defer { pieceStart += piece.frames }
            // The piece's frames inside the window; a part that starts inside a piece seeks into it.
            let first = max(0, window.lowerBound - pieceStart), end = min(piece.frames, window.upperBound - pieceStart)
            guard first < end else { continue }
            let reader = try self.reader(for: piece)
            if first > 0, let movie = reader as? VideoTrackReader { try movie.seek(to: MediaTime(frames: Int64(first), rate: p.frameRate)) }
            for n in first..<end {
                try Task.checkCancellation()
                guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: p.frameRate), hold: true) else {
                    throw MixWriteError.input(file: piece.file.path, "has no decodable picture")
                }
                try output.copyPicture(from: picture)
                for packet in try encoder.encode(output, pts: index * p.ticksPerFrame) { try await input.append(timed(packet)) }
                index += 1
            }
            damaged += reader.damagedPackets
        }
        for packet in try encoder.finish() { try await input.append(timed(packet)) }
        try await input.finish()
        return damaged
    }

    private func reader(for piece: Piece) throws(MixWriteError) -> any PictureSource {
        let p = plan
        if let background = p.background {
            return try StillPicture(file: piece.file, width: p.width, height: p.height, color: p.color, fit: p.fit,
                                    background: background)
        }
        return try VideoTrackReader(file: piece.file, width: p.width, height: p.height, color: p.color,
                                    outputFrameRate: p.frameRate, fit: p.fit, strict: p.strict)
    }

    /// Every frame lasts one frame; the sequence's last may be cut short to end with the sound (not a window's
    /// last frame before the end).
    private func timed(_ packet: EncodedPacket) -> EncodedPacket {
        var packet = packet
        let endsSequence = (plan.window?.upperBound ?? plan.wholeFrameCount) == plan.wholeFrameCount
        let isLast = endsSequence && (packet.pts ?? 0) == Int64(plan.frameCount - 1) * plan.ticksPerFrame
        packet.duration = isLast ? (plan.lastFrameTicks ?? plan.ticksPerFrame) : plan.ticksPerFrame
        return packet
    }
}
