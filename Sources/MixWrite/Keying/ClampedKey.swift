import FFmpegSupport

/// GPUImage's alpha as its shaders compute it, luma included. The movie's YUV becomes RGB in an RGBA8
/// texture, clamped to 0 … 1 and rounded to 8 bits, and only then does the blend shader take (Cr, Cb). Where
/// no channel clamps, (Cr, Cb) and alpha depend on (U, V) alone (the table); a very bright or dark pixel with
/// strong chroma (a white line's anti-aliased edge on green, a glow) clamps, its chroma shrinks, and its alpha
/// changes with its luma. This knows, for each (U, V), the luma range that clamps nothing, and how far alpha
/// can move over all lumas (the path of the clamped colour as luma rises is a polyline: its nearest and
/// farthest points from the key bound the distance), and computes the exact alpha where it must.
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

    init(settings: ChromaKeyBlend.Settings, color: ColorDescription) {
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

    /// What the table keeps for chroma (U, V): the alpha that holds over a luma range `lumas` (8-bit Y,
    /// lo > hi when none), and by how many chroma steps the colour stays inside the keyed-out disc (alpha 256)
    /// or outside the soft edge (alpha 0) there, 0 for a soft alpha.
    ///
    /// As luma rises the clamped colour moves along a polyline (straight between the lumas where a channel
    /// reaches 0 or 1; constant where nothing clamps). Starting from the piece where nothing clamps (or mid
    /// grey's luma when every luma clamps), the range grows piece by piece while the distance stays at most
    /// halfway to the threshold (keyed) or to the soft edge (kept). A soft alpha holds where nothing clamps.
    func entry(u: Float, v: Float) -> (alpha: Int, margin: Int, lumas: (lo: Int, hi: Int)) {
        let o = offset(u: u, v: v)
        let lowest = (0 - lumaZero) * lumaScale, highest = (255 - lumaZero) * lumaScale
        let flatLow = -min(o.r, o.g, o.b), flatHigh = 1 - max(o.r, o.g, o.b)
        var lumas = [lowest, highest]
        for c in [o.r, o.g, o.b] {
            for l in [-c, 1 - c] where l > lowest && l < highest { lumas.append(l) }
        }
        lumas.sort()
        let points = lumas.map { l -> (Float, Float) in
            let r = min(max(l + o.r, 0), 1), g = min(max(l + o.g, 0), 1), b = min(max(l + o.b, 0), 1)
            let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
            return (0.7132 * (r - y) - key.cr, 0.5647 * (b - y) - key.cb)
        }
        func length(_ p: (Float, Float)) -> Float { (p.0 * p.0 + p.1 * p.1).squareRoot() }
        /// The nearest and farthest distance on piece i (between lumas[i] and lumas[i + 1]).
        func piece(_ i: Int) -> (near: Float, far: Float) {
            let (p, q) = (points[i], points[i + 1]), (dx, dy) = (q.0 - p.0, q.1 - p.1)
            let span = dx * dx + dy * dy
            let t = span > 0 ? min(max(-(p.0 * dx + p.1 * dy) / span, 0), 1) : 0
            return (min(length(p), length(q), length((p.0 + t * dx, p.1 + t * dy))), max(length(p), length(q)))
        }
        func y(_ l: Float) -> Float { l / lumaScale + lumaZero }
        let plateau = flatLow <= flatHigh
        let middle = plateau ? (flatLow + flatHigh) / 2 : min(max(0.5, lowest), highest)
        let start = max((0..<(lumas.count - 1)).last { lumas[$0] <= middle } ?? 0, 0)
        let rounding: Float = 0.002, edge = threshold + smoothing
        let (near, far) = piece(start)
        let softAlpha = Int((alpha(distance: (near + far) / 2) * 256).rounded())
        let soft = (alpha: softAlpha, margin: 0,
                    lumas: plateau ? (Int(y(flatLow).rounded(.up)), Int(y(flatHigh).rounded(.down))) : (1, 0))
        let keyed = far + rounding < threshold, kept = near - rounding > edge
        guard keyed || kept else { return soft }
        let limit = keyed ? far + (threshold - far) / 2 : near - (near - edge) / 2
        func fits(_ i: Int) -> Bool { keyed ? piece(i).far <= limit : piece(i).near >= limit }
        guard fits(start) else { return soft }
        var first = start, last = start
        while first > 0 && fits(first - 1) { first -= 1 }
        while last < lumas.count - 2 && fits(last + 1) { last += 1 }
        let bound = (first...last).map(piece)
        let steps = keyed ? (threshold - rounding - bound.map(\.far).max()!) : (bound.map(\.near).min()! - rounding - edge)
        let margin = min(127, Int((Double(steps) / step).rounded(.down)))
        guard margin >= 1 else { return soft }
        return (keyed ? 256 : 0, margin, (max(Int(y(lumas[first]).rounded(.up)), 0), min(Int(y(lumas[last + 1]).rounded(.down)), 255)))
    }
}
