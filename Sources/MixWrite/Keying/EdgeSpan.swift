import FFmpegSupport

/// The keyer's per-pixel path for eight neighbouring blocks at a time: GL_LINEAR chroma and GPUImage's exact
/// alpha (the RGBA8 texture's clamping and rounding included) for the 32 luma pixels, eight lanes of floats at
/// a time. `ChromaKeyBlend.blendEdges` runs it on spans that hold an edge block and writes its results into
/// the edge blocks only.
struct EdgeSpan {
    typealias F = SIMD8<Float>

    let threshold: F
    let inverseSmoothing: F
    let hardEdge: Bool
    let key: (cr: F, cb: F)
    let perU: (r: F, g: F, b: F)
    let perV: (r: F, g: F, b: F)
    let lumaScale: F
    let lumaZero: F

    init(_ k: ClampedKey) {
        threshold = F(repeating: k.threshold)
        hardEdge = !(k.smoothing > 0)
        inverseSmoothing = F(repeating: hardEdge ? 0 : 1 / k.smoothing)
        key = (F(repeating: k.key.cr), F(repeating: k.key.cb))
        perU = (F(repeating: k.perU.r), F(repeating: k.perU.g), F(repeating: k.perU.b))
        perV = (F(repeating: k.perV.r), F(repeating: k.perV.g), F(repeating: k.perV.b))
        lumaScale = F(repeating: k.lumaScale)
        lumaZero = F(repeating: k.lumaZero)
    }

    /// GPUImage's alpha (0 … 256, whole numbers) of eight pixels: 8-bit luma, chroma in 1/16 steps.
    @inline(__always)
    func alpha(y: F, u16: F, v16: F) -> F {
        let du = u16 * (1 / 16) - 128, dv = v16 * (1 / 16) - 128
        let l = (y - lumaZero) * lumaScale
        let r = texel(l + du * perU.r + dv * perV.r)
        let g = texel(l + du * perU.g + dv * perV.g)
        let b = texel(l + du * perU.b + dv * perV.b)
        let luma = 0.2989 * r + 0.5866 * g + 0.1145 * b
        let dcr = 0.7132 * (r - luma) - key.cr, dcb = 0.5647 * (b - luma) - key.cb
        let d = (dcr * dcr + dcb * dcb).squareRoot()
        if hardEdge { return F(repeating: 0).replacing(with: 256, where: d .< threshold) }
        let t = clamp01((d - threshold) * inverseSmoothing)
        return nearest((1 - t * t * (3 - 2 * t)) * 256)
    }

    /// A channel as the RGBA8 texture holds it: clamped to 0 … 1, rounded to 8 bits.
    @inline(__always)
    private func texel(_ x: F) -> F { nearest(clamp01(x) * 255) * (1 / 255) }

    /// GL_LINEAR chroma, in 1/16 steps, of the 16 luma pixels of chroma samples cx … cx + 7 on the block row's
    /// top (dy 0) or bottom (dy 1) luma row: even pixels (each block's left) and odd ones. Needs cx − 1 and
    /// cx + 8 inside the row.
    @inline(__always)
    static func chroma(_ c: LinearChroma, _ cx: Int, dy: Int) -> (even: F, odd: F) {
        let other = dy == 0 ? c.above : c.below
        @inline(__always) func vertical(_ x: Int) -> F { 3 * bytes(c.row + x) + bytes(other + x) }
        let centre = 3 * vertical(cx)
        return (centre + vertical(cx - 1), centre + vertical(cx + 1))
    }

    /// Eight bytes as floats.
    @inline(__always)
    static func bytes(_ p: UnsafeMutablePointer<UInt8>) -> F {
        F(SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)))
    }

    /// Sixteen luma bytes from `p` as the even pixels' and the odd pixels' values.
    @inline(__always)
    static func lumas(_ p: UnsafeMutablePointer<UInt8>) -> (even: F, odd: F) {
        let pairs = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self))
        return (F(pairs & 0xFF), F(pairs &>> 8))
    }
}

/// Round to the nearest whole number (ties to even) for 0 ≤ x < 2²³: the float adder's own rounding, one
/// vector instruction each way on any x86-64 (`rounded()` needs SSE4.1, else it is a call a lane).
@inline(__always)
func nearest(_ x: SIMD8<Float>) -> SIMD8<Float> { (x + 8_388_608) - 8_388_608 }

@inline(__always)
func clamp01(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let low = x.replacing(with: 0, where: x .< 0)
    return low.replacing(with: 1, where: low .> 1)
}

/// The nearest whole numbers of x (0 ≤ x < 2²³) as integers: x + 2²³ holds it in its low 23 bits.
@inline(__always)
func wholeNumbers(_ x: SIMD8<Float>) -> SIMD8<UInt32> {
    unsafeBitCast(x + 8_388_608, to: SIMD8<UInt32>.self) & 0x7F_FFFF
}

/// Stores the low bytes of `values` at `p` in the lanes `mask` selects; the other seven or fewer bytes keep theirs.
@inline(__always)
func storeBytes(_ values: SIMD8<UInt32>, at p: UnsafeMutablePointer<UInt8>, where mask: SIMDMask<SIMD8<Int32>>) {
    let old = SIMD8<UInt32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
    let new = SIMD8<UInt8>(truncatingIfNeeded: old.replacing(with: values, where: mask))
    UnsafeMutableRawPointer(p).storeBytes(of: new, as: SIMD8<UInt8>.self)
}

/// Stores `even` and `odd` interleaved as 16-bit values at `p` (pair i at p[2i], p[2i + 1]) where `mask` selects.
@inline(__always)
func storePairs(_ even: SIMD8<UInt32>, _ odd: SIMD8<UInt32>, at p: UnsafeMutablePointer<UInt16>, where mask: SIMDMask<SIMD8<Int32>>) {
    let old = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt32>.self)
    UnsafeMutableRawPointer(p).storeBytes(of: old.replacing(with: even | odd &<< 16, where: mask), as: SIMD8<UInt32>.self)
}
