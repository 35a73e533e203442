import FFmpegSupport

/// fx's and base's readers and the keyer: the blend's picture at any output time. The one compositor: the blend
/// stage encodes its pictures, `BlendStage.picture` draws one in RGB (`--frame`), and the tuning page's preview keys
/// one time's pictures again with each change of the key (`key`, `compose(fx:base:)`). An fx with its own alpha
/// (`Plan.byAlpha`) is read with it and composited by it (`AlphaBlend`) instead of keyed. With `Plan.hdr` (`--hdr
/// keep`) base stays HDR in 10 bits, fx is read in SDR BT.709, keyed there (or composited by its own alpha) and
/// placed into HDR (`SDRToHDR`, `HDRBlend`).
final class Compositor {
    let fx: VideoTrackReader
    let base: VideoTrackReader
    let basePath: String
    /// The colour fx is keyed in: the output's, or with `--hdr keep` SDR BT.709.
    let color: ColorDescription
    let byAlpha: Bool
    private(set) var keyer: ChromaKeyBlend
    let output: Frame
    /// `--hdr keep`'s parts: fx placed into HDR, the key's alpha, and fx's colour before it is lifted.
    private let hdr: (lift: SDRToHDR, alpha: KeyAlpha, sdr: Frame)?

    init(_ p: BlendStage.Plan) throws(MixWriteError) {
        color = p.hdr == nil ? p.video.color : ColorDescription(matrix: .bt709, fullRange: false)
        fx = try VideoTrackReader(file: p.fx, width: p.video.width, height: p.video.height, color: color,
                                  outputFrameRate: p.video.frameRate, fit: p.video.fit, strict: p.video.strict, keepAlpha: p.byAlpha)
        byAlpha = p.byAlpha
        base = try VideoTrackReader(file: p.base, width: p.video.width, height: p.video.height, color: p.video.color,
                                    outputFrameRate: p.video.frameRate, fit: p.video.fit, strict: p.video.strict, keepHDR: p.hdr != nil)
        basePath = p.base.path
        keyer = ChromaKeyBlend(settings: p.key, color: color)
        do {
            output = try Frame(width: p.video.width, height: p.video.height, pixelFormat: p.hdr == nil ? .yuv420p : .yuv420p10)
            hdr = try p.hdr.map { (transfer) throws(FFmpegError) in
                (SDRToHDR(transfer: transfer, from: .bt709), try KeyAlpha(width: p.video.width, height: p.video.height),
                 try Frame(width: p.video.width, height: p.video.height, pixelFormat: .yuv420p))
            }
        } catch {
            throw .processing(file: nil, "cannot allocate the output picture: \(error.description)")
        }
    }

    var damagedPackets: Int { fx.damagedPackets + base.damagedPackets }

    /// The key; a new one builds the keyer's tables again.
    var key: KeySettings {
        get { keyer.settings }
        set { if newValue != keyer.settings { keyer = ChromaKeyBlend(settings: newValue, color: color) } }
    }

    func seek(to t: MediaTime) throws(MixWriteError) {
        try fx.seek(to: t)
        try base.seek(to: t)
    }

    /// Base (its last picture held past its end) with fx keyed over it; past fx's end, base alone.
    func compose(at t: MediaTime) throws(MixWriteError) -> Frame {
        let (fxPicture, basePicture) = try pictures(at: t)
        return try compose(fx: fxPicture, base: basePicture)
    }

    /// `fx` keyed over `base` into `output` (base alone without fx).
    func compose(fx fxPicture: Frame?, base basePicture: Frame) throws(MixWriteError) -> Frame {
        do {
            try output.makeWritable()
            if let hdr {
                guard let fxPicture else {
                    try output.copyPlanes(from: basePicture)
                    return output
                }
                // fx's own colour (despilled if asked: the keyer's table, as for SDR), lifted into HDR, then laid
                // over base by its own alpha or the key's.
                let despill = keyer.settings.despill ? keyer.despillTable : nil
                let lifted = try hdr.lift.map(despill == nil && !byAlpha ? fxPicture : try hdr.sdr.despilled(fxPicture, despill))
                if byAlpha {
                    HDRBlend.blend(fx: lifted, base: basePicture, alphaOf: fxPicture, into: output)
                } else {
                    hdr.alpha.read(keyer, fx: fxPicture)
                    HDRBlend.blend(fx: lifted, base: basePicture, alpha: hdr.alpha, into: output)
                }
            } else if let fxPicture, byAlpha {
                AlphaBlend.blend(fx: fxPicture, base: basePicture, into: output,
                                 despill: keyer.settings.despill ? keyer.despillTable : nil)
            } else if let fxPicture {
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
        if byAlpha {
            // By alpha, the composite itself, in RGB.
            let picture = try compose(fx: fxPicture, base: basePicture)
            do {
                let key = Scaler.Key(width: output.width, height: output.height, format: .yuv420p, color: color)
                try Scaler(from: key, to: .init(width: output.width, height: output.height, format: .rgb24, color: color))
                    .scale(picture, into: rgb)
            } catch {
                throw .processing(file: nil, "the RGB picture: \(error.description)")
            }
            return rgb
        }
        basePicture.withYUVPlanes { b in
            // Past fx's end, base over itself: base, whatever the alpha.
            let fx = fxPicture ?? basePicture
            fx.withYUVPlanes { f in self.keyer.blendPicture(fx: f, base: b, into: rgb.plane(0), stride: rgb.stride(0)) }
        }
        return rgb
    }

    /// The decoded pictures at `t` (the readers' own, valid until the next read). Right after a seek, the two
    /// inputs are decoded side by side (up to a GOP each); then one after the other.
    func pictures(at t: MediaTime) throws(MixWriteError) -> (fx: Frame?, base: Frame) {
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
