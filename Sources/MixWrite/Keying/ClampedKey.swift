import FFmpegSupport

/// GPUImage's alpha as its shaders compute it, luma included. The movie's YUV becomes RGB in an RGBA8
/// texture, clamped to 0 … 1 and rounded to 8 bits, and only then does the blend shader take (Cr, Cb). Where
/// no channel clamps, (Cr, Cb) and alpha depend on (U, V) alone (the table); a very bright or dark pixel with
/// strong chroma (a white line's anti-aliased edge on green, a glow) clamps, its chroma shrinks, and its alpha
/// changes with its luma. This finds, for each (U, V), the luma range over which one alpha holds (`entry`,
/// `softEntry`: the table's), and computes the exact alpha of a pixel outside it.
struct ClampedKey: Sendable {
    let threshold: Float
    let smoothing: Float
    /// The key's (Cr, Cb).
    let key: (cr: Float, cb: Float)
    /// RGB offset per 8-bit step of U and of V, and luma per 8-bit step of Y from `lumaZero`.
    let perU: (r: Float, g: Float, b: Float)
    let perV: (r: Float, g: Float, b: Float)
    let lumaScale: Float
    let lumaZero: Float
    /// The most (Cr, Cb) can move, clamping included, when U and V move by one step each at most.
    let step: Double

    init(settings: KeySettings, color: ColorDescription) {
        threshold = Float(settings.threshold)
        smoothing = Float(settings.smoothing)
        let k = ChromaKeyBlend.gpuImageChroma(r: settings.keyColor.r, g: settings.keyColor.g, b: settings.keyColor.b)
        key = (Float(k.cr), Float(k.cb))
        let o = color.rgbOffset(u: 128, v: 128), u1 = color.rgbOffset(u: 129, v: 128), v1 = color.rgbOffset(u: 128, v: 129)
        perU = (Float(u1.r - o.r), Float(u1.g - o.g), Float(u1.b - o.b))
        perV = (Float(v1.r - o.r), Float(v1.g - o.g), Float(v1.b - o.b))
        lumaScale = color.fullRange ? 1 / 255 : 1 / 219
        lumaZero = color.fullRange ? 0 : 16
        // Clamping moves no channel more than the offset moves; Cr and Cb weigh the channel moves.
        let dr = Double(abs(perU.r) + abs(perV.r)), dg = Double(abs(perU.g) + abs(perV.g)), db = Double(abs(perU.b) + abs(perV.b))
        let crMove = 0.7132 * (0.7011 * dr + 0.5866 * dg + 0.1145 * db)
        let cbMove = 0.5647 * (0.2989 * dr + 0.5866 * dg + 0.8855 * db)
        step = (crMove * crMove + cbMove * cbMove).squareRoot()
    }

    /// The RGB offset of chroma (U, V) in 8-bit units (fractions allowed).
    @inline(__always)
    func offset(u: Float, v: Float) -> (r: Float, g: Float, b: Float) {
        let du = u - 128, dv = v - 128
        return (du * perU.r + dv * perV.r, du * perU.g + dv * perV.g, du * perU.b + dv * perV.b)
    }

    /// GPUImage's distance from the key of an RGB colour.
    @inline(__always)
    func distance(r: Float, g: Float, b: Float) -> Float {
        let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
        let dcr = 0.7132 * (r - y) - key.cr, dcb = 0.5647 * (b - y) - key.cb
        return (dcr * dcr + dcb * dcb).squareRoot()
    }

    @inline(__always)
    func alpha(distance d: Float) -> Float {
        let e1 = threshold + smoothing
        guard e1 > threshold else { return d < threshold ? 1 : 0 }
        let t = min(max((d - threshold) / smoothing, 0), 1)
        return 1 - t * t * (3 - 2 * t)
    }

    /// The exact alpha (0 … 256) of a pixel: luma `y` and chroma (U, V) in 8-bit units, through the RGBA8 texture.
    @inline(__always)
    func alpha(y: Float, u: Float, v: Float) -> UInt16 {
        let t = texel(y: y, u: u, v: v)
        return UInt16(alpha(distance: distance(r: t.r, g: t.g, b: t.b)) * 256 + 0.5)
    }

    /// A pixel's RGB as the RGBA8 texture holds it: luma `y`, chroma (U, V) in 8-bit units, clamped to 0 … 1
    /// and rounded to 8 bits (non-negative values, so truncation after + 0.5: no libm call on this path).
    @inline(__always)
    func texel(y: Float, u: Float, v: Float) -> (r: Float, g: Float, b: Float) {
        let l = (y - lumaZero) * lumaScale
        let o = offset(u: u, v: v)
        @inline(__always) func q(_ x: Float) -> Float { Float(Int(min(max(x, 0), 1) * 255 + 0.5)) / 255 }
        return (q(l + o.r), q(l + o.g), q(l + o.b))
    }

    /// The table entry of a keyed or kept chroma (U, V): its alpha (256 or 0), by how many chroma steps the
    /// colour stays inside the keyed-out disc or outside the soft edge, and the 8-bit luma range where that
    /// holds; nil for a soft alpha, or a margin under one step (`softEntry` then).
    ///
    /// As luma rises the clamped colour moves along a polyline in (Cr, Cb): straight between the lumas where
    /// a channel reaches 0 or 1, still where nothing clamps. The colour's class (keyed, kept or soft) is read
    /// at `referenceLuma`. A keyed or kept colour gets a distance limit, halfway between its distance at the
    /// reference and the soft edge (but never more than `marginCap` steps inside), and the range is every
    /// luma around the reference whose clamped colour stays within that limit: on each straight piece the
    /// squared distance is a quadratic in luma, so the range ends exactly where it crosses the limit.
    func entry(u: Float, v: Float) -> (alpha: Int, margin: Int, lumas: (lo: Int, hi: Int))? {
        let o = offset(u: u, v: v)
        let reference = referenceLuma(o)
        let at = chroma(reference, o)
        let d = (at.0 * at.0 + at.1 * at.1).squareRoot()
        let edge = threshold + smoothing
        let keyed = d + ClampedKey.rounding < threshold, kept = d - ClampedKey.rounding > edge
        guard keyed || kept else { return nil }
        let cap = Float(Double(ClampedKey.marginCap) * step)
        let limit = keyed ? max((d + threshold) / 2, threshold - ClampedKey.rounding - cap)
                          : min((d + edge) / 2, edge + ClampedKey.rounding + cap)
        let margin = min(127, Int((Double(keyed ? threshold - ClampedKey.rounding - limit : limit - ClampedKey.rounding - edge)
                                   / step).rounded(.down)))
        guard margin >= 1 else { return nil }
        let (low, high) = lumaSpan(o, from: reference, within: limit, keyed: keyed)
        func y(_ l: Float) -> Float { l / lumaScale + lumaZero }
        return (keyed ? 256 : 0, margin,
                (max(Int(y(low).rounded(.up)), 0), min(Int(y(high).rounded(.down)), 255)))
    }

    /// GPUImage's (Cr, Cb) less the key's, of the colour at luma `l` (0 … 1 scale) with offset `o`, clamped to RGB.
    @inline(__always)
    private func chroma(_ l: Float, _ o: (r: Float, g: Float, b: Float)) -> (Float, Float) {
        let r = min(max(l + o.r, 0), 1), g = min(max(l + o.g, 0), 1), b = min(max(l + o.b, 0), 1)
        let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
        return (0.7132 * (r - y) - key.cr, 0.5647 * (b - y) - key.cb)
    }

    /// The lumas around `reference` (0 … 1 scale) over which the colour with offset `o` stays inside `limit` of the
    /// key (`keyed`) or outside it (kept): from the reference, piece by piece along the polyline the clamped colour
    /// follows, up and down to where the distance crosses the limit.
    private func lumaSpan(_ o: (r: Float, g: Float, b: Float), from reference: Float, within limit: Float,
                          keyed: Bool) -> (low: Float, high: Float) {
        let (knots, count) = self.knots(o)
        var piece = 0
        while piece < count - 2 && knots[piece + 1] <= reference { piece += 1 }
        /// How far the limit holds along piece i from luma `from`, going up (or down): the luma where it stops.
        func reach(_ i: Int, from: Float, up: Bool) -> Float {
            let (k0, k1) = (knots[i], knots[i + 1])
            let w = k1 - k0
            guard w > 0 else { return up ? k1 : k0 }
            let p = chroma(k0, o), q = chroma(k1, o)
            let dx = (q.0 - p.0) / w, dy = (q.1 - p.1) / w
            // |p + s·(dx, dy)|² − limit², s = luma − k0.
            let qa = dx * dx + dy * dy, qb = 2 * (p.0 * dx + p.1 * dy), qc = p.0 * p.0 + p.1 * p.1 - limit * limit
            let disc = qb * qb - 4 * qa * qc
            let s = from - k0
            if qa <= 0 || disc < 0 {
                // Still, or never crossing the limit on this line: the whole piece is on the start's side.
                return up ? k1 : k0
            }
            let root = disc.squareRoot()
            let s1 = (-qb - root) / (2 * qa), s2 = (-qb + root) / (2 * qa)
            // Where the limit is crossed, as a luma (the piece's end when it is not crossed on it).
            func luma(_ stop: Float) -> Float { stop >= w ? k1 : stop <= 0 ? k0 : k0 + stop }
            if keyed { return luma(up ? s2 : s1) }
            // Kept: outside [s1, s2]; the start is on one side of it.
            if s < (s1 + s2) / 2 { return up ? luma(max(s1, s)) : k0 }
            return up ? k1 : luma(min(s2, s))
        }
        var high = reference, low = reference
        var i = piece
        while true {
            high = reach(i, from: high, up: true)
            guard high >= knots[i + 1] && i < count - 2 else { break }
            i += 1
        }
        i = piece
        while true {
            low = reach(i, from: low, up: false)
            guard low <= knots[i] && i > 0 else { break }
            i -= 1
        }
        return (low, high)
    }

    /// The polyline's knots: where a channel reaches 0 or 1, inside the lumas 8 bits can hold, in order, and
    /// their count (the lowest and highest luma included).
    private func knots(_ o: (r: Float, g: Float, b: Float)) -> (InlineArray<8, Float>, Int) {
        let lowest = (0 - lumaZero) * lumaScale, highest = (255 - lumaZero) * lumaScale
        var knots = InlineArray<8, Float>(repeating: highest)
        knots[0] = lowest
        var count = 1
        for c in [o.r, o.g, o.b] {
            for l in [-c, 1 - c] where l > lowest && l < highest {
                var i = count
                while i > 1 && knots[i - 1] > l { knots[i] = knots[i - 1]; i -= 1 }
                knots[i] = l
                count += 1
            }
        }
        knots[count] = highest
        return (knots, count + 1)
    }

    /// The table entry of a chroma whose alpha is soft (or keyed or kept without a margin): the exact alpha at
    /// `referenceLuma`, and the lumas around it whose exact alpha is within 1/256 of it. A flat area of such a colour (a saturated yellow or cyan,
    /// whose clamped colour lies in the soft edge) then takes the table, not the exact maths pixel by pixel.
    func softEntry(u: Float, v: Float) -> (alpha: Int, margin: Int, lumas: (lo: Int, hi: Int)) {
        let start = min(max(Int((referenceLuma(offset(u: u, v: v)) / lumaScale + lumaZero).rounded()), 0), 255)
        let a = Int(alpha(y: Float(start), u: u, v: v))
        var (lo, hi) = (start, start)
        while hi < 255 && abs(Int(alpha(y: Float(hi + 1), u: u, v: v)) - a) <= 1 { hi += 1 }
        while lo > 0 && abs(Int(alpha(y: Float(lo - 1), u: u, v: v)) - a) <= 1 { lo -= 1 }
        return (a, 0, (lo, hi))
    }

    /// The luma (0 … 1 scale, inside what 8 bits hold) a chroma with RGB offset `o` is judged at: the middle
    /// of the range where no channel clamps or, for a colour outside the gamut, where it clamps least, which
    /// is the luma a saturated colour's pixels have.
    private func referenceLuma(_ o: (r: Float, g: Float, b: Float)) -> Float {
        let flatLow = -min(o.r, o.g, o.b), flatHigh = 1 - max(o.r, o.g, o.b)
        return min(max((flatLow + flatHigh) / 2, (0 - lumaZero) * lumaScale), (255 - lumaZero) * lumaScale)
    }

    /// How much the RGBA8 texture's rounding (half an 8-bit step a channel) can move the distance to the key.
    static let rounding: Float = 0.003
    /// The most chroma steps a table entry keeps in hand: enough for the sample-to-sample spread of a noisy
    /// screen, and no more, so that the luma range stays wide.
    static let marginCap = 24
}
