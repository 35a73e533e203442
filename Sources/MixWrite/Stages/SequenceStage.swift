import FFmpegSupport

/// The video of `concat` (clips end to end) and of `still` (one picture): each piece read upright, fitted
/// into the output frame and encoded as one H.264 stream.
struct SequenceStage: VideoStage {
    struct Piece: Sendable {
        var file: MediaFile
        /// Output frames this piece fills.
        var frames: Int
    }

    struct Plan: EncodingPlan {
        var pieces: [Piece]
        /// The output picture; its frames are the pieces', a window of them for a part or an excerpt.
        var video: VideoPlan
        /// The length of the last frame, when the output must end between two frame times (a still as
        /// long as its audio); nil: one frame.
        var lastFrameTicks: Int64?
        /// Encoder ticks a frame: 1, or finer when the last frame is cut short (the encoder's time base follows).
        var ticksPerFrame: Int64 = 1
        /// A still: the picture is read once and flattened on this background (RGB in 0 … 1).
        var background: (r: Double, g: Double, b: Double)?

        init(pieces: [Piece], video: VideoPlan, lastFrameTicks: Int64? = nil, ticksPerFrame: Int64 = 1,
             background: (r: Double, g: Double, b: Double)? = nil) {
            (self.pieces, self.video, self.lastFrameTicks, self.ticksPerFrame, self.background) =
                (pieces, video, lastFrameTicks, ticksPerFrame, background)
            self.video.wholeFrameCount = pieces.reduce(0) { $0 + $1.frames }
            self.video.frames = 0..<self.video.wholeFrameCount
            let rate = video.frameRate
            if ticksPerFrame != 1 { self.video.encoding.timeBase = Rational(rate.den, Int32(Int64(rate.num) * ticksPerFrame)).reduced() }
        }

        var wholeFrameCount: Int { video.wholeFrameCount }

        /// A piece's reader, for the render and the page's preview alike: a still's picture flattened on its
        /// background, or a clip's frames by output time; upright, fitted, in the output's colour.
        func reader(for piece: Piece) throws(MixWriteError) -> any PictureSource {
            let v = video
            if let background {
                return try StillPicture(file: piece.file, width: v.width, height: v.height, color: v.color, fit: v.fit, background: background)
            }
            return try VideoTrackReader(file: piece.file, width: v.width, height: v.height, color: v.color, outputFrameRate: v.frameRate,
                                        fit: v.fit, strict: v.strict)
        }
    }

    let plan: Plan

    func run(into input: AssetWriterInput) async throws -> Int {
        let p = plan
        let encoder = try VideoEncoder(p.video.encoding)
        try await input.start(encoder.parameters)
        let output = try Frame(width: p.video.width, height: p.video.height, pixelFormat: .yuv420p)
        var damaged = 0
        var index: Int64 = 0
        let window = p.video.frames
        var pieceStart = 0
        for piece in p.pieces {
            defer { pieceStart += piece.frames }
            // The piece's frames inside the window; a part that starts inside a piece seeks into it.
            let first = max(0, window.lowerBound - pieceStart), end = min(piece.frames, window.upperBound - pieceStart)
            guard first < end else { continue }
            let reader = try p.reader(for: piece)
            if first > 0, let movie = reader as? VideoTrackReader { try movie.seek(to: MediaTime(frames: Int64(first), rate: p.video.frameRate)) }
            for n in first..<end {
                try Task.checkCancellation()
                guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: p.video.frameRate), hold: true) else {
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

    var written: WrittenVideo { plan.video.written }

    /// Every frame lasts one frame; the sequence's last may be cut short to end with the sound (not a window's
    /// last frame before the end).
    private func timed(_ packet: EncodedPacket) -> EncodedPacket {
        var packet = packet
        let endsSequence = plan.video.frames.upperBound == plan.wholeFrameCount
        let isLast = endsSequence && (packet.pts ?? 0) == Int64(plan.video.frameCount - 1) * plan.ticksPerFrame
        packet.duration = isLast ? (plan.lastFrameTicks ?? plan.ticksPerFrame) : plan.ticksPerFrame
        return packet
    }
}
