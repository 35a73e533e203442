import FFmpegSupport

/// The video of a blend: fx and base read at each output time, fx keyed over base, H.264 to the writer.
struct BlendStage: VideoStage {
    struct Plan: EncodingPlan {
        /// fx's layers, in order: the blend's FX first.
        var layers: [LayerPlan]
        var base: MediaFile
        /// A timeline's bottom video track (`render`), laid under the layers in base's place; `base` is then only the
        /// file the output's settings came from.
        var under: SequenceStage.Plan?
        var video: VideoPlan
        /// `--hdr keep`: base's HDR transfer, kept (10 bits, BT.2020, HEVC); the colour is then BT.2020's.
        var hdr: HDRTransfer?
        /// With `hdr`: base's mastering display and light levels, passed on in the HEVC stream's SEI.
        var light: LightMetadata?
        /// `--smart`: base's GOPs copied where nothing is laid over them; nil: every frame encoded, not said.
        var smart: SmartPlan?

        /// How long the blend lasts.
        var length: MediaTime { video.length }
        /// The FX (the first layer), its key and whether it is laid by its own alpha: what the preview tunes.
        var fx: MediaFile { layers[0].fx }
        var key: KeySettings { layers[0].key }
        var byAlpha: Bool { layers[0].byAlpha }
    }

    let plan: Plan

    /// Runs to the end, then marks the track finished. Returns the count of damaged packets skipped.
    func run(into input: AssetWriterInput) async throws -> Int {
        if let smart = plan.smart, smart.writesTrack(of: plan.video) {
            return try await runSmart(smart, into: input)
        }
        let (p, v) = (plan, plan.video)
        let encoder = try VideoEncoder(v.encoding, hdr: p.hdr, light: p.light)
        try await input.start(encoder.parameters)
        let picture = try Compositor(p, steady: true)
        // A part or an excerpt starts later; a layer used from later in its fx starts there, not at its first frame.
        if v.firstFrame > 0 || p.layers.contains(where: { $0.from > .zero }) { try picture.seek(to: v.time(ofFrame: v.firstFrame)) }
        // The pictures are composed a picture or two ahead, beside x264's threads (FramesAhead), each copied out of the
        // compositor's own frame.
        let buffers = try (0..<3).map { _ in try Frame(width: v.width, height: v.height, pixelFormat: VideoPlan.pictureFormat(hdr: p.hdr)) }
        let first = v.firstFrame
        let ahead = FramesAhead(0..<v.frameCount, buffers: buffers, make: v.drawingCaptions({ n, frame throws(MixWriteError) in
            let output = try picture.compose(at: v.time(ofFrame: first + n))
            do { try frame.copyPlanes(from: output) } catch { throw MixWriteError.processing(error, file: nil) }
        }, whole: { first + $0 }))
        defer { ahead.stop() }
        try await ahead.encodeAll(with: encoder, pts: { $0 }) { try await input.append($0.lastingOneTickAtLeast) }
        try await input.finish()
        ahead.stop()
        return picture.damagedPackets
    }

    var written: WrittenVideo { plan.video.written(smart: plan.smart) }
    var compositing: String? {
        let each = Set(plan.layers.map { $0.opaque ? "as it is" : $0.byAlpha ? "alpha" : "chroma key" })
        return each.count == 1 ? each.first : "chroma key and alpha"
    }

    /// The blended picture at output time `t`, as RGB24 (for a PNG preview), drawn as GPUImage draws it on
    /// screen: every pixel its own chroma and alpha (`ChromaKeyBlend.blendPicture`).
    static func picture(_ p: Plan, at t: MediaTime) throws(MixWriteError) -> Frame {
        var lenient = p
        lenient.video.strict = false   // a preview shows what can be decoded
        let compositor = try Compositor(lenient, steady: true)
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
