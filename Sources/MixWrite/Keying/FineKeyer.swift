internal import CKeyKernel
import Dispatch
import FFmpegSupport

/// `--keyer fine`: a keyer for real screens (uneven, noisy, 4:2:0, spilling onto the subject), in C
/// (`Sources/CKeyKernel/include/FineKeyer.h` says its steps). It makes fx's picture with its matte as alpha
/// (yuva420p, straight colour: unmixed from the screen, its spill limited), which is laid over as an fx with its own
/// alpha is. Its steps and constants were chosen by their scores against a ground truth (`research/key-truth.py`,
/// `research/key-fine-model.py`; Docs/blend-and-keys.md).
final class FineKeyer {
    let settings: KeySettings
    let level: Int32
    private let keyer: OpaquePointer
    private var params: MWFineParams
    private let garbage: [Int32]
    /// The matte filters' scratch line.
    private let line: UnsafeMutablePointer<UInt8>
    /// The last picture's matte and fx, for the matte steadied over a run of pictures (`mw_fine_steady`).
    private let steady: OpaquePointer

    /// A keyer for pictures of `width` × `height` read with `color`, with the clean plate `plate` (yuv420p, the same
    /// size and colour: `CleanPlate.read`) if one is given. Nil when the key colour has no channel above the others (a
    /// screen is green, blue or red; grey is not one).
    init?(settings: KeySettings, color: ColorDescription, width: Int, height: Int, plate: Frame? = nil, level: Int32 = KeyKernel.level) {
        guard let order = Self.channels(of: settings.keyColor), let k = mw_fine_create(Int32(width), Int32(height)) else { return nil }
        guard let s = mw_fine_steady_create(Int32(width), Int32(height)) else {
            mw_fine_free(k)
            preconditionFailure("cannot allocate the fine keyer's \(width)×\(height) planes")
        }
        (keyer, steady) = (k, s)
        self.settings = settings
        self.level = level
        garbage = settings.garbage.flatMap { $0.map { Int32(clamping: $0) } }
        params = Self.params(settings, color, order)
        line = .allocate(capacity: max(width, height))
        if let plate {
            precondition(plate.width == width && plate.height == height && plate.pixelFormat == .yuv420p, "a clean plate of the keyer's size")
            var input = MWFineInput(plane: (UnsafePointer(plate.plane(0)), UnsafePointer(plate.plane(1)), UnsafePointer(plate.plane(2))),
                                    stride: (plate.stride(0), plate.stride(1), plate.stride(2)))
            precondition(mw_fine_plate(keyer, &params, &input) == 0, "cannot allocate the clean plate's planes")
        }
    }

    deinit {
        mw_fine_free(keyer)
        mw_fine_steady_free(steady)
        line.deallocate()
    }

    /// The channel order that puts the screen's channel in the middle (R, G, B for green; R, B, G for blue; G, R, B
    /// for red), nil for a key colour with no channel 0.05 above the others.
    static func channels(of key: KeyColor) -> [Int]? {
        let c = [key.r, key.g, key.b]
        let top = c.indices.max { c[$0] < c[$1] }!
        guard c.indices.allSatisfy({ $0 == top || c[top] - c[$0] >= 0.05 }) else { return nil }
        return top == 1 ? [0, 1, 2] : top == 2 ? [0, 2, 1] : [1, 0, 2]
    }

    /// The C keyer's parameters for `settings` (nil for a key colour that is no screen's).
    static func parameters(_ settings: KeySettings, _ color: ColorDescription) -> MWFineParams? {
        channels(of: settings.keyColor).map { params(settings, color, $0) }
    }

    /// The C keyer's parameters: the matrix's channels from luma, u and v and back, in `order`.
    private static func params(_ s: KeySettings, _ color: ColorDescription, _ order: [Int]) -> MWFineParams {
        let (kr, kb) = color.matrix.lumaWeights
        let kg = 1 - kr - kb
        let gU: Double = -2 * kb * (1 - kb) / kg, gV: Double = -2 * kr * (1 - kr) / kg
        let perU: [Double] = [0, gU, 2 * (1 - kb)], perV: [Double] = [2 * (1 - kr), gV, 0]
        let uScale: Double = 2 * (1 - kb), vScale: Double = 2 * (1 - kr)
        let luma: [Double] = [kr, kg, kb]
        let toU: [Double] = [-kr / uScale, -kg / uScale, (1 - kb) / uScale], toV: [Double] = [(1 - kr) / vScale, -kg / vScale, -kb / vScale]
        let key = [s.keyColor.r, s.keyColor.g, s.keyColor.b]
        func three(_ a: [Double]) -> (Float, Float, Float) { (Float(a[order[0]]), Float(a[order[1]]), Float(a[order[2]])) }
        var p = MWFineParams()
        let full = color.fullRange
        p.lumaZero = full ? 0 : 16
        p.lumaScale = 1 / (full ? 255 : 219)
        p.chromaScale = 1 / (full ? 255 : 224)
        (p.perU, p.perV, p.luma, p.toU, p.toV, p.key) = (three(perU), three(perV), three(luma), three(toU), three(toV), three(key))
        p.despill = Float(s.despillStrength)
        (p.choke, p.feather) = (Int32(s.choke), Int32(s.feather))
        return p
    }

    /// Whether `key(_:over:into:)` lays as it keys: no garbage rectangle, choke or feather to refine the whole matte first.
    var laysAsItKeys: Bool { garbage.isEmpty && settings.choke == 0 && settings.feather == 0 }

    /// `fx` (yuv420p, this keyer's size) keyed into `out` (yuva420p or yuva444p, the same size), its matte steadied
    /// over the run of pictures it is in (`run`); or, given `base` (yuv420p, the same size; only when `laysAsItKeys`),
    /// laid over it into `out` (yuv420p) as it is keyed: the bits of keying into a picture, then `AlphaBlend.blend`
    /// by its matte.
    /// `refined: false` leaves the matte as step 6 keeps it (no garbage, choke or feather): a picture keyed only to be the
    /// one before the next.
    func key(_ fx: Frame, over base: Frame? = nil, into out: Frame, run: MattedPictures.Run = .alone, refined: Bool = true) {
        precondition(base == nil || laysAsItKeys, "a refined matte is laid after it is made")
        garbage.withUnsafeBufferPointer { g in
            params.garbage = g.baseAddress
            params.garbageCount = Int32(g.count / 4)
            var input = MWFineInput(plane: (UnsafePointer(fx.plane(0)), UnsafePointer(fx.plane(1)), UnsafePointer(fx.plane(2))),
                                    stride: (fx.stride(0), fx.stride(1), fx.stride(2)))
            var output = MWFineOutput()
            output.plane = (out.plane(0), out.plane(1), out.plane(2), base == nil ? out.plane(3) : nil)
            output.stride = (out.stride(0), out.stride(1), out.stride(2), base == nil ? out.stride(3) : 0)
            output.fullChroma = out.pixelFormat == .yuva444p ? 1 : 0
            if let base {
                output.base = (UnsafePointer(base.plane(0)), UnsafePointer(base.plane(1)), UnsafePointer(base.plane(2)))
                output.baseStride = (base.stride(0), base.stride(1), base.stride(2))
                // Step 6 as the tiles lay the picture.
                if run != .alone { (output.steady, output.follows) = (steady, run == .next ? 1 : 0) }
            }
            // The picture-wide steps' passes (each on both cores, each part its own rows of cells, then the grid's),
            // then the tiles on both cores (each part its own rows of tiles and scratch), then the matte's refinements.
            nonisolated(unsafe) let (k, p, i, o) = (keyer, params, input, output)
            guard let table = mw_fine_kernel(level) else { preconditionFailure("fine keyer level \(level) is above this CPU's") }
            nonisolated(unsafe) let kernel = table   // a pointer to a constant table
            for pass in 0..<Int32(MW_FINE_PASSES) {
                DispatchQueue.concurrentPerform(iterations: 2) { part in
                    var (p, i) = (p, i)
                    precondition(mw_fine_rows(k, &p, &i, kernel, pass, Int32(part), 2) == 0, "fine keyer: a part out of range")
                }
                precondition(mw_fine_grid(keyer, &params, kernel, pass) == 0, "fine keyer: a pass out of range")
            }
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                var (p, i, o) = (p, i, o)
                precondition(mw_fine_tiles(k, &p, &i, &o, kernel, Int32(part), 2) == 0, "fine keyer: a part out of range")
            }
            if base != nil, run != .alone { mw_fine_steady_keep(steady, &input) }
            if base == nil {
                if run != .alone { mw_fine_steady(steady, &input, out.plane(3), out.stride(3), run == .next ? 1 : 0) }
                if refined {
                    mw_fine_matte(&params, out.plane(3), out.stride(3), Int32(out.width), Int32(out.height), line)
                    Self.feather(out, radius: settings.feather)
                }
            }
            params.garbage = nil
        }
    }

    /// The garbage rectangles, choke and feather of `settings` on `picture` (yuva420p; the feather brings the subject's
    /// colour under the softened alpha): the refinements of a matte GPUImage's keyer made.
    static func refine(_ picture: Frame, _ settings: KeySettings) {
        guard !settings.garbage.isEmpty || settings.choke > 0 || settings.feather > 0 else { return }
        var p = MWFineParams()
        (p.choke, p.feather) = (Int32(settings.choke), Int32(settings.feather))
        let garbage = settings.garbage.flatMap { $0.map { Int32(clamping: $0) } }
        let line = UnsafeMutablePointer<UInt8>.allocate(capacity: max(picture.width, picture.height))
        defer { line.deallocate() }
        garbage.withUnsafeBufferPointer { g in
            p.garbage = g.baseAddress
            p.garbageCount = Int32(g.count / 4)
            mw_fine_matte(&p, picture.plane(3), picture.stride(3), Int32(picture.width), Int32(picture.height), line)
        }
        feather(picture, radius: settings.feather)
    }

    /// The matte softened over `radius` pixels, the subject's colour brought under it (`mw_matte_feather`): a feathered
    /// edge never shows the screen.
    static func feather(_ picture: Frame, radius: Int) {
        guard radius > 0 else { return }
        let planes: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { picture.plane($0) }
        let strides = (0..<4).map { picture.stride($0) }
        let status = mw_matte_feather(planes, strides, Int32(picture.width), Int32(picture.height),
                                      picture.pixelFormat == .yuva444p ? 0 : 1, Int32(radius))
        precondition(status == 0, "cannot allocate the feather's scratch for a \(picture.width)×\(picture.height) picture")
    }
}

/// fx's picture with the key's matte as its alpha (yuva420p, straight colour), by either keyer: GPUImage's (its
/// per-pixel alpha read by keying over two flats, `KeyAlpha`; fx's colour, despilled when asked) refined by the
/// garbage rectangles, choke and feather, or the fine keyer's. What `mixwrite key` writes, a placed layer is laid by,
/// and a whole-frame fx is laid by when its key makes a matte (`KeySettings.makesMatte`).
final class MattedPictures {
    /// Where a picture stands among those keyed before it, for the fine keyer's matte steadied over the frames
    /// (`mw_fine_steady`: where fx did not change, each pixel's alpha halfway to the last picture's): keyed alone (a
    /// preview's picture: nothing read or kept), the first of a run (a render's first, or its first after a gap or a
    /// seek), or the picture after the last one keyed.
    enum Run: Sendable { case alone, first, next }

    let picture: Frame
    private let keyAlpha: KeyAlpha?
    private let fine: FineKeyer?

    /// `fullChroma`: the fine keyer's picture with each pixel's own chroma (yuva444p), for a layer written as it is.
    /// `plate`: the fine keyer's clean plate (`CleanPlate.read`), at this size.
    init(key: KeySettings, color: ColorDescription, width: Int, height: Int, fullChroma: Bool = false, plate: Frame? = nil) throws(MixWriteError) {
        do {
            picture = try Frame(width: width, height: height, pixelFormat: fullChroma && key.keyer == .fine ? .yuva444p : .yuva420p)
            keyAlpha = key.keyer == .gpuimage ? try KeyAlpha(width: width, height: height) : nil
        } catch {
            throw .processing(file: nil, "cannot allocate the matte's pictures: \(error.description)")
        }
        if key.keyer == .fine {
            guard let f = FineKeyer(settings: key, color: color, width: width, height: height, plate: plate) else {
                throw .usage("--keyer fine: key colour \(key.keyColorHex) is no screen's colour (its green, blue or red must stand above the others)")
            }
            fine = f
        } else {
            fine = nil
        }
    }

    /// Whether `run` changes the matte (the fine keyer's; GPUImage's keys each picture alone).
    var steadies: Bool { fine != nil }

    /// `fx` (yuv420p) with its matte, by `keyer` (GPUImage's, for its key; the fine keyer has its own, steadied over
    /// `run`).
    func matted(_ fx: Frame, keyer: ChromaKeyBlend, run: Run = .alone) throws(FFmpegError) -> Frame {
        try picture.makeWritable()
        if let fine {
            fine.key(fx, into: picture, run: run)
            return picture
        }
        guard let keyAlpha else { return picture }
        keyAlpha.read(keyer, fx: fx)
        _ = try picture.despilled(fx, keyer.settings.despill ? keyer.despillTable : nil)
        keyAlpha.opacity(into: picture)
        FineKeyer.refine(picture, keyer.settings)
        return picture
    }

    /// `fx` keyed as the first of a run and kept for the next (`run: .next`) to be steadied after; nothing else made
    /// (a preview's picture before the one it shows). Nothing to do for GPUImage's, which keys each picture alone.
    func prime(_ fx: Frame) throws(FFmpegError) {
        guard let fine else { return }
        try picture.makeWritable()
        fine.key(fx, into: picture, run: .first, refined: false)
    }

    /// `fx` (yuv420p) with its matte laid over `base` into `output` (yuv420p, the same size): the fine keyer lays as it
    /// keys when nothing refines its matte (no picture of the matte made), else `matted` then `AlphaBlend.blend`.
    func lay(_ fx: Frame, keyer: ChromaKeyBlend, over base: Frame, into output: Frame, run: Run = .alone) throws(FFmpegError) {
        if let fine, fine.laysAsItKeys, picture.pixelFormat == .yuva420p {
            fine.key(fx, over: base, into: output, run: run)
            return
        }
        AlphaBlend.blend(fx: try matted(fx, keyer: keyer, run: run), base: base, into: output)
    }
}
