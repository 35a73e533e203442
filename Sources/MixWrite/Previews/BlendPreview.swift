import FFmpegSupport

/// A blend job held open for tuning (`mixwrite tune`): fx's and base's pictures at one time are decoded once
/// and kept, and each change of the key only keys them again, so a slider move costs a keying and a JPEG,
/// not a seek and a GOP of decoding. Not thread-safe: one owner (the tuning page's actor) uses it.
public final class BlendPreview {
    /// What the page shows.
    public enum View: String, Sendable, CaseIterable {
        /// fx keyed over base, as the movie will have it.
        case composite
        /// What the key keeps of fx as grey: white where fx is kept, black where it is keyed out (base shows).
        case matte
        case fx, base
    }

    /// The job as given; `picture`'s settings replace its key.
    public let job: BlendJob
    public let width: Int
    public let height: Int
    /// The output's length in seconds.
    public let duration: Double
    /// How long fx's video lasts on the output, in seconds (at most `duration`): where fx can be seen.
    public let fxDuration: Double
    /// How long each layer's fx lasts, in its own seconds (the FX first).
    public let layerLengths: [Double]
    public let frameRate: Rational
    /// Every track the mix takes, by its command-line name (`fx:1`, `base:1`, `audio1:1` …), before `mute`.
    public let tracks: [AudioSource]

    private let plan: BlendStage.Plan
    /// The blend's own compositor (its readers and keyer), read leniently: a preview shows what can be decoded.
    private let compositor: Compositor
    /// The pictures at `time`, copied out of the readers (which reuse theirs).
    private var time: MediaTime?
    /// Each layer's picture at `time` (nil where it does not show), the FX's first.
    private var layerPictures: [Frame?] = []
    /// Each layer's picture one output frame before `time` (none at the first frame): what a steadied matte is keyed
    /// after.
    private var earlierPictures: [Frame?] = []
    private let basePicture: Frame
    private let black: Frame
    /// The key's alpha, for the matte.
    private let keyAlpha: KeyAlpha
    private let pictures: JPEGPictures
    /// The caption files drawn into the composite (`--burn-captions`).
    private let captions: PreviewCaptions

    public init(job: BlendJob) throws(MixWriteError) {
        self.job = job
        var everyTrack = job.audio
        everyTrack.mute = []
        var ignored: [String] = []
        var sdr = job
        sdr.hdr = .sdr   // the page's pictures are SDR JPEGs
        let (baseFile, plan) = try sdr.planVideo()
        tracks = try job.audioSources(plan, base: baseFile, extra: job.audio.extraFiles(), audio: everyTrack, strict: false, warnings: &ignored)
        self.plan = plan
        width = plan.video.width
        height = plan.video.height
        frameRate = plan.video.frameRate
        duration = plan.length.seconds
        fxDuration = min(duration, plan.fx.videoDuration?.seconds ?? duration)
        layerLengths = plan.layers.map { $0.fx.videoDuration?.seconds ?? 0 }
        var lenient = plan
        lenient.video.strict = false
        compositor = try Compositor(lenient)
        do {
            basePicture = try Frame(width: width, height: height, pixelFormat: .yuv420p)
            (black, keyAlpha) = (try .flat((16, 128), width: width, height: height), try KeyAlpha(width: width, height: height))
        } catch {
            throw .processing(file: nil, "the preview's pictures: \(error.description)")
        }
        pictures = try JPEGPictures(width: width, height: height, color: plan.video.color)
        captions = PreviewCaptions(try job.burnedCaptions(duration: plan.video.wholeLength), rate: frameRate)
    }

    /// The key the job starts with (`--key-color auto` already picked).
    public var initialKey: KeySettings { plan.key }
    /// The other layers' keys the job starts with (each `auto` already picked), in order.
    public var initialLayerKeys: [KeySettings] { plan.layers.dropFirst().map(\.key) }

    /// The picture at `seconds` (0 ≤ t < duration) with key `settings`, as JPEG bytes (quality 2 … 31, lower is better).
    /// `layerKeys`: the other layers' keys, in order (none given: as the job has them). The composite has the job's
    /// burned captions drawn, as the render draws them on the frame `seconds` falls in.
    public func picture(at seconds: Double, key settings: KeySettings, layerKeys: [KeySettings] = [], view: View,
                        quality: Int = 3) throws(MixWriteError) -> [UInt8] {
        var picture = try shown(at: seconds, key: settings, layerKeys: layerKeys, view: view)
        if view == .composite {
            let frame = Int((MediaTime(seconds: seconds) ?? .zero).ticks(in: frameRate.inverted, roundingUp: false))
            picture = try captions.drawn(on: picture, frame: frame)
        }
        return try pictures.jpeg(picture, quality: quality)
    }

    /// The picture `picture(at:key:layerKeys:view:)` makes a JPEG of: one of the preview's own frames, valid until the
    /// next call.
    func shown(at seconds: Double, key settings: KeySettings, layerKeys: [KeySettings] = [], view: View) throws(MixWriteError) -> Frame {
        try load(seconds)
        compositor.key = settings
        for (layer, key) in zip(compositor.layers.dropFirst(), layerKeys) { layer.key = key }
        switch view {
        case .fx where isClassic: return layerPictures[0] ?? black
        case .fx: return try compositor.compose(layers: layerPictures, base: black)
        case .base: return basePicture
        case .composite: return try compositor.compose(layers: layerPictures, base: basePicture)
        case .matte: return try matte()
        }
    }

    /// The key colour under output pixel (x, y) of fx at `seconds`, as RGB in [0, 1] (for a click on fx).
    public func fxColor(at seconds: Double, x: Int, y: Int) throws(MixWriteError) -> (r: Double, g: Double, b: Double) {
        try load(seconds)
        guard isClassic else { throw .usage("a colour is picked on a whole-frame fx alone; with --place or layers, type it") }
        guard let f = layerPictures[0], (0..<width).contains(x), (0..<height).contains(y) else {
            throw .usage("no fx picture at \(seconds) s, (\(x), \(y))")
        }
        let luma = f.plane(0)[y * f.stride(0) + x]
        let u = f.plane(1)[(y / 2) * f.stride(1) + x / 2], v = f.plane(2)[(y / 2) * f.stride(2) + x / 2]
        return plan.video.color.rgb(y: Double(luma), u: Double(u), v: Double(v))
    }

    /// Layer `layer`'s fx's screen colour (0 the FX's) read from its border, or from `garbage`'s rectangles' borders, as
    /// the fine keyer reads it given no `--key-color` (`KeyColorPicker`: its first frames; a border that is no screen
    /// refused, naming the colour found).
    public func fxScreenColor(layer: Int, garbage: [[Int]]) throws(MixWriteError) -> (r: Double, g: Double, b: Double) {
        guard plan.layers.indices.contains(layer) else { throw .usage("no layer \(layer): the blend has \(plan.layers.count)") }
        let laid = plan.layers[layer]
        var key = laid.key
        (key.keyer, key.garbage) = (.fine, garbage)
        let keyed = KeyColorPicker.Keyed(wholeFrame: laid.place == nil, output: plan.video, own: laid.ownSize)
        switch try KeyColorPicker.read(fx: laid.fx, key: key, keyed: keyed) {
        case .picked(let pick): return (pick.color.r, pick.color.g, pick.color.b)
        case .noScreen(let found): throw KeyColorPicker.refusal(laid.fx.path, found, key)
        }
    }

    /// fx's picture at `seconds` as it is keyed (the output's size), as JPEG bytes of the best quality: a frame of the
    /// empty screen to take as the clean plate.
    public func fxPicture(at seconds: Double) throws(MixWriteError) -> [UInt8] {
        try load(seconds)
        guard isClassic, let f = layerPictures[0] else { throw .usage("a plate is taken from a whole-frame fx alone; with --place or layers, name its file") }
        return try pictures.jpeg(f, quality: 2)
    }

    /// Decodes both pictures at `seconds` unless they are the ones held.
    private func load(_ seconds: Double) throws(MixWriteError) {
        guard seconds.isFinite, seconds >= 0, seconds < duration else {
            throw .usage("time \(seconds) is outside the output (0 to \(duration) s)")
        }
        // Microseconds: finer than any frame, and exact as rational time.
        let t = MediaTime(seconds: seconds) ?? .zero
        if t == time { return }
        time = nil
        // The frame before first, when there is one: a matte steadied over the frames is keyed after it, as a render
        // keys it (`LayerSource.before`).
        let before = t - MediaTime(frames: 1, rate: frameRate)
        try compositor.seek(to: before >= .zero ? before : t)
        earlierPictures = before >= .zero ? try copies(compositor.pictures(at: before).layers, reusing: earlierPictures) : []
        let (pictures, b) = try compositor.pictures(at: t)
        layerPictures = try copies(pictures, reusing: layerPictures)
        do { try basePicture.copyPicture(from: b) } catch { throw .processing(file: nil, "the preview's pictures: \(error.description)") }
        for (i, layer) in compositor.layers.enumerated() { layer.before = i < earlierPictures.count ? earlierPictures[i] : nil }
        time = t
    }

    /// `pictures` copied out of the readers (which reuse theirs), into `old`'s frames where they fit.
    private func copies(_ pictures: [Frame?], reusing old: [Frame?]) throws(MixWriteError) -> [Frame?] {
        do {
            var held: [Frame?] = []
            for (i, p) in pictures.enumerated() {
                held.append(try p?.copied(reusing: i < old.count ? old[i] : nil))
            }
            return held
        } catch {
            throw .processing(file: nil, "the preview's pictures: \(error.description)")
        }
    }

    /// What the key keeps of fx, as grey: white where fx is kept, black where the screen is keyed out (as OBS and
    /// compositing tools show a matte): 235 less the luma `KeyAlpha` reads (219 × GPUImage's blend value, which is
    /// 1 where base shows); with an fx's own alpha, or a key that makes a matte (`--keyer fine`, a refined one), that.
    private func matte() throws(MixWriteError) -> Frame {
        guard isClassic else { return try layersMatte() }
        guard let f = layerPictures[0] else { return black }
        if plan.byAlpha || compositor.layers[0].laidByAlpha {
            // Its own alpha, or its key's matte as a picture (the fine keyer's, or a refined one).
            do {
                let matted = plan.byAlpha ? f : try compositor.layers[0].mattedPicture(f)
                try compositor.output.makeWritable()
                AlphaBlend.matte(fx: matted, into: compositor.output)
            } catch {
                throw .processing(file: nil, "the preview picture: \(error.description)")
            }
            return compositor.output
        }
        keyAlpha.read(compositor.keyer, fx: f)
        let output = keyAlpha.overHigh
        for y in 0..<height {
            let row = output.plane(0) + y * output.stride(0), low = keyAlpha.overLow.plane(0) + y * keyAlpha.overLow.stride(0)
            for x in 0..<width { row[x] = UInt8(truncatingIfNeeded: 235 &- (Int(row[x]) &- Int(low[x]))) }
        }
        for p in 1...2 {
            for y in 0..<(height + 1) / 2 { (output.plane(p) + y * output.stride(p)).update(repeating: 128, count: (width + 1) / 2) }
        }
        return output
    }

    /// The FX alone over the whole frame, keyed at the output's size: its pictures are the output's.
    private var isClassic: Bool { plan.layers.count == 1 && plan.layers[0].place == nil }

    /// Layers (placed, or several) as grey: each laid over two flat pictures, 235 less their difference.
    private func layersMatte() throws(MixWriteError) -> Frame {
        let low = try compositor.compose(layers: layerPictures, base: keyAlpha.flats.low)
        do { try keyAlpha.overLow.copyPicture(from: low) } catch { throw .processing(file: nil, "the matte: \(error.description)") }
        let high = try compositor.compose(layers: layerPictures, base: keyAlpha.flats.high)
        let output = keyAlpha.overHigh
        do { try output.copyPicture(from: high) } catch { throw .processing(file: nil, "the matte: \(error.description)") }
        for y in 0..<height {
            let row = output.plane(0) + y * output.stride(0), lowRow = keyAlpha.overLow.plane(0) + y * keyAlpha.overLow.stride(0)
            for x in 0..<width { row[x] = UInt8(clamping: 235 - (Int(row[x]) - Int(lowRow[x]))) }
        }
        for p in 1...2 {
            for y in 0..<(height + 1) / 2 { (output.plane(p) + y * output.stride(p)).update(repeating: 128, count: (width + 1) / 2) }
        }
        return output
    }
}
