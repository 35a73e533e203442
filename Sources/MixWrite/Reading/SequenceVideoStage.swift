import FFmpegSupport

/// The video of `concat` (clips end to end) and of `still` (one picture): each piece read upright, fitted
/// into the output frame and encoded as one H.264 stream.
struct SequenceVideoStage: Sendable {
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

        var frameCount: Int { pieces.reduce(0) { $0 + $1.frames } }
    }

    let plan: Plan
    let slot: Int

    func run(writer: AssetWriter) async throws -> Int {
        let p = plan
        let timeBase = Rational(p.frameRate.den, Int32(Int64(p.frameRate.num) * p.ticksPerFrame)).reduced()
        let encoder: Encoder
        do {
            var settings = Encoder.VideoSettings(width: p.width, height: p.height, frameRate: p.frameRate, crf: p.crf,
                                                 preset: p.preset, color: p.color, threads: p.threads,
                                                 globalHeader: writer.wantsGlobalHeader, keyframeInterval: p.keyframeInterval)
            settings.timeBase = timeBase
            encoder = try Encoder(video: settings)
        } catch {
            throw MixWriteError.processing(file: nil, "cannot open the H.264 encoder (\(error.message.lowercased()))")
        }
        try await writer.addTrack(slot, parameters: encoder.streamParameters())
        let output = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p)
        let packet = Packet()
        var damaged = 0
        var index: Int64 = 0
        let total = Int64(p.frameCount)
        for piece in p.pieces {
            let reader: any PictureSource
            if let background = p.background {
                reader = try StillPicture(file: piece.file, width: p.width, height: p.height, color: p.color,
                                          fit: p.fit, background: background)
            } else {
                reader = try VideoReader(file: piece.file, width: p.width, height: p.height, color: p.color,
                                         outputFrameRate: p.frameRate, fit: p.fit, strict: p.strict)
            }
            for n in 0..<piece.frames {
                try Task.checkCancellation()
                let t = MediaTime(value: Int64(n) * Int64(p.frameRate.den), timescale: p.frameRate.num)
                let picture: Frame?
                do { picture = try reader.picture(at: t, hold: true) } catch let e as MixWriteError { throw e } catch {
                    throw MixWriteError.processing(error, file: piece.file.path)
                }
                guard let picture else {
                    throw MixWriteError.input(file: piece.file.path, "has no decodable picture")
                }
                try output.makeWritable()
                copyPicture(picture, into: output)
                output.pts = index * p.ticksPerFrame
                try encoder.send(output)
                index += 1
                try await send(encoder, packet, writer, lastIndex: total - 1)
            }
            damaged += reader.damagedPackets
        }
        try encoder.send(nil)
        try await send(encoder, packet, writer, lastIndex: total - 1)
        try await writer.finishTrack(slot)
        return damaged
    }

    private func send(_ encoder: Encoder, _ packet: Packet, _ writer: AssetWriter, lastIndex: Int64) async throws {
        while case .value = try encoder.receive(into: packet) {
            var encoded = packet.encoded
            let isLast = (encoded.pts ?? 0) == lastIndex * plan.ticksPerFrame
            encoded.duration = isLast ? (plan.lastFrameTicks ?? plan.ticksPerFrame) : plan.ticksPerFrame
            try await writer.append(encoded, to: slot)
        }
    }
}

/// What the sequence stage reads pictures from: a clip, or a still picture.
protocol PictureSource: AnyObject {
    func picture(at t: MediaTime, hold: Bool) throws -> Frame?
    var damagedPackets: Int { get }
}

extension VideoReader: PictureSource {}
