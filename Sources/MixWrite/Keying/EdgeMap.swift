internal import CKeyKernel
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
        /// `MW_EDGE` (1) where the block is an edge, 0 where not; the span kernel adds `MW_KEYED` to the blocks it keys.
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
    /// The C kernel's functions at the level the span kernel runs (`EdgeSpan.level`).
    private let kernel: MWKeyKernel
    private var slots: [Slot]
    private let alpha: UnsafeMutablePointer<UInt16>
    private let entries: UnsafeMutablePointer<UInt32>
    private let lumaMin, lumaMax, isEdge: UnsafeMutablePointer<UInt8>

    init(chromaWidth: Int, level: Int32) {
        width = chromaWidth
        kernel = KeyKernel.table(level)
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

    /// Chroma row `cy` of `fx`, with `table` the keyer's packed entries (`ChromaKeyBlend.Entry`). The loops are
    /// C (the kernel's `edgeRow`), compiled for the same instruction sets as the span kernel.
    func row(_ cy: Int, fx: YUVPlanes, table: UnsafePointer<UInt32>) -> Row {
        let a = slots[slot(max(cy - 1, 0), fx: fx)]
        let c = slots[slot(cy, fx: fx)]
        let b = slots[slot(min(cy + 1, fx.chromaHeight - 1), fx: fx)]
        typealias Three = (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?)
        func three(_ p: (Slot) -> UnsafeMutablePointer<UInt8>) -> Three { (UnsafePointer(p(a)), UnsafePointer(p(c)), UnsafePointer(p(b))) }
        var request = MWEdgeRow(
            table: table, u: fx.row(cy, of: 1), v: fx.row(cy, of: 2),
            lumaTop: fx.lumaRow(0, ofChromaRow: cy), lumaBottom: fx.lumaRow(1, ofChromaRow: cy),
            width: width, lumaWidth: fx.width,
            uMin: three { $0.uMin }, uMax: three { $0.uMax }, vMin: three { $0.vMin }, vMax: three { $0.vMax },
            alpha: alpha, isEdge: isEdge, entries: entries, lumaMin: lumaMin, lumaMax: lumaMax)
        let summary = kernel.edgeRow(&request)
        return Row(alpha: alpha, isEdge: isEdge, hasEdges: summary.hasEdges != 0, anyAlpha: summary.anyAlpha,
                   allAlpha: summary.allAlpha)
    }

    /// The slot holding chroma row `r`'s neighbourhood minima and maxima, filled if it is not there yet.
    private func slot(_ r: Int, fx: YUVPlanes) -> Int {
        let i = r % 3
        if slots[i].row == r { return i }
        let s = slots[i]
        let neighbourhood = kernel.neighbourhood!
        neighbourhood(fx.row(r, of: 1), s.uMin, s.uMax, width)
        neighbourhood(fx.row(r, of: 2), s.vMin, s.vMax, width)
        slots[i].row = r
        return i
    }
}
