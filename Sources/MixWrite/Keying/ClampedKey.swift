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
        let l = (y - lumaZero) * lumaScale
        let o = offset(u: u, v: v)
        @inline(__always) func texel(_ x: Float) -> Float { (min(max(x, 0), 1) * 255).rounded() / 255 }
        let a = alpha(distance: distance(r: texel(l + o.r), g: texel(l + o.g), b: texel(l + o.b)))
        return UInt16((a * 256).rounded())
    }

    /// Over every luma an 8-bit pixel can have: the nearest and farthest (Cr, Cb) distance from the key of
    /// chroma (U, V), and the luma range (8-bit Y, lo > hi when empty) in which no channel clamps.
    func reach(u: Float, v: Float) -> (near: Float, far: Float, plateau: (lo: Int, hi: Int)) {
        let o = offset(u: u, v: v)
        let lowest = (0 - lumaZero) * lumaScale, highest = (255 - lumaZero) * lumaScale
        // The clamped colour is linear in luma between the lumas where a channel reaches 0 or 1.
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
        var near = Float.infinity, far: Float = 0
        for i in points.indices {
            let (x, y) = points[i]
            far = max(far, (x * x + y * y).squareRoot())
            near = min(near, (x * x + y * y).squareRoot())
            guard i > 0 else { continue }
            // The point of the segment nearest to the key (the origin here).
            let (px, py) = points[i - 1], (dx, dy) = (x - px, y - py)
            let length = dx * dx + dy * dy
            if length > 0 {
                let t = min(max(-(px * dx + py * dy) / length, 0), 1)
                let (qx, qy) = (px + t * dx, py + t * dy)
                near = min(near, (qx * qx + qy * qy).squareRoot())
            }
        }
        let unclampedLow = max(-min(o.r, o.g, o.b), 0), unclampedHigh = min(1 - max(o.r, o.g, o.b), 1)
        let lo = Int((unclampedLow / lumaScale + lumaZero).rounded(.up)), hi = Int((unclampedHigh / lumaScale + lumaZero).rounded(.down))
        return (near, far, (max(lo, 0), min(hi, 255)))
    }
}
