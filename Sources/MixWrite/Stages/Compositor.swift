import FFmpegSupport
import Foundation

/// fx's and base's readers and the keyer: the blend's picture at any output time. The one compositor: the blend
/// stage encodes its pictures, `BlendStage.picture` draws one in RGB (`--frame`), and the tuning page's preview keys
/// one time's pictures again with each change of the key (`key`, `compose(fx:base:)`). An fx with its own alpha
/// (`Plan.byAlpha`) is read with it and composited by it (`AlphaBlend`) instead of keyed. With `Plan.hdr` (`--hdr
/// keep`) base stays HDR in 10 bits, fx is read in SDR BT.709, keyed there (or composited by its own alpha) and
/// placed into HDR (`SDRToHDR`, `HDRBlend`).
final class Compositor {
    /// fx's layers, in the order they are laid (the blend's FX first).
    let layers: [LayerSource]
    /// What the layers are laid over: base's reader, or a timeline's bottom track (`BlendStage.Plan.under`).
    let base: any PictureSource
    /// base's reader when base is a file: sought with the layers, and read beside a single fx after a seek.
    let baseReader: VideoTrackReader?
    let basePath: String
    /// What of base had no picture, for the message (its stream).
    private let baseName: String
    /// The colour fx is keyed in: the output's, or with `--hdr keep` SDR BT.709.
    let color: ColorDescription
    let output: Frame
    /// A whole-frame layer laid over another's picture is keyed into this one (the keyer does not work in place).
    private var scratch: Frame?
    /// `--hdr keep`'s parts: fx placed into HDR, the key's alpha, fx's colour before it is lifted, and a placed layer
    /// drawn on the whole frame.
    private let hdr: (lift: SDRToHDR, alpha: KeyAlpha, sdr: Frame, canvas: Frame?)?

    /// `steady`: the pictures are a render's, composed in order (a seek between runs; a timeline page's, each after a
    /// seek): the fine keyer's matte is steadied over them (`MattedPictures.Run`); else each is keyed alone, or after
    /// its layer's `before` (the blend page's, which keys one time again and again).
    init(_ p: BlendStage.Plan, steady: Bool = false) throws(MixWriteError) {
        color = p.hdr == nil ? p.video.color : ColorDescription(matrix: .bt709, fullRange: false)
        var layers: [LayerSource] = []
        for layer in p.layers {
            let source = try LayerSource(layer, video: p.video, color: color)
            source.steady = steady
            layers.append(source)
        }
        self.layers = layers
        if let under = p.under {
            (base, baseReader) = (try SequencePictures(under), nil)
        } else {
            let reader = try VideoTrackReader(file: p.base, width: p.video.width, height: p.video.height, color: p.video.color,
                                              outputFrameRate: p.video.frameRate, fit: p.video.fit, strict: p.video.strict, keepHDR: p.hdr != nil)
            (base, baseReader) = (reader, reader)
        }
        basePath = p.base.path
        baseName = p.under == nil ? "video stream #\(baseReader?.stream.index ?? 0)" : "the bottom video track"
        let (w, h) = (p.video.width, p.video.height)
        do {
            output = try Frame(width: w, height: h, pixelFormat: VideoPlan.pictureFormat(hdr: p.hdr))
            hdr = try p.hdr.map { (transfer) throws(FFmpegError) in
                (SDRToHDR(transfer: transfer, from: .bt709), try KeyAlpha(width: w, height: h), try Frame(width: w, height: h, pixelFormat: .yuv420p),
                 p.layers.contains { $0.place != nil } ? try Frame(width: w, height: h, pixelFormat: .yuva420p) : nil)
            }
        } catch {
            throw .processing(file: nil, "cannot allocate the output picture: \(error.description)")
        }
    }

    var damagedPackets: Int { layers.reduce(base.damagedPackets) { $0 + $1.reader.damagedPackets } }

    /// The blend's FX (the first layer): its reader, keyer and compositing, which the preview tunes.
    var fx: VideoTrackReader { layers[0].reader }
    var keyer: ChromaKeyBlend { layers[0].keyer }
    var byAlpha: Bool { layers[0].plan.byAlpha }

    /// The FX's key; a new one builds the keyer's tables again.
    var key: KeySettings {
        get { layers[0].key }
        set { layers[0].key = newValue }
    }

    func seek(to t: MediaTime) throws(MixWriteError) {
        for layer in layers { try layer.seek(to: t) }
        try baseReader?.seek(to: t)
    }

    /// Base (its last picture held past its end) with each layer laid over it where it shows.
    func compose(at t: MediaTime) throws(MixWriteError) -> Frame {
        if layers.count == 1 && layers[0].isWholeFrame {
            let (pictures, basePicture) = try pictures(at: t)
            return try compose(layers: pictures, base: basePicture)
        }
        let (laid, basePicture) = try laidPictures(at: t)
        return try compose(layers: laid, base: basePicture, keyed: true)
    }

    /// The pictures at `t` as they are laid: base and each layer (read, and a placed one keyed and scaled) side by
    /// side on the cores (each reader and keyer is used by one thread only; all are done on return).
    private func laidPictures(at t: MediaTime) throws(MixWriteError) -> (layers: [Frame?], base: Frame) {
        let results = UnsafeMutableBufferPointer<Result<Frame?, MixWriteError>>.allocate(capacity: layers.count + 1)
        results.initialize(repeating: .success(nil))
        defer { results.deinitialize(); results.deallocate() }
        for layer in layers { layer.showing = t }
        nonisolated(unsafe) let (base, layers, out) = (self.base, self.layers, results)
        DispatchQueue.concurrentPerform(iterations: layers.count + 1) { i in
            if i == layers.count {
                out[i] = Result { () throws(MixWriteError) in try base.picture(at: t, hold: true) }
                return
            }
            let layer = layers[i]
            out[i] = Result { () throws(MixWriteError) in
                let picture = try layer.picture(at: t)
                guard let picture, !layer.isWholeFrame else { return picture }
                do throws(FFmpegError) { return try layer.placedPicture(picture) } catch {
                    throw .processing(file: layer.plan.fx.path, "the layer's picture: \(error.description)")
                }
            }
        }
        guard let basePicture = try results[layers.count].get() else {
            throw .input(file: basePath, "\(baseName) has no decodable picture")
        }
        var laid: [Frame?] = []
        for i in layers.indices { laid.append(try results[i].get()) }
        return (laid, basePicture)
    }

    /// The layers' pictures (nil where one does not show) laid over `base`, in order; base alone without any.
    /// `keyed`: the placed layers' pictures are already keyed and scaled (`LayerSource.placedPicture`).
    func compose(layers pictures: [Frame?], base basePicture: Frame, keyed: Bool = false) throws(MixWriteError) -> Frame {
        do {
            try output.makeWritable()
            var under = basePicture
            for (layer, picture) in zip(layers, pictures) {
                guard var picture else { continue }
                if !keyed && !layer.isWholeFrame { picture = try layer.placedPicture(picture) }
                under = try hdr == nil ? lay(layer, picture, over: under) : layHDR(layer, picture, over: under)
            }
            if under === basePicture { try output.copyPlanes(from: basePicture) } else if under !== output { try output.copyPlanes(from: under) }
        } catch {
            throw .processing(file: nil, "the output picture: \(error.description)")
        }
        return output
    }

    /// `fx` keyed over `base` into `output` (base alone without fx): the FX alone, as the preview tunes it.
    func compose(fx fxPicture: Frame?, base basePicture: Frame) throws(MixWriteError) -> Frame {
        try compose(layers: [fxPicture] + Array(repeating: nil, count: layers.count - 1), base: basePicture)
    }

    /// One SDR layer over `under` (a placed one's picture keyed and scaled); returns the picture it made (`output` or
    /// `scratch`).
    private func lay(_ layer: LayerSource, _ picture: Frame, over under: Frame) throws(FFmpegError) -> Frame {
        if let place = layer.plan.place {
            if under !== output { try output.copyPlanes(from: under) }
            AlphaBlend.place(picture, x: place.x, y: place.y, opacity: layer.plan.opacity, clip: layer.plan.clip, over: output)
            return output
        }
        let into: Frame
        if under === output {
            if scratch == nil { scratch = try Frame(width: output.width, height: output.height, pixelFormat: .yuv420p) }
            into = scratch!
            try into.makeWritable()
        } else {
            into = output
        }
        if layer.plan.byAlpha {
            AlphaBlend.blend(fx: picture, base: under, into: into, despill: layer.despill)
        } else if layer.laidByAlpha {
            try layer.lay(picture, over: under, into: into)
        } else {
            layer.keyer.blend(fx: picture, base: under, into: into)
        }
        return into
    }

    /// One layer placed into HDR over `under` (10 bits) into `output`: fx's own colour (despilled if asked: the keyer's
    /// table, as for SDR), lifted into HDR, then laid by its own alpha or the key's.
    private func layHDR(_ layer: LayerSource, _ picture: Frame, over under: Frame) throws(FFmpegError) -> Frame {
        guard let hdr else { return under }
        if let place = layer.plan.place, let canvas = hdr.canvas {
            AlphaBlend.draw(picture, x: place.x, y: place.y, opacity: layer.plan.opacity, clip: layer.plan.clip, into: canvas)
            try hdr.sdr.copyPicture(from: canvas)
            HDRBlend.blend(fx: try hdr.lift.map(hdr.sdr), base: under, alphaOf: canvas, into: output)
            return output
        }
        if layer.laidByAlpha && !layer.plan.byAlpha {
            let matted = try layer.mattedPicture(picture)
            HDRBlend.blend(fx: try hdr.lift.map(try hdr.sdr.despilled(matted, nil)), base: under, alphaOf: matted, into: output)
            return output
        }
        let despill = layer.despill
        let lifted = try hdr.lift.map(despill == nil && !layer.plan.byAlpha ? picture : try hdr.sdr.despilled(picture, despill))
        if layer.plan.byAlpha {
            HDRBlend.blend(fx: lifted, base: under, alphaOf: picture, into: output)
        } else {
            hdr.alpha.read(layer.keyer, fx: picture)
            HDRBlend.blend(fx: lifted, base: under, alpha: hdr.alpha, into: output)
        }
        return output
    }

    /// The same picture as RGB24: the FX alone over the whole frame keyed with every pixel blended on its own
    /// (GPUImage's drawing); layers, placed or by alpha, the composite itself in RGB.
    func composeRGB(at t: MediaTime) throws(MixWriteError) -> Frame {
        let (pictures, basePicture) = try pictures(at: t)
        let rgb: Frame
        do { rgb = try Frame(width: output.width, height: output.height, pixelFormat: .rgb24) } catch {
            throw .processing(file: nil, "the RGB picture: \(error.description)")
        }
        if layers.count > 1 || layers[0].laidByAlpha || !layers[0].isWholeFrame {
            let picture = try compose(layers: pictures, base: basePicture)
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
            // Where fx does not show, base over itself: base, whatever the alpha.
            let fx = pictures[0] ?? basePicture
            fx.withYUVPlanes { f in self.keyer.blendPicture(fx: f, base: b, into: rgb.plane(0), stride: rgb.stride(0)) }
        }
        return rgb
    }

    /// The decoded pictures at `t` (the readers' own, valid until the next read; nil where a layer does not show).
    /// Right after a seek, a single fx and base are decoded side by side (up to a GOP each); else one after the other.
    func pictures(at t: MediaTime) throws(MixWriteError) -> (layers: [Frame?], base: Frame) {
        for layer in layers { layer.showing = t }
        var pictures: [Frame?] = []
        let basePicture: Frame?
        if layers.count == 1, !layers[0].plan.reverses, let baseReader, fx.seeked || baseReader.seeked, let fxTime = layers[0].plan.fxTime(at: t) {
            let (f, b) = try VideoTrackReader.pictures(fx: fx, at: fxTime, holding: layers[0].plan.isStill, base: baseReader, at: t)
            if layers[0].plan.opaque { f?.makeOpaque() }
            (pictures, basePicture) = ([f], b)
        } else {
            basePicture = try base.picture(at: t, hold: true)
            for layer in layers { pictures.append(try layer.picture(at: t)) }
        }
        guard let basePicture else {
            throw .input(file: basePath, "\(baseName) has no decodable picture")
        }
        return (pictures, basePicture)
    }
}
