import FFmpegSupport

/// Which blocks of a chroma row need the keyer's per-pixel path: those where GL_LINEAR interpolation
/// between neighbouring chroma samples, or the pixels' own lumas, can give a pixel an alpha other than its
/// block's.
///
/// A luma pixel's (U, V) is a weighted mean of its block's sample and the neighbours on its side, so it lies
/// within `spread` steps (in U and in V) of the block's sample, the spread of the 3×3 neighbourhood. One alpha
/// serves the block's four pixels when their lumas are in the range where the sample's table entry holds and
///  - the sample stays keyed out, or kept, by more chroma steps than the spread (its `margin`): no pixel's
///    chroma can reach the soft edge; or
///  - the nine samples are one chroma (a soft alpha, say, of smoke).
/// Kept samples on opposite sides of the key (yellow beside cyan) are an edge: their mean may be green, as on
/// a GPU. Computed a row at a time, each row's chroma minima and maxima once, in a ring of three rows.
final class EdgeMap {
    struct Row {
        /// Each sample's alpha, 0 … 256.
        let alpha: UnsafeMutablePointer<UInt16>
        /// Nonzero where the block is an edge.
        let isEdge: UnsafeMutablePointer<UInt8>
        let hasEdges: Bool
        /// OR and AND of the row's alphas: 0 when all are kept, 256 when all are keyed out.
        let anyAlpha: UInt16
        let allAlpha: UInt16
    }

    /// One chroma row's horizontal neighbourhood (itself and the samples left and right).
    private struct Slot {
        var row = -1
        var uMin, uMax, vMin, vMax: UnsafeMutablePointer<UInt8>

        init(width: Int) {
            (uMin, uMax, vMin, vMax) = (.allocate(capacity: width), .allocate(capacity: width), .allocate(capacity: width),
                                        .allocate(capacity: width))
        }

        func deallocate() { for p in [uMin, uMax, vMin, vMax] { p.deallocate() } }
    }

    private let width: Int
    private var slots: [Slot]
    private let alpha: UnsafeMutablePointer<UInt16>
    private let entries: UnsafeMutablePointer<UInt32>
    private let lumaMin, lumaMax, isEdge: UnsafeMutablePointer<UInt8>

    init(chromaWidth: Int) {
        width = chromaWidth
        slots = (0..<3).map { _ in Slot(width: chromaWidth) }
        alpha = .allocate(capacity: chromaWidth)
        entries = .allocate(capacity: chromaWidth)
        (lumaMin, lumaMax, isEdge) = (.allocate(capacity: chromaWidth), .allocate(capacity: chromaWidth), .allocate(capacity: chromaWidth))
    }

    func deallocate() {
        for s in slots { s.deallocate() }
        alpha.deallocate()
        entries.deallocate()
        for p in [lumaMin, lumaMax, isEdge] { p.deallocate() }
    }

    /// Chroma row `cy` of `fx`, with `table` the keyer's packed entries (`ChromaKeyBlend.Entry`).
    /// The look-up is one load a sample; the rest runs 16 samples at a time.
    func row(_ cy: Int, fx: YUVPlanes, table: UnsafePointer<UInt32>) -> Row {
        typealias E = ChromaKeyBlend.Entry
        let (alpha, entries, lumaMin, lumaMax, isEdge, width) = (self.alpha, self.entries, self.lumaMin, self.lumaMax,
                                                                 self.isEdge, self.width)
        let u = fx.row(cy, of: 1), v = fx.row(cy, of: 2)
        for x in 0..<width { entries[x] = table[Int(u[x]) &<< 8 | Int(v[x])] }
        // The lumas of each block's pixels.
        let top = fx.row(2 * cy, of: 0), bottom = fx.row(min(2 * cy + 1, fx.height - 1), of: 0)
        let pairs = fx.width / 2
        var x = 0
        while x + 16 <= pairs {
            // Two rows of 32 lumas, as 16 pairs: the low byte of each 16-bit lane is the left pixel.
            let t = load(SIMD16<UInt16>.self, top + 2 * x), b = load(SIMD16<UInt16>.self, bottom + 2 * x)
            let lower = vmin(t, b), upper = vmax(t, b)
            store(SIMD16<UInt8>(truncatingIfNeeded: vmin(lower & 0xFF, lower &>> 8)), lumaMin + x)
            store(SIMD16<UInt8>(truncatingIfNeeded: vmax(upper & 0xFF, upper &>> 8)), lumaMax + x)
            x += 16
        }
        for x in x..<pairs {
            lumaMin[x] = min(min(top[2 * x], top[2 * x + 1]), min(bottom[2 * x], bottom[2 * x + 1]))
            lumaMax[x] = max(max(top[2 * x], top[2 * x + 1]), max(bottom[2 * x], bottom[2 * x + 1]))
        }
        if fx.width % 2 == 1 {
            let x = width - 1
            (lumaMin[x], lumaMax[x]) = (min(top[2 * x], bottom[2 * x]), max(top[2 * x], bottom[2 * x]))
        }
        let a = slots[slot(max(cy - 1, 0), fx: fx)]
        let c = slots[slot(cy, fx: fx)]
        let b = slots[slot(min(cy + 1, fx.chromaHeight - 1), fx: fx)]
        var anyEdge = SIMD16<UInt8>(), anyAlpha = SIMD16<UInt16>(), allAlpha = SIMD16<UInt16>(repeating: 0xFFFF)
        x = 0
        while x + 16 <= width {
            typealias V = SIMD16<UInt8>
            let e = UnsafeRawPointer(entries + x).loadUnaligned(as: SIMD16<UInt32>.self)
            let sampleAlpha = SIMD16<UInt16>(truncatingIfNeeded: e & E.alpha)
            UnsafeMutableRawPointer(alpha + x).storeBytes(of: sampleAlpha, as: SIMD16<UInt16>.self)
            anyAlpha |= sampleAlpha
            allAlpha &= sampleAlpha
            let margin = V(truncatingIfNeeded: (e &>> E.marginShift) & 0x7F)
            let low = V(truncatingIfNeeded: (e &>> E.lowShift) & 0xFF), high = V(truncatingIfNeeded: e &>> E.highShift)
            let spread = vmax(spread(x, (a.uMin, c.uMin, b.uMin), (a.uMax, c.uMax, b.uMax)),
                              spread(x, (a.vMin, c.vMin, b.vMin), (a.vMax, c.vMax, b.vMax)))
            let chromaHolds = bits(margin .> spread) | bits(spread .== V())
            let lumaHolds = bits(load(V.self, lumaMin + x) .>= low) & bits(load(V.self, lumaMax + x) .<= high)
            let edge = ~(chromaHolds & lumaHolds) & 1
            store(edge, isEdge + x)
            anyEdge |= edge
            x += 16
        }
        var any: UInt16 = 0, all: UInt16 = 0xFFFF
        for i in 0..<16 { any |= anyAlpha[i]; all &= allAlpha[i] }
        for x in x..<width {
            let e = entries[x]
            let sampleAlpha = UInt16(truncatingIfNeeded: e & E.alpha)
            alpha[x] = sampleAlpha
            any |= sampleAlpha
            all &= sampleAlpha
            let margin = UInt8(truncatingIfNeeded: e &>> E.marginShift) & 0x7F
            let low = UInt8(truncatingIfNeeded: e &>> E.lowShift), high = UInt8(truncatingIfNeeded: e &>> E.highShift)
            let uSpread = max(max(a.uMax[x], c.uMax[x]), b.uMax[x]) &- min(min(a.uMin[x], c.uMin[x]), b.uMin[x])
            let vSpread = max(max(a.vMax[x], c.vMax[x]), b.vMax[x]) &- min(min(a.vMin[x], c.vMin[x]), b.vMin[x])
            let spread = max(uSpread, vSpread)
            let chromaHolds: UInt8 = margin > spread || spread == 0 ? 1 : 0
            let lumaHolds: UInt8 = lumaMin[x] >= low && lumaMax[x] <= high ? 1 : 0
            let edge = (chromaHolds & lumaHolds) ^ 1
            isEdge[x] = edge
            anyEdge[0] |= edge
        }
        return Row(alpha: alpha, isEdge: isEdge, hasEdges: anyEdge != SIMD16<UInt8>(), anyAlpha: any, allAlpha: all)
    }

    /// The slot holding chroma row `r`'s neighbourhood minima and maxima, filled if it is not there yet.
    private func slot(_ r: Int, fx: YUVPlanes) -> Int {
        let i = r % 3
        if slots[i].row == r { return i }
        let s = slots[i]
        let u = fx.row(r, of: 1), v = fx.row(r, of: 2)
        neighbourhood(u, min: s.uMin, max: s.uMax, width)
        neighbourhood(v, min: s.vMin, max: s.vMax, width)
        slots[i].row = r
        return i
    }
}

// Lane-wise minimum, maximum and masks in the forms the compiler turns into single vector instructions
// (the standard library's pointwiseMin is a call, and a mask's `replacing` a loop over lanes).
// Only concrete vector types get the compiler's vector comparisons; a generic one, or one against a scalar,
// is a loop.
@inline(__always)
private func vmin(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .< a) }
@inline(__always)
private func vmax(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .> a) }
@inline(__always)
private func vmin(_ a: SIMD16<UInt16>, _ b: SIMD16<UInt16>) -> SIMD16<UInt16> { a.replacing(with: b, where: b .< a) }
@inline(__always)
private func vmax(_ a: SIMD16<UInt16>, _ b: SIMD16<UInt16>) -> SIMD16<UInt16> { a.replacing(with: b, where: b .> a) }

/// A 16-lane mask as bytes, 0xFF where true.
@inline(__always)
private func bits(_ mask: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> { unsafeBitCast(mask, to: SIMD16<UInt8>.self) }

/// max − min over three rows of a neighbourhood's maxima and minima, at 16 samples from x.
@inline(__always)
private func spread(_ x: Int, _ mins: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
                    _ maxs: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)) -> SIMD16<UInt8> {
    typealias V = SIMD16<UInt8>
    let high = vmax(vmax(load(V.self, maxs.0 + x), load(V.self, maxs.1 + x)), load(V.self, maxs.2 + x))
    let low = vmin(vmin(load(V.self, mins.0 + x), load(V.self, mins.1 + x)), load(V.self, mins.2 + x))
    return high &- low
}

@inline(__always)
private func load<V: SIMD>(_: V.Type, _ p: UnsafeMutablePointer<UInt8>) -> V {
    UnsafeRawPointer(p).loadUnaligned(as: V.self)
}

@inline(__always)
private func store<V: SIMD>(_ value: V, _ p: UnsafeMutablePointer<UInt8>) {
    UnsafeMutableRawPointer(p).storeBytes(of: value, as: V.self)
}

/// The minimum and maximum of (x − 1, x, x + 1) at each x, clamped at the ends; 16 at a time.
private func neighbourhood(_ p: UnsafeMutablePointer<UInt8>, min lows: UnsafeMutablePointer<UInt8>,
                           max highs: UnsafeMutablePointer<UInt8>, _ n: Int) {
    guard n > 1 else { (lows[0], highs[0]) = (p[0], p[0]); return }
    (lows[0], highs[0]) = (min(p[0], p[1]), max(p[0], p[1]))
    var x = 1
    while x + 16 <= n - 1 {
        typealias V = SIMD16<UInt8>
        let l = load(V.self, p + x - 1), c = load(V.self, p + x), r = load(V.self, p + x + 1)
        store(vmin(vmin(l, c), r), lows + x)
        store(vmax(vmax(l, c), r), highs + x)
        x += 16
    }
    for x in x..<(n - 1) {
        lows[x] = min(min(p[x - 1], p[x]), p[x + 1])
        highs[x] = max(max(p[x - 1], p[x]), p[x + 1])
    }
    (lows[n - 1], highs[n - 1]) = (min(p[n - 2], p[n - 1]), max(p[n - 2], p[n - 1]))
}
