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
        /// fx composited by its own alpha (`AlphaBlend`) instead of chroma-keyed.
        var byAlpha = false
        /// `--hdr keep`: base's HDR transfer, kept (10 bits, BT.2020, HEVC); `color` is then BT.2020's.
        var hdr: HDRTransfer?
        /// With `hdr`: base's mastering display and light levels, passed on in the HEVC stream's SEI.
        var light: LightMetadata?
        var crf: Int
        var preset: String
        var codec: VideoCodec = .h264
        var proresProfile: ProResProfile = .hq
        /// Fail at the first damaged packet instead of skipping it.
        var strict: Bool
        var fit: Fit = .stretch
        var threads = 0
        /// The output's first frame is this frame of the whole blend (an excerpt's start).
        var firstFrame = 0
        /// A part of `--parts`: parameter sets that do not depend on the pictures (x264's `stitchable`).
        var stitchable = false

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
        var settings = Encoder.VideoSettings(width: p.width, height: p.height, frameRate: p.frameRate, crf: p.crf,
                                             preset: p.preset, color: p.color, threads: p.threads, globalHeader: true)
        (settings.codec, settings.proresProfile, settings.stitchable) = (p.codec, p.proresProfile, p.stitchable)
        let encoder = try VideoEncoder(settings, hdr: p.hdr, light: p.light)
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

}

extension EncodedPacket {
    /// One tick at least: the muxer needs the last frame's length.
    var lastingOneTickAtLeast: EncodedPacket {
        var p = self
        if p.duration <= 0 { p.duration = 1 }
        return p
    }
}
