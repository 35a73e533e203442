import FFmpegSupport

/// The video of a blend: fx and base read at each output time, fx keyed over base, H.264 to the writer.
struct BlendStage: Sendable {
    struct Plan: Sendable {
        var fx: MediaFile
        var base: MediaFile
        var width: Int
        var height: Int
        var frameRate: Rational
        var frameCount: Int
        var color: ColorDescription
        var key: KeySettings
        var crf: Int
        var preset: String
        /// Fail at the first damaged packet instead of skipping it.
        var strict: Bool
        var fit: Fit = .stretch
        var threads = 0
        /// The output's first frame is this frame of the whole blend (an excerpt's start).
        var firstFrame = 0

        /// How long the blend lasts: `frameCount` frames.
        var length: MediaTime { MediaTime(frames: Int64(frameCount), rate: frameRate) }

        /// Only `frames` of the whole blend.
        mutating func cut(to frames: Range<Int>) {
            firstFrame = frames.lowerBound
            frameCount = frames.count
        }
    }

    let plan: Plan

    /// Runs to the end, then marks the track finished. Returns the count of damaged packets skipped.
    func run(into input: AssetWriterInput) async throws -> Int {
        let p = plan
        let encoder = try H264Encoder(.init(width: p.width, height: p.height, frameRate: p.frameRate, crf: p.crf,
                                            preset: p.preset, color: p.color, threads: p.threads, globalHeader: true))
        try await input.start(encoder.parameters)
        let picture = try Compositor(p)
        if p.firstFrame > 0 { try picture.seek(to: MediaTime(frames: Int64(p.firstFrame), rate: p.frameRate)) }
        for n in 0..<p.frameCount {
            try Task.checkCancellation()
            let output = try picture.compose(at: MediaTime(frames: Int64(p.firstFrame + n), rate: p.frameRate))
            for packet in try encoder.encode(output, pts: Int64(n)) { try await input.append(packet.lastingOneTickAtLeast) }
        }
        for packet in try encoder.finish() { try await input.append(packet.lastingOneTickAtLeast) }
        try await input.finish()
        return picture.damagedPackets
    }

    /// The blended picture at output time `t`, as RGB24 (for a PNG preview), drawn as GPUImage draws it on
    /// screen: every pixel its own chroma and alpha (`ChromaKeyBlend.blendPicture`).
    static func picture(_ p: Plan, at t: MediaTime) throws(MixWriteError) -> Frame {
        var lenient = p
        lenient.strict = false   // a preview shows what can be decoded
        let compositor = try Compositor(lenient)
        try compositor.seek(to: t)
        return try compositor.composeRGB(at: t)
    }

    /// fx's and base's readers and the keyer: the picture at any output time.
    private final class Compositor {
        let fx: VideoTrackReader
        let base: VideoTrackReader
        let basePath: String
        let keyer: ChromaKeyBlend
        let output: Frame

        init(_ p: Plan) throws(MixWriteError) {
            fx = try VideoTrackReader(file: p.fx, width: p.width, height: p.height, color: p.color,
                                      outputFrameRate: p.frameRate, fit: p.fit, strict: p.strict)
            base = try VideoTrackReader(file: p.base, width: p.width, height: p.height, color: p.color,
                                        outputFrameRate: p.frameRate, fit: p.fit, strict: p.strict)
            basePath = p.base.path
            keyer = ChromaKeyBlend(settings: p.key, color: p.color)
            do { output = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p) } catch {
                throw .processing(file: nil, "cannot allocate the output picture: \(error.description)")
            }
        }

        var damagedPackets: Int { fx.damagedPackets + base.damagedPackets }

        func seek(to t: MediaTime) throws(MixWriteError) {
            try fx.seek(to: t)
            try base.seek(to: t)
        }

        /// Base (its last picture held past its end) with fx keyed over it; past fx's end, base alone.
        func compose(at t: MediaTime) throws(MixWriteError) -> Frame {
            let (fxPicture, basePicture) = try pictures(at: t)
            do {
                try output.makeWritable()
                if let fxPicture {
                    keyer.blend(fx: fxPicture, base: basePicture, into: output)
                } else {
                    try output.copyPicture(from: basePicture)
                }
            } catch {
                throw .processing(file: nil, "the output picture: \(error.description)")
            }
            return output
        }

        /// The same picture as RGB24, every pixel blended on its own.
        func composeRGB(at t: MediaTime) throws(MixWriteError) -> Frame {
            let (fxPicture, basePicture) = try pictures(at: t)
            let rgb: Frame
            do { rgb = try Frame(width: output.width, height: output.height, pixelFormat: .rgb24) } catch {
                throw .processing(file: nil, "the RGB picture: \(error.description)")
            }
            basePicture.withYUVPlanes { b in
                // Past fx's end, base over itself: base, whatever the alpha.
                let fx = fxPicture ?? basePicture
                fx.withYUVPlanes { f in self.keyer.blendPicture(fx: f, base: b, into: rgb.plane(0), stride: rgb.stride(0)) }
            }
            return rgb
        }

        /// Right after a seek, the two inputs are decoded side by side (up to a GOP each); then one after the other.
        private func pictures(at t: MediaTime) throws(MixWriteError) -> (fx: Frame?, base: Frame) {
            let (fxPicture, basePicture): (Frame?, Frame?)
            if fx.seeked || base.seeked {
                (fxPicture, basePicture) = try VideoTrackReader.pictures(fx: fx, base: base, at: t)
            } else {
                basePicture = try base.picture(at: t, hold: true)
                fxPicture = try fx.picture(at: t, hold: false)
            }
            guard let basePicture else {
                throw .input(file: basePath, "video stream #\(base.stream.index) has no decodable picture")
            }
            return (fxPicture, basePicture)
        }
    }
}

extension EncodedPacket {
    /// One tick at least: the muxer needs the last frame's length.
    var lastingOneTickAtLeast: EncodedPacket {
        var p = self
        if p.duration <= 0 { p.duration = 1 }
        return p
    }
}
