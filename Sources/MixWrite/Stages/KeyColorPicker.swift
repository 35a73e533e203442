import FFmpegSupport

/// `--key-color auto`: the screen colour of a green- or blue-screen clip, read from its border.
enum KeyColorPicker {
    /// How many of fx's first frames are read.
    static let frames = 12
    /// Seconds ahead past which the subject's next frame is sought rather than decoded to: longer than x264's default
    /// GOP (250 frames, 10 s at 25 fps), so that a seek never lands behind the frames already decoded.
    static let seekHorizon = 10.0
    /// The border band, as a fraction of each side.
    static let band = 0.06
    /// How far (0 … 1) the screen's channel must stand above both others to count as a green or blue screen:
    /// enough to refuse grey, skin and sky, little enough for an unevenly lit screen.
    static let screenMargin = 0.15

    /// The key colour for fx: the median colour of the border band of fx's first frames (given garbage rectangles and
    /// how fx is `keyed`, of each rectangle's border band inside it), as RGB in [0, 1] (8-bit steps, so that the colour
    /// written back as `RRGGBB` keys the same). A border that is not clearly green or blue is `.noScreen` (`--key-color
    /// auto` refuses it, `refusal`: keying it out would remove the picture, not a screen).
    ///
    /// GPUImage's distance is on chroma alone, so a screen less saturated than pure green or blue (a real one: the
    /// ARKit samples' 1EDB00) sits nearer the neutral axis and the yellows, and its colour as the key takes whites,
    /// greys and yellows with it. For `keyer` gpuimage the colour is therefore moved from the screen's toward the pure
    /// primary, in tenths, to the first that keys the subject no more than the primary itself does (`Pick.pulled`): the
    /// subject is every sample of those frames and of as many spread through the rest of fx that the primary keeps (its fx weight at least ½) and that is not the
    /// screen (farther from the screen's colour than 95 % of the border's samples, and than 0.05). The fine keyer learns
    /// the screen itself and takes the screen's colour as it is.
    static func read(fx: MediaFile, key: KeySettings, keyed: Keyed) throws(MixWriteError) -> Outcome {
        guard let v = fx.mainVideo else { throw .input(file: fx.path, "has no video stream") }
        let inside = key.garbage.isEmpty ? nil : keyed
        let w = max(2, (inside?.width ?? v.width) & ~1), h = max(2, (inside?.height ?? v.height) & ~1)
        let rate = v.frameRate ?? Rational(30, 1)
        var ys: [UInt8] = [], us: [UInt8] = [], vs: [UInt8] = []
        var chroma = [Int](repeating: 0, count: 256 * 256)
        let reader = try VideoTrackReader(file: fx, width: w, height: h, color: v.color, outputFrameRate: rate, fit: inside?.fit ?? .stretch)
        // The rectangles' bands, in chroma samples within the picture; none left inside it: the picture's border.
        let regions = (inside == nil ? [] : key.garbage).compactMap { r in Self.region(r, width: w, height: h) }
        for n in 0..<frames {
            guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: rate), hold: false) else { break }
            for r in regions.isEmpty ? [(0, 0, w / 2, h / 2)] : regions {
                sampleBorder(picture, r, ys: &ys, us: &us, vs: &vs)
            }
            if key.keyer == .gpuimage { countChroma(picture, width: w, height: h, into: &chroma) }
        }
        if key.keyer == .gpuimage { try countSubject(reader, fx, rate: rate, width: w, height: h, into: &chroma) }
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

    /// `--key-color auto`'s error for a border of colour `found`.
    static func refusal(_ path: String, _ found: KeyColor, _ key: KeySettings) -> MixWriteError {
        .input(file: path, noScreen(found, key) + "; give --key-color RRGGBB")
    }

    /// fx as it is keyed: its size and fit there (the output's for a whole-frame fx, its own for a placed one), which
    /// `--garbage`'s rectangles are in. Given garbage, the screen is read from each rectangle's border band inside it
    /// (a screen that does not fill the frame: the rest is cut anyway); without, from the whole picture's border.
    struct Keyed {
        var width: Int
        var height: Int
        var fit: Fit

        init(width: Int, height: Int, fit: Fit) { (self.width, self.height, self.fit) = (width, height, fit) }

        /// A blend's layer: whole-frame at the output's size and fit, else at its own size (`own`), stretched.
        init(wholeFrame: Bool, output video: VideoPlan, own: (width: Int, height: Int)) {
            self = wholeFrame ? Keyed(width: video.width, height: video.height, fit: video.fit)
                : Keyed(width: own.width, height: own.height, fit: .stretch)
        }
    }

    /// What reading fx's border found: a screen's colour (the key's, `Pick`), or a border that is not clearly green or
    /// blue.
    enum Outcome {
        case picked(Pick)
        case noScreen(found: KeyColor)
    }

    /// Why no colour was picked from a border of colour `found` (the garbage rectangles' when `key` has them).
    static func noScreen(_ found: KeyColor, _ key: KeySettings) -> String {
        let border = key.garbage.isEmpty ? "the border" : "the borders of the --garbage rectangles"
        return "no green or blue screen at \(border) of its first frames (found \(found.hex))"
    }

    /// What `read` picked: the key colour, and the screen's own colour (the same unless pulled toward the primary).
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

    /// Counts the chroma of `frames` pictures spread evenly through the rest of fx (each the middle of its share) as
    /// well: stock effects (a flash, an explosion, a diamond that flies in) start on an empty screen, so the first
    /// frames alone would find no subject to keep and the screen's own colour would key it away.
    private static func countSubject(_ reader: VideoTrackReader, _ fx: MediaFile, rate: Rational, width w: Int, height h: Int,
                                     into chroma: inout [Int]) throws(MixWriteError) {
        let first = MediaTime(frames: Int64(frames), rate: rate)
        guard let length = fx.duration, length > first + first else { return }
        let share = (length.seconds - first.seconds) / Double(frames)
        var position = first
        for n in 0..<frames {
            guard let t = MediaTime(seconds: first.seconds + share * (Double(n) + 0.5)) else { continue }
            // Near, decoding on is cheaper than a seek, which starts again from the keyframe before `t` (as far back as
            // x264's default GOP, 250 frames); far, the seek skips what lies between.
            if (t - position).seconds > seekHorizon { try reader.seek(to: t) }
            position = t
            guard let picture = try reader.picture(at: t, hold: true) else { continue }
            countChroma(picture, width: w, height: h, into: &chroma)
        }
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

    /// Garbage rectangle `r` (X, Y, W, H in pixels) in chroma samples within a w × h picture (x0, y0, x1, y1), or nil
    /// when none of it is inside.
    private static func region(_ r: [Int], width w: Int, height h: Int) -> (Int, Int, Int, Int)? {
        let x0 = max(0, r[0] / 2), y0 = max(0, r[1] / 2), x1 = min(w / 2, (r[0] + r[2]) / 2), y1 = min(h / 2, (r[1] + r[3]) / 2)
        return x1 > x0 && y1 > y0 ? (x0, y0, x1, y1) : nil
    }

    /// The band of `band` of each side inside region r (chroma samples x0, y0, x1, y1), every other sample.
    private static func sampleBorder(_ f: Frame, _ r: (Int, Int, Int, Int), ys: inout [UInt8], us: inout [UInt8], vs: inout [UInt8]) {
        let (x0, y0, x1, y1) = r
        let bw = max(1, Int(Double(x1 - x0) * band)), bh = max(1, Int(Double(y1 - y0) * band))
        let py = f.plane(0), pu = f.plane(1), pv = f.plane(2)
        let sy = f.stride(0), su = f.stride(1), sv = f.stride(2)
        for cy in Swift.stride(from: y0, to: y1, by: 2) {
            let inRowBand = cy < y0 + bh || cy >= y1 - bh
            for cx in Swift.stride(from: x0, to: x1, by: 2) where inRowBand || cx < x0 + bw || cx >= x1 - bw {
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
