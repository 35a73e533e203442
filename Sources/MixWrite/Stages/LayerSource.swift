import FFmpegSupport

/// One layer of a blend as the stage reads it: its file, when it shows (from `start` on the output, fx's own `from`
/// on, for `length`), where (`place`: nil is the whole frame, keyed at the output's size as GPUImage keys it), how
/// much (`opacity`), and how it is laid over (its key, or its own alpha).
struct LayerPlan: Sendable {
    var fx: MediaFile
    var key: KeySettings
    /// Composited by its own alpha (`AlphaBlend`) instead of chroma-keyed.
    var byAlpha = false
    var start: MediaTime = .zero
    var from: MediaTime = .zero
    /// How long it shows (`--out` less `--in`); nil: until fx's picture ends, as its reader finds it.
    var length: MediaTime?
    /// Where fx goes, fitted (by `--fit`) into `rect` and even; nil: the whole frame.
    var place: Placement?
    /// The rectangle asked for (even): what of fx falls outside it (`--fit fill`) is cropped.
    var rect: Placement?
    /// 0…255.
    var opacity = 255
    /// What the job's report warns of this layer (an auto key colour moved off the screen's, an alpha opaque everywhere).
    var notes: [String] = []
    /// A picture file: its one picture held from `start` for `length` (nil: to the output's end).
    var isStill = false
    /// `--key none`: laid as it is, its alpha (if it has one) made opaque.
    var opaque = false
    /// fx's size as it is keyed when placed: its own, upright and even.
    var ownSize: (width: Int, height: Int) = (0, 0)
    /// Its speed (`speed`), and the move that makes its reader show the CLI's frame at it (`Retime.readTime` at 0: a
    /// layer's speed is one throughout).
    var retime: Retime?
    var retimeShift: MediaTime = .zero
    /// Reversed or held at its end (`reverse`, `freeze`): how long its moving span lasts on the output, and an output
    /// frame's length (its last frame is the one that starts a frame before the span's end).
    var moving: (length: MediaTime, frame: MediaTime)?

    /// Whether its frames are asked for backwards (a reversed layer's reader reads a window at a time).
    var reverses: Bool { retime?.reversed == true }

    /// fx's own time at output time `t`, nil when the layer does not show then. A reversed layer's offset is mirrored
    /// (its first frame shows its span's last); past its moving span, its last frame is held.
    func fxTime(at t: MediaTime) -> MediaTime? {
        guard t >= start else { return nil }
        if let length, t - start >= length { return nil }
        if isStill { return .zero }
        var offset = t - start
        if let moving {
            offset = min(offset, moving.length - moving.frame)
            if reverses { offset = max(.zero, moving.length - moving.frame - offset) }
        }
        guard let retime else { return from + offset }
        return from + retime.media(offset) + retimeShift
    }

    /// `media` of fx's own time as output time, at its speed.
    func shown(_ media: MediaTime) -> MediaTime {
        retime.map { $0.output(media) } ?? media
    }

    /// How long its sound and cues last on the output: `length`; retimed with no `--out`, to fx's end at its speed (a
    /// retimed track is made exactly as long as it shows); else nil, to fx's end.
    var soundLength: MediaTime? {
        moving?.length ?? length ?? retime.flatMap { _ in fx.totalDuration.map { shown(max(.zero, $0 - from)) } }
    }

    /// What of the layer may show: its rectangle (its placed picture's when none was asked).
    var clip: AlphaBlend.Rectangle {
        let r = rect ?? place ?? Placement(x: 0, y: 0, width: 0, height: 0)
        return (r.x, r.y, r.width, r.height)
    }
}

/// A layer's reader and keyer, and for a placed layer its pictures: fx keyed at its own size into a picture with the
/// key's matte as alpha (as `mixwrite key` writes it), scaled into its rectangle, laid over by that alpha. A whole-frame
/// layer whose key makes a matte (the fine keyer, or a refined one: `KeySettings.makesMatte`) is keyed so too, at the
/// output's size.
final class LayerSource {
    let plan: LayerPlan
    let reader: VideoTrackReader
    private(set) var keyer: ChromaKeyBlend
    /// The colour fx is keyed in.
    let color: ColorDescription
    /// fx's size as it is keyed.
    private let size: (width: Int, height: Int)
    /// The matte's pictures (nil: GPUImage's blend keys as it blends, or fx has its own alpha).
    private var matte: MattedPictures?
    /// A placed layer by its own alpha: its picture copied (despilled when asked); a placed one scaled.
    private let placed: (layer: Frame?, scaled: Frame?)?
    private var scaler: Scaler?
    /// The fine keyer's clean plate at fx's size as it is keyed, by its path (read once, kept while the key names it).
    private var plate: (path: String, picture: Frame)?
    /// How fx is fitted to `size` (its plate likewise).
    private let fit: Fit
    /// The fine keyer's matte steadied over the pictures of a render, in order (`MattedPictures.Run`); else each is
    /// keyed alone, or after `before`. Set by the compositor.
    var steady = false
    /// The output time of the picture about to be keyed (the compositor's, as it reads), of the last keyed in a run,
    /// and an output frame's length.
    var showing: MediaTime?
    private var lastKeyed: MediaTime?
    /// A preview's picture one output frame before the one it keys (nil: none, or a render's, which keys its frames in
    /// order): with a steadied matte it is keyed first, each time, so that the picture shown is the render's.
    var before: Frame?
    private let frameLength: MediaTime
    /// A reversed layer's pictures, read a window at a time.
    private var backwards: BackwardFrames?

    init(_ plan: LayerPlan, video: VideoPlan, color: ColorDescription) throws(MixWriteError) {
        self.plan = plan
        self.color = color
        size = plan.place == nil ? (video.width, video.height) : plan.ownSize
        reader = try VideoTrackReader(file: plan.fx, width: size.0, height: size.1, color: color, outputFrameRate: video.frameRate,
                                      fit: plan.place == nil ? video.fit : .stretch, strict: video.strict, keepAlpha: plan.byAlpha)
        keyer = ChromaKeyBlend(settings: plan.key, color: color)
        fit = plan.place == nil ? video.fit : .stretch
        frameLength = MediaTime(frames: 1, rate: video.frameRate)
        if plan.reverses { backwards = BackwardFrames(reader: reader, tolerance: frameLength.scaled(by: Rational(1, 2))) }
        if Self.needsMatte(plan, plan.key) {
            plate = try Self.plate(plan.key, nil, size, color, fit)
            matte = try MattedPictures(key: plan.key, color: color, width: size.width, height: size.height, plate: plate?.picture)
        }
        guard let place = plan.place else { placed = nil; return }
        do {
            placed = (plan.byAlpha ? try Frame(width: size.width, height: size.height, pixelFormat: .yuva420p) : nil,
                      size == (place.width, place.height) ? nil : try Frame(width: place.width, height: place.height, pixelFormat: .yuva420p))
        } catch {
            throw .processing(file: plan.fx.path, "cannot allocate the layer's pictures: \(error.description)")
        }
    }

    var isWholeFrame: Bool { plan.place == nil }

    /// The key; a new one builds the keyer's tables again (and the matte's pictures, for a key that makes one).
    var key: KeySettings {
        get { keyer.settings }
        set {
            guard newValue != keyer.settings else { return }
            keyer = ChromaKeyBlend(settings: newValue, color: color)
            guard Self.needsMatte(plan, newValue) else { matte = nil; return }
            // A key the fine keyer cannot take, or a plate that cannot be read (the page checks each before it is set),
            // keeps the matte it had.
            do {
                let kept = try Self.plate(newValue, plate, size, color, fit)
                matte = try MattedPictures(key: newValue, color: color, width: size.width, height: size.height, plate: kept?.picture)
                plate = kept
            } catch {}
        }
    }

    /// `key`'s clean plate read at fx's size as it is keyed (`had` kept when it is the same file's), nil for none.
    private static func plate(_ key: KeySettings, _ had: (path: String, picture: Frame)?, _ size: (width: Int, height: Int),
                              _ color: ColorDescription, _ fit: Fit) throws(MixWriteError) -> (path: String, picture: Frame)? {
        guard let path = key.cleanPlate else { return nil }
        if let had, had.path == path { return had }
        return (path, try CleanPlate.read(path, width: size.width, height: size.height, color: color, fit: fit))
    }

    /// A layer keyed with `key` is laid by its matte as a picture: placed (keyed at its own size, then scaled), or a
    /// key that makes one; not an fx with its own alpha.
    private static func needsMatte(_ plan: LayerPlan, _ key: KeySettings) -> Bool {
        !plan.byAlpha && (plan.place != nil || key.makesMatte)
    }

    /// Whether the layer is laid by a matte picture (its own alpha, or its key's matte) rather than GPUImage's blend.
    var laidByAlpha: Bool { plan.byAlpha || matte != nil }

    /// Where the picture about to be keyed stands in the run of a render's pictures (`showing`, then kept as the last
    /// keyed): the next after the last one keyed when that was one output frame before; alone when not `steady`. A
    /// preview's picture with one `before` it: that one keyed first, then this one as the next.
    private func run() throws(FFmpegError) -> MattedPictures.Run {
        if let before, let matte, matte.steadies {
            try matte.prime(before)
            return .next
        }
        guard steady, let t = showing else { return .alone }
        defer { (lastKeyed, showing) = (t, nil) }
        return lastKeyed.map { $0 + frameLength == t } == true ? .next : .first
    }

    /// A whole-frame layer's picture as it is laid: with its key's matte when its key makes one, else as read.
    func mattedPicture(_ picture: Frame) throws(FFmpegError) -> Frame {
        guard let matte, plan.place == nil else { return picture }
        return try matte.matted(picture, keyer: keyer, run: run())
    }

    /// A whole-frame layer whose key makes a matte, laid over `base` into `output` by it (see `MattedPictures.lay`).
    func lay(_ picture: Frame, over base: Frame, into output: Frame) throws(FFmpegError) {
        guard let matte, plan.place == nil else { return AlphaBlend.blend(fx: picture, base: base, into: output) }
        try matte.lay(picture, keyer: keyer, over: base, into: output, run: run())
    }

    var despill: [UInt16]? { keyer.settings.despill ? keyer.despillTable : nil }

    /// Made ready for output time `t` and on: the reader at fx's time then, or at the span's start if it shows later.
    /// A steadied matte that showed the frame before `t` keys that frame first (its matte and fx kept, the picture
    /// not laid), so that a part or an excerpt keys `t` as the whole render does.
    func seek(to t: MediaTime) throws(MixWriteError) {
        lastKeyed = nil
        let before = t - frameLength
        // A reversed layer's window seeks as it needs.
        guard backwards == nil else { return }
        if steady, let matte, matte.steadies, !plan.isStill, before >= .zero, let τ = plan.fxTime(at: before) {
            try reader.seek(to: τ)
            if let picture = try reader.picture(at: τ, hold: false) {
                // A run's first, keyed as far as step 6 needs.
                do { try matte.prime(picture) } catch {
                    throw .processing(file: plan.fx.path, "the layer's picture: \(error.description)")
                }
                (lastKeyed, showing) = (before, nil)
            }
            return
        }
        try reader.seek(to: plan.fxTime(at: max(t, plan.start)) ?? plan.from)
    }

    /// fx's picture at output time `t` (its own size when placed), nil when the layer does not show then.
    func picture(at t: MediaTime) throws(MixWriteError) -> Frame? {
        guard let τ = plan.fxTime(at: t) else { return nil }
        let picture: Frame?
        if let backwards { picture = try backwards.picture(at: τ) } else { picture = try reader.picture(at: τ, hold: plan.isStill || plan.moving != nil) }
        if plan.opaque, let picture { picture.makeOpaque() }
        return picture
    }

    /// A placed layer's picture as it is laid: keyed (fx's colour, despilled when asked, the key's matte as alpha) or
    /// with its own alpha, scaled into its rectangle (yuva420p).
    func placedPicture(_ picture: Frame) throws(FFmpegError) -> Frame {
        guard let placed, let place = plan.place else { return picture }
        // Keyed: the key's matte as alpha; laid by its own: its alpha copied with its colour.
        let layer: Frame
        if let matte { layer = try matte.matted(picture, keyer: keyer, run: run()) } else { layer = try placed.layer!.despilled(picture, despill) }
        guard let scaled = placed.scaled else { return layer }
        if scaler == nil {
            // Bilinear: a layer is scaled every frame it shows (swscale's bicubic cost as much as laying it).
            scaler = try Scaler(from: .init(width: layer.width, height: layer.height, format: .yuva420p, color: color),
                                to: .init(width: place.width, height: place.height, format: .yuva420p, color: color), filter: .bilinear)
        }
        try scaled.makeWritable()
        try scaler!.scale(layer, into: scaled)
        return scaled
    }

}
