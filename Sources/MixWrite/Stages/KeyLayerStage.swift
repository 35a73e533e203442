import FFmpegSupport

/// The video of `mixwrite key`: fx's picture with the key's matte as its alpha (`MattedPictures`: with GPUImage's
/// keyer fx's own colour, despilled when asked, and opacity 1 − the key's alpha, the keyer's own per-pixel alpha at
/// the edges; with the fine keyer its unmixed colour and matte), for an editor to lay over anything: the layer laid
/// over a base by its alpha gives the blend's picture.
struct KeyLayerStage: VideoStage {
    struct Plan: EncodingPlan {
        var fx: MediaFile
        var video: VideoPlan
        var key: KeySettings
    }

    let plan: Plan

    var written: WrittenVideo { plan.video.written }

    func run(into input: AssetWriterInput) async throws -> Int {
        let p = plan
        var settings = p.video.encoding
        settings.alpha = true
        let encoder = try VideoEncoder(settings)
        try await input.start(encoder.parameters)
        let reader = try VideoTrackReader(file: p.fx, width: p.video.width, height: p.video.height, color: p.video.color,
                                          outputFrameRate: p.video.frameRate, fit: p.video.fit, strict: p.video.strict)
        let keyer = ChromaKeyBlend(settings: p.key, color: p.video.color)
        // The fine keyer's colour is each pixel's own: written so (the encoder brings it to the codec's 4:4:4 or 4:2:0).
        let plate = try p.key.cleanPlate.map { (path) throws(MixWriteError) in
            try CleanPlate.read(path, width: p.video.width, height: p.video.height, color: p.video.color, fit: p.video.fit)
        }
        let matted = try MattedPictures(key: p.key, color: p.video.color, width: p.video.width, height: p.video.height, fullChroma: true,
                                        plate: plate)
        for n in 0..<p.video.frameCount {
            try Task.checkCancellation()
            guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: p.video.frameRate), hold: true) else {
                throw MixWriteError.input(file: p.fx.path, "has no decodable picture")
            }
            let layer: Frame
            do { layer = try matted.matted(picture, keyer: keyer, run: n == 0 ? .first : .next) } catch {
                throw MixWriteError.processing(file: nil, "the layer's picture: \(error.description)")
            }
            for packet in try encoder.encode(layer, pts: Int64(n)) { try await input.append(packet.lastingOneTickAtLeast) }
        }
        for packet in try encoder.finish() { try await input.append(packet.lastingOneTickAtLeast) }
        try await input.finish()
        return reader.damagedPackets
    }
}
