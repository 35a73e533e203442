import FFmpegSupport

/// The video half of a blend: decodes fx and base, brings both to the output size, frame rate and
/// colour, keys fx over base and encodes H.264 for the writer.
struct BlendVideoStage: Sendable {
    struct Plan: Sendable {
        var fx: MediaFile
        var base: MediaFile
        var width: Int
        var height: Int
        var frameRate: Rational
        var frameCount: Int
        var color: ColorDescription
        var key: ChromaKeyBlend.Settings
        var crf: Int
        var preset: String
        /// Past the end of base, hold its last picture (`--duration longest` or `fx`).
        var holdBase: Bool
        /// Fail at the first damaged packet instead of skipping it.
        var strict: Bool
        var fit: Fit = .stretch
        var threads = 0
    }

    let plan: Plan
    let slot: Int

    /// Runs to the end, then marks the track finished. Returns the count of damaged packets skipped.
    func run(writer: AssetWriter) async throws -> Int {
        let p = plan
        let encoder: Encoder
        do {
            encoder = try Encoder(video: .init(width: p.width, height: p.height, frameRate: p.frameRate, crf: p.crf,
                                               preset: p.preset, color: p.color, threads: p.threads,
                                               globalHeader: writer.wantsGlobalHeader))
        } catch {
            throw MixWriteError.processing(file: nil, "cannot open the H.264 encoder (\(error.message.lowercased()))")
        }
        try await writer.addTrack(slot, parameters: encoder.streamParameters())

        let fx = try VideoReader(file: p.fx, width: p.width, height: p.height, color: p.color, outputFrameRate: p.frameRate,
                                 fit: p.fit, strict: p.strict)
        let base = try VideoReader(file: p.base, width: p.width, height: p.height, color: p.color, outputFrameRate: p.frameRate,
                                   fit: p.fit, strict: p.strict)
        let keyer = ChromaKeyBlend(settings: p.key, color: p.color)
        let output = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p)
        let packet = Packet()

        for n in 0..<p.frameCount {
            try Task.checkCancellation()
            let t = MediaTime(value: Int64(n) * Int64(p.frameRate.den), timescale: p.frameRate.num)
            let basePicture: Frame?
            do { basePicture = try base.picture(at: t, hold: true) } catch {
                throw MixWriteError.processing(error, file: p.base.path)
            }
            guard let basePicture else {
                throw MixWriteError.input(file: p.base.path, "video stream #\(base.stream.index) has no decodable picture")
            }
            let fxPicture: Frame?
            do { fxPicture = try fx.picture(at: t, hold: false) } catch {
                throw MixWriteError.processing(error, file: p.fx.path)
            }
            try output.makeWritable()
            if let fxPicture {
                keyer.blend(fx: fxPicture, base: basePicture, into: output)
            } else {
                copyPicture(basePicture, into: output)
            }
            output.pts = Int64(n)
            try encoder.send(output)
            try await sendPackets(encoder, packet, writer)
        }
        try encoder.send(nil)
        try await sendPackets(encoder, packet, writer)
        try await writer.finishTrack(slot)
        return fx.damagedPackets + base.damagedPackets
    }

    /// The blended picture at output time `t`, as RGB24 (for a PNG preview).
    static func picture(_ p: Plan, at t: MediaTime) throws -> Frame {
        let fx = try VideoReader(file: p.fx, width: p.width, height: p.height, color: p.color, outputFrameRate: p.frameRate, fit: p.fit)
        let base = try VideoReader(file: p.base, width: p.width, height: p.height, color: p.color, outputFrameRate: p.frameRate, fit: p.fit)
        try fx.seek(to: t)
        try base.seek(to: t)
        guard let basePicture = try base.picture(at: t, hold: true) else {
            throw MixWriteError.input(file: p.base.path, "video stream #\(base.stream.index) has no decodable picture")
        }
        let output = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p)
        if let fxPicture = try fx.picture(at: t, hold: false) {
            ChromaKeyBlend(settings: p.key, color: p.color).blend(fx: fxPicture, base: basePicture, into: output)
        } else {
            copyPicture(basePicture, into: output)
        }
        let rgb = try Frame(width: p.width, height: p.height, pixelFormat: .rgb24)
        let toRGB = try Scaler(from: .init(width: p.width, height: p.height, format: .yuv420p, color: p.color),
                               to: .init(width: p.width, height: p.height, format: .rgb24,
                                         color: ColorDescription(matrix: p.color.matrix, fullRange: true)),
                               accurate: false)
        try toRGB.scale(output, into: rgb)
        return rgb
    }

    private func sendPackets(_ encoder: Encoder, _ packet: Packet, _ writer: AssetWriter) async throws {
        while case .value = try encoder.receive(into: packet) {
            var encoded = packet.encoded
            // One frame each: the muxer needs it for the last frame's length.
            if encoded.duration <= 0 { encoded.duration = 1 }
            try await writer.append(encoded, to: slot)
        }
    }
}

/// Copies a yuv420p picture's planes into another of the same size.
func copyPicture(_ source: Frame, into destination: Frame) {
    let w = destination.width, h = destination.height
    for plane in 0..<3 {
        let rows = plane == 0 ? h : (h + 1) / 2
        let bytes = plane == 0 ? w : (w + 1) / 2
        let s = source.plane(plane), d = destination.plane(plane)
        let ss = source.stride(plane), ds = destination.stride(plane)
        for y in 0..<rows { (d + y * ds).update(from: s + y * ss, count: bytes) }
    }
}
