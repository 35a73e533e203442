import FFmpegSupport

/// `--key-color auto`: the screen colour of a green- or blue-screen clip, read from its border.
enum KeyColorPicker {
    /// How many of fx's first frames are read.
    static let frames = 12
    /// The border band, as a fraction of each side.
    static let band = 0.06
    /// How far (0 … 1) the screen's channel must stand above both others to count as a green or blue screen:
    /// enough to refuse grey, skin and sky, little enough for an unevenly lit screen.
    static let screenMargin = 0.15

    /// The key colour for fx: the median colour of the border band of fx's first frames, as RGB in [0, 1] (8-bit
    /// steps, so that the colour written back as `RRGGBB` keys the same). Refuses a border that is not clearly green or
    /// blue: keying it out would remove the picture, not a screen.
    ///
    /// GPUImage's distance is on chroma alone, so a screen less saturated than pure green or blue (a real one: the
    /// ARKit samples' 1EDB00) sits nearer the neutral axis and the yellows, and its colour as the key takes whites,
    /// greys and yellows with it. For `keyer` gpuimage the colour is therefore moved from the screen's toward the pure
    /// primary, in tenths, to the first that keys the subject no more than the primary itself does (`Pick.pulled`): the
    /// subject is every sample of those frames that the primary keeps (its fx weight at least ½) and that is not the
    /// screen (farther from the screen's colour than 95 % of the border's samples, and than 0.05). The fine keyer learns
    /// the screen itself and takes the screen's colour as it is.
    static func pick(fx: MediaFile, key: KeySettings) throws(MixWriteError) -> Pick {
        switch try read(fx: fx, key: key) {
        case .picked(let pick): return pick
        case .noScreen(let found): throw refusal(fx.path, found)
        }
    }

    /// `--key-color auto`'s error for a border of colour `found`.
    static func refusal(_ path: String, _ found: KeyColor) -> MixWriteError {
        .input(file: path, noScreen(found) + "; give --key-color RRGGBB")
    }

    /// What reading fx's border found: a screen's colour (`pick`'s), or a border that is not clearly green or blue.
    enum Outcome {
        case picked(Pick)
        case noScreen(found: KeyColor)
    }

    /// Why no colour was picked from a border of colour `found`.
    static func noScreen(_ found: KeyColor) -> String {
        "no green or blue screen at the border of its first frames (found \(found.hex))"
    }

    /// `pick`, a border that is no screen said rather than refused.
    static func read(fx: MediaFile, key: KeySettings) throws(MixWriteError) -> Outcome {
        guard let v = fx.mainVideo else { throw .input(file: fx.path, "has no video stream") }
        let w = max(2, v.width & ~1), h = max(2, v.height & ~1)
        let rate = v.frameRate ?? Rational(30, 1)
        var ys: [UInt8] = [], us: [UInt8] = [], vs: [UInt8] = []
        var chroma = [Int](repeating: 0, count: 256 * 256)
        let reader = try VideoTrackReader(file: fx, width: w, height: h, color: v.color, outputFrameRate: rate)
        for n in 0..<frames {
            guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: rate), hold: false) else { break }
            sampleBorder(picture, width: w, height: h, ys: &ys, us: &us, vs: &vs)
            if key.keyer == .gpuimage { countChroma(picture, width: w, height: h, into: &chroma) }
        }
        guard !us.isEmpty else { throw .input(file: fx.path, "has no decodable picture to pick a key colour from") }
        let y = Double(median(ys)), u = Double(median(us)), vv = Double(median(vs))
        let rgb = v.color.rgb(y: y, u: u, v: vv)
        let isGreen = rgb.g > rgb.r + screenMargin && rgb.g > rgb.b + screenMargin
        let isBlue = rgb.b > rgb.r + screenMargin && rgb.b > rgb.g + screenMargin
        let screen = KeyColor(r: quantized(rgb.r), g: quantized(rgb.g), b: quantized(rgb.b))
        guard isGreen || isBlue else { return .noScreen(found: screen) }
        guard key.keyer == .gpuimage else { return .picked(Pick(color: screen, screen: screen)) }
        let primary = isGreen ? KeyColor(r: 0, g: 1, b: 0) : KeyColor(r: 0, g: 0, b: 1)
        // The screen's own spread: the distance from its colour within which 95 % of the border's samples lie.
        let screenChroma = ChromaKeyBlend.gpuImageChroma(r: screen.r, g: screen.g, b: screen.b)
        let spread = zip(us, vs).map { (u, vv) in
            ChromaKeyBlend.chromaDistance(ChromaKeyBlend.gpuImageChroma(u: Double(u), v: Double(vv), color: v.color), screenChroma)
        }.sorted()[us.count * 95 / 100]
        return .picked(Pick(color: keepingSubject(screen: screen, spread: spread, primary: primary, chroma: chroma, color: v.color, key: key),
                            screen: screen))
    }

    /// What `pick` chose: the key colour, and the screen's own colour (the same unless pulled toward the primary).
    struct Pick {
        var color: KeyColor
        var screen: KeyColor
        var pulled: Bool { color != screen }
    }

    /// What the warning says when the key colour is not the screen's own.
    static func pulledNote(_ pick: Pick, file: String) -> String {
        "\(file): its screen is \(pick.screen.hex); keyed as \(pick.color.hex), nearer pure \(pick.color.g >= pick.color.b ? "green" : "blue"), "
            + "since \(pick.screen.hex) would key the subject's whites, greys or yellows too (GPUImage's distance is on chroma alone); "
            + "--keyer fine keys by the screen's own colour"
    }

    /// The first colour from `screen` toward `primary` (tenths of the way, in RGB) whose key takes from the subject's
    /// samples (`chroma`, a count a (U, V) pair) at most 0.2 % of the fx weight the primary's key leaves them.
    static func keepingSubject(screen: KeyColor, spread: Double, primary: KeyColor, chroma: [Int], color: ColorDescription,
                               key: KeySettings) -> KeyColor {
        var samples: [(chroma: (cr: Double, cb: Double), count: Double)] = []
        for (i, n) in chroma.enumerated() where n > 0 {
            samples.append((ChromaKeyBlend.gpuImageChroma(u: Double(i >> 8), v: Double(i & 0xFF), color: color), Double(n)))
        }
        func weights(_ k: KeyColor) -> [Double] {
            let keyChroma = ChromaKeyBlend.gpuImageChroma(r: k.r, g: k.g, b: k.b)
            return samples.map { s in
                smoothstep(key.threshold, key.threshold + key.smoothing, ChromaKeyBlend.chromaDistance(s.chroma, keyChroma))
            }
        }
        let screenChroma = ChromaKeyBlend.gpuImageChroma(r: screen.r, g: screen.g, b: screen.b)
        let kept = weights(primary)
        let subject = samples.indices.filter { i in
            kept[i] >= 0.5 && ChromaKeyBlend.chromaDistance(samples[i].chroma, screenChroma) > max(spread, 0.05)
        }
        let total = subject.reduce(0) { $0 + samples[$1].count }
        guard total > 0 else { return screen }
        for tenth in 0..<10 {
            let t = Double(tenth) / 10
            let candidate = KeyColor(r: quantized(screen.r + t * (primary.r - screen.r)), g: quantized(screen.g + t * (primary.g - screen.g)),
                                     b: quantized(screen.b + t * (primary.b - screen.b)))
            let w = weights(candidate)
            let lost = subject.reduce(0) { $0 + samples[$1].count * max(0, kept[$1] - w[$1]) }
            if lost <= 0.002 * total { return candidate }
        }
        return primary
    }

    private static func quantized(_ x: Double) -> Double { (min(max(x, 0), 1) * 255).rounded() / 255 }

    /// Every chroma sample of a picture, counted by its (U, V).
    private static func countChroma(_ f: Frame, width w: Int, height h: Int, into counts: inout [Int]) {
        let pu = f.plane(1), pv = f.plane(2), su = f.stride(1), sv = f.stride(2)
        counts.withUnsafeMutableBufferPointer { counts in
            for cy in 0..<h / 2 {
                for cx in 0..<w / 2 { counts[Int(pu[cy * su + cx]) << 8 | Int(pv[cy * sv + cx])] += 1 }
            }
        }
    }

    private static func sampleBorder(_ f: Frame, width w: Int, height h: Int, ys: inout [UInt8], us: inout [UInt8], vs: inout [UInt8]) {
        let bw = max(1, Int(Double(w / 2) * band)), bh = max(1, Int(Double(h / 2) * band))
        let cw = w / 2, ch = h / 2
        let py = f.plane(0), pu = f.plane(1), pv = f.plane(2)
        let sy = f.stride(0), su = f.stride(1), sv = f.stride(2)
        for cy in Swift.stride(from: 0, to: ch, by: 2) {
            let inRowBand = cy < bh || cy >= ch - bh
            for cx in Swift.stride(from: 0, to: cw, by: 2) where inRowBand || cx < bw || cx >= cw - bw {
                us.append(pu[cy * su + cx])
                vs.append(pv[cy * sv + cx])
                ys.append(py[2 * cy * sy + 2 * cx])
            }
        }
    }

    private static func median(_ values: [UInt8]) -> UInt8 {
        var counts = [Int](repeating: 0, count: 256)
        for v in values { counts[Int(v)] += 1 }
        var seen = 0
        for (v, c) in counts.enumerated() {
            seen += c
            if seen * 2 >= values.count { return UInt8(v) }
        }
        return 0
    }
}
