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
        let edges: Int
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
    private let margin, low, high, lumaMin, lumaMax, isEdge: UnsafeMutablePointer<UInt8>

    init(chromaWidth: Int) {
        width = chromaWidth
        slots = (0..<3).map { _ in Slot(width: chromaWidth) }
        alpha = .allocate(capacity: chromaWidth)
        (margin, low, high) = (.allocate(capacity: chromaWidth), .allocate(capacity: chromaWidth), .allocate(capacity: chromaWidth))
        (lumaMin, lumaMax, isEdge) = (.allocate(capacity: chromaWidth), .allocate(capacity: chromaWidth), .allocate(capacity: chromaWidth))
    }

    func deallocate() {
        for s in slots { s.deallocate() }
        alpha.deallocate()
        for p in [margin, low, high, lumaMin, lumaMax, isEdge] { p.deallocate() }
    }

    /// Chroma row `cy` of `fx`, with `table` the keyer's packed entries (`ChromaKeyBlend.Entry`).
    func row(_ cy: Int, fx: YUVPlanes, table: UnsafePointer<UInt32>) -> Row {
        typealias E = ChromaKeyBlend.Entry
        let u = fx.row(cy, of: 1), v = fx.row(cy, of: 2)
        var any: UInt16 = 0, all: UInt16 = 0xFFFF
        for x in 0..<width {
            let entry = table[Int(u[x]) &<< 8 | Int(v[x])]
            let a = UInt16(truncatingIfNeeded: entry & E.alpha)
            alpha[x] = a
            margin[x] = UInt8(truncatingIfNeeded: entry &>> E.marginShift) & 0x7F
            low[x] = UInt8(truncatingIfNeeded: entry &>> E.lowShift)
            high[x] = UInt8(truncatingIfNeeded: entry &>> E.highShift)
            any |= a
            all &= a
        }
        // The lumas of each block's pixels.
        let top = fx.row(2 * cy, of: 0), bottom = fx.row(min(2 * cy + 1, fx.height - 1), of: 0)
        for x in 0..<(fx.width / 2) {
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
        var edges = 0
        for x in 0..<width {
            let uSpread = max(max(a.uMax[x], c.uMax[x]), b.uMax[x]) &- min(min(a.uMin[x], c.uMin[x]), b.uMin[x])
            let vSpread = max(max(a.vMax[x], c.vMax[x]), b.vMax[x]) &- min(min(a.vMin[x], c.vMin[x]), b.vMin[x])
            let spread = max(uSpread, vSpread)
            let chromaHolds: UInt8 = margin[x] > spread || spread == 0 ? 1 : 0
            let lumaHolds: UInt8 = lumaMin[x] >= low[x] && lumaMax[x] <= high[x] ? 1 : 0
            let edge = (chromaHolds & lumaHolds) ^ 1
            isEdge[x] = edge
            edges &+= Int(edge)
        }
        return Row(alpha: alpha, isEdge: isEdge, edges: edges, anyAlpha: any, allAlpha: all)
    }

    /// The slot holding chroma row `r`'s neighbourhood minima and maxima, filled if it is not there yet.
    private func slot(_ r: Int, fx: YUVPlanes) -> Int {
        let i = r % 3
        if slots[i].row == r { return i }
        let s = slots[i]
        let u = fx.row(r, of: 1), v = fx.row(r, of: 2)
        neighbourhood(u, into: s.uMin, width, min)
        neighbourhood(u, into: s.uMax, width, max)
        neighbourhood(v, into: s.vMin, width, min)
        neighbourhood(v, into: s.vMax, width, max)
        slots[i].row = r
        return i
    }
}

/// out[x] = pick(x − 1, x, x + 1), clamped at the ends: vector code once inlined.
@inline(__always)
private func neighbourhood(_ p: UnsafeMutablePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, _ n: Int,
                           _ pick: (UInt8, UInt8) -> UInt8) {
    guard n > 1 else { out[0] = p[0]; return }
    out[0] = pick(p[0], p[1])
    for x in 1..<(n - 1) { out[x] = pick(pick(p[x - 1], p[x]), p[x + 1]) }
    out[n - 1] = pick(p[n - 2], p[n - 1])
}
