import FFmpegSupport

/// Which blocks of a chroma row need the keyer's per-pixel path: those where GL_LINEAR interpolation
/// between neighbouring chroma samples, or the pixels' own lumas, can give a pixel an alpha other than its
/// block's.
///
/// A luma pixel's (U, V) is a weighted mean of its block's sample and the neighbours on its side, so it lies
/// within the 3×3 neighbourhood's spread of chroma (at most `spread` steps from each sample in U and in V).
/// One alpha serves the block's four pixels when
///  - every sample stays outside the soft edge, at any luma, by more than the spread (`kept` margin), or
///    inside the keyed-out disc by more than the spread (`keyed` margin): no pixel can be nearer or farther;
///  - or the nine samples are one chroma whose alpha is the same at every luma (`stable`).
/// Kept samples on opposite sides of the key (yellow beside cyan) are an edge: their mean may be green, as on
/// a GPU. Computed a row at a time, each row once, from a ring of three rows of horizontal minima and maxima.
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

    /// One chroma row's samples and their horizontal neighbourhood (itself and the samples left and right).
    private struct Slot {
        var row = -1
        var alpha: UnsafeMutablePointer<UInt16>
        var stable, kept, keyed, keptMin, keyedMin, uMin, uMax, vMin, vMax: UnsafeMutablePointer<UInt8>
        var anyAlpha: UInt16 = 0, allAlpha: UInt16 = 0

        init(width: Int) {
            alpha = .allocate(capacity: width)
            (stable, kept, keyed) = (.allocate(capacity: width), .allocate(capacity: width), .allocate(capacity: width))
            (keptMin, keyedMin) = (.allocate(capacity: width), .allocate(capacity: width))
            (uMin, uMax, vMin, vMax) = (.allocate(capacity: width), .allocate(capacity: width), .allocate(capacity: width),
                                        .allocate(capacity: width))
        }

        func deallocate() {
            alpha.deallocate()
            for p in [stable, kept, keyed, keptMin, keyedMin, uMin, uMax, vMin, vMax] { p.deallocate() }
        }
    }

    private let width: Int
    private var slots: [Slot]
    private let isEdge: UnsafeMutablePointer<UInt8>

    init(chromaWidth: Int) {
        width = chromaWidth
        slots = (0..<3).map { _ in Slot(width: chromaWidth) }
        isEdge = .allocate(capacity: chromaWidth)
    }

    func deallocate() {
        for s in slots { s.deallocate() }
        isEdge.deallocate()
    }

    /// Chroma row `cy` of `fx`, with `table` the keyer's packed entries (`ChromaKeyBlend.Entry`).
    func row(_ cy: Int, fx: YUVPlanes, table: UnsafePointer<UInt32>) -> Row {
        let a = slots[slot(max(cy - 1, 0), fx: fx, table: table)]
        let c = slots[slot(cy, fx: fx, table: table)]
        let b = slots[slot(min(cy + 1, fx.chromaHeight - 1), fx: fx, table: table)]
        var edges = 0
        for x in 0..<width {
            let keptMin = min(min(a.keptMin[x], c.keptMin[x]), b.keptMin[x])
            let keyedMin = min(min(a.keyedMin[x], c.keyedMin[x]), b.keyedMin[x])
            let uSpread = max(max(a.uMax[x], c.uMax[x]), b.uMax[x]) &- min(min(a.uMin[x], c.uMin[x]), b.uMin[x])
            let vSpread = max(max(a.vMax[x], c.vMax[x]), b.vMax[x]) &- min(min(a.vMin[x], c.vMin[x]), b.vMin[x])
            let spread = max(uSpread, vSpread)
            let flatAndStable: UInt8 = spread == 0 ? c.stable[x] : 0
            let one: UInt8 = (keptMin > spread ? 1 : 0) | (keyedMin > spread ? 1 : 0) | flatAndStable
            isEdge[x] = one ^ 1
            edges &+= Int(one ^ 1)
        }
        return Row(alpha: c.alpha, isEdge: isEdge, edges: edges, anyAlpha: c.anyAlpha, allAlpha: c.allAlpha)
    }

    /// The slot holding chroma row `r`, filled if it is not there yet.
    private func slot(_ r: Int, fx: YUVPlanes, table: UnsafePointer<UInt32>) -> Int {
        let i = r % 3
        if slots[i].row == r { return i }
        let s = slots[i]
        let u = fx.row(r, of: 1), v = fx.row(r, of: 2)
        var any: UInt16 = 0, all: UInt16 = 0xFFFF
        for x in 0..<width {
            let entry = table[Int(u[x]) &<< 8 | Int(v[x])]
            let alpha = UInt16(truncatingIfNeeded: entry & ChromaKeyBlend.Entry.alpha)
            s.alpha[x] = alpha
            s.kept[x] = UInt8(truncatingIfNeeded: entry &>> ChromaKeyBlend.Entry.keptShift) & 0x7F
            s.keyed[x] = UInt8(truncatingIfNeeded: entry &>> ChromaKeyBlend.Entry.keyedShift) & 0x7F
            s.stable[x] = entry & ChromaKeyBlend.Entry.stable != 0 ? 1 : 0
            any |= alpha
            all &= alpha
        }
        neighbourhood(s.kept, into: s.keptMin, width, min)
        neighbourhood(s.keyed, into: s.keyedMin, width, min)
        neighbourhood(u, into: s.uMin, width, min)
        neighbourhood(u, into: s.uMax, width, max)
        neighbourhood(v, into: s.vMin, width, min)
        neighbourhood(v, into: s.vMax, width, max)
        slots[i].row = r
        slots[i].anyAlpha = any
        slots[i].allAlpha = all
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
