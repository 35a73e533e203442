internal import CKeyKernel
import Dispatch
import FFmpegSupport

/// GPUImage's chroma-key blend (GPUImageChromaKeyBlendFilter), run on YUV 4:2:0 planes.
///
/// GPUImage computes, with RGB in [0, 1]:
///     Y = 0.2989 R + 0.5866 G + 0.1145 B;  Cr = 0.7132 (R - Y);  Cb = 0.5647 (B - Y)
///     a = 1 - smoothstep(threshold, threshold + smoothing, distance((Cr, Cb), (Cr_key, Cb_key)))
///     out = fx * (1 - a) + base * a
/// R - Y and B - Y weigh R, G, B with coefficients that sum to zero, and any YUV matrix gives
/// RGB = luma·(1,1,1) + f(U, V); so Cr and Cb, and with them `a`, depend on (U, V) alone.
/// A 256×256 table of `a` built once a job replaces the per-pixel RGB round trip. The blend itself is
/// linear in RGB, so it is the same blend on Y, U and V of pictures that share one matrix.
@_spi(Benchmarks)
public struct ChromaKeyBlend: Sendable {
    /// The key's settings (`KeySettings`), by their old name inside the keyer.
    public typealias Settings = KeySettings

    /// For each (U, V) = index U << 8 | V, packed (`Entry`, from `ClampedKey.entry`): the alpha (weight of
    /// base, 0 … 256) that holds over an 8-bit luma range, the range, and by how many chroma steps the colour
    /// stays keyed out or kept there (`EdgeMap` needs it to know where one alpha serves a whole 2×2 block).
    public let table: [UInt32]
    /// With despill: fx's (U, V) with the key's cast removed, packed U << 8 | V; empty without.
    public let despillTable: [UInt16]
    public let settings: Settings
    public let color: ColorDescription
    let clamped: ClampedKey
    /// The same maths for spans of eight edge blocks, in vector lanes (nil: every edge block one by one).
    let span: EdgeSpan

    /// The parts of a table entry: alpha in bits 0–8, margin 9–15, luma range low 16–23, high 24–31. The C
    /// kernel's edge map reads the same layout (`MWEdgeRow.table` in `Sources/CKeyKernel/include/KeyKernel.h`).
    enum Entry {
        static let alpha: UInt32 = 0x1FF
        static let marginShift: UInt32 = 9, lowShift: UInt32 = 16, highShift: UInt32 = 24
    }

    /// How far past the soft edge (in GPUImage's Cr/Cb distance) despill still acts, fading to nothing.
    static let despillReach = 0.25

    /// Builds the tables for pictures read with `color` (the matrix and range fx has been brought to).
    public init(settings: Settings, color: ColorDescription) {
        self.init(settings: settings, color: color, kernelLevel: KeyKernel.level)
    }

    /// The same, its edge blocks keyed by the kernel's level `kernelLevel` (0: the scalar reference; tests compare them).
    init(settings: Settings, color: ColorDescription, kernelLevel: Int32) {
        self.settings = settings
        self.color = color
        let key = ClampedKey(settings: settings, color: color)
        clamped = key
        span = EdgeSpan(key, level: kernelLevel)
        // 20 ms on one core (the soft entries walk their lumas): split over the cores, a slider move on the
        // tuning page builds a new table each time.
        self.table = [UInt32](unsafeUninitializedCapacity: 256 * 256) { buffer, count in
            // Each part writes its own 16 rows of u; the address crosses as a number (pointers are not Sendable).
            let address = Int(bitPattern: buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: 16) { part in
                let out = UnsafeMutablePointer<UInt32>(bitPattern: address)!
                for u in part * 16 ..< part * 16 + 16 {
                    for v in 0..<256 {
                        let e = key.entry(u: Float(u), v: Float(v)) ?? key.softEntry(u: Float(u), v: Float(v))
                        let (lo, hi) = e.lumas.lo > e.lumas.hi ? (255, 0) : e.lumas
                        (out + (u << 8 | v)).initialize(to: UInt32(e.alpha) | UInt32(e.margin) << Entry.marginShift
                            | UInt32(lo) << Entry.lowShift | UInt32(hi) << Entry.highShift)
                    }
                }
            }
            count = 256 * 256
        }
        despillTable = settings.despill ? ChromaKeyBlend.makeDespillTable(settings: settings, color: color) : []
    }

    /// GPUImage's alpha (0 … 1) for 8-bit luma and chroma, as the keyer finds it.
    public func alpha(y: UInt8, u: UInt8, v: UInt8) -> Double {
        table.withUnsafeBufferPointer { Double(pixelAlpha(y: y, u16: Int(u) * 16, v16: Int(v) * 16, table: $0.baseAddress!)) / 256 }
    }

    /// GPUImage's alpha (0 … 256) of a pixel: luma `y`, chroma in 1/16 steps (as `LinearChroma` gives it).
    /// The table's where this luma is in its range and the table holds for this chroma, else the exact maths of
    /// the clamped texture. The table is looked up at the nearest whole chroma step: that holds for a keyed or
    /// kept entry (its margin is a step or more) and for a soft one only at a whole step; between steps a soft
    /// alpha on a steep edge moves by up to 1/16 (0.067 was seen) within half a step.
    @inline(__always)
    func pixelAlpha(y: UInt8, u16: Int, v16: Int, table: UnsafePointer<UInt32>) -> Int {
        let entry = table[((u16 &+ 8) &>> 4) &<< 8 | ((v16 &+ 8) &>> 4)]
        let holds = entry & (0x7F &<< Entry.marginShift) != 0 || (u16 | v16) & 15 == 0
        if holds && y >= UInt8(truncatingIfNeeded: entry &>> Entry.lowShift)
            && y <= UInt8(truncatingIfNeeded: entry &>> Entry.highShift) {
            return Int(entry & Entry.alpha)
        }
        return Int(clamped.alpha(y: Float(y), u: Float(u16) / 16, v: Float(v16) / 16))
    }

    /// Blends `fx` over `base` into `output`, chroma rows `rows` (each covers two luma rows).
    /// All three are yuv420p planes of one size, read with this blend's colour description.
    ///
    /// As GPUImage: every luma pixel has its own alpha, from its own (U, V) interpolated as GL_LINEAR does
    /// (`LinearChroma`); the output's chroma is the average over each 2×2 block of the per-pixel blend.
    /// Fast where that changes nothing: one table look-up per chroma sample; a block whose 3×3 neighbourhood
    /// of samples is wholly keyed, or wholly kept with nearly equal chroma, or of one chroma, has one alpha
    /// for its four pixels (`EdgeMap`). Only the other blocks (a key's edge) are interpolated pixel by pixel.
    /// Rows without such a block are blended with vector loops over bytes, or copied when wholly kept or
    /// wholly keyed out.
    public func blend(fx: YUVPlanes, base: YUVPlanes, into output: YUVPlanes, chromaRows rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        let chromaWidth = output.chromaWidth
        // The C loops' instruction set: the span kernel's.
        let edges = EdgeMap(chromaWidth: chromaWidth, level: span.level)
        defer { edges.deallocate() }
        // A luma row the output does not have (the second of the last chroma row of an odd height).
        let spare = UnsafeMutablePointer<UInt8>.allocate(capacity: chromaWidth * 2)
        defer { spare.deallocate() }
        let despilled = UnsafeMutablePointer<UInt8>.allocate(capacity: chromaWidth * 2)
        defer { despilled.deallocate() }
        table.withUnsafeBufferPointer { table in
            despillTable.withUnsafeBufferPointer { despill in
                let tables = Tables(entries: table.baseAddress!, despill: despill.isEmpty ? nil : despill.baseAddress!)
                for cy in rows {
                    // The rows two ahead on their way to the cache while this one computes: each row is a new
                    // stream of 30 cache lines (1080p) among a dozen, which the hardware prefetcher learns late.
                    if cy + 2 < output.chromaHeight {
                        Self.prefetch(chromaRow: cy + 2, of: fx)
                        Self.prefetch(chromaRow: cy + 2, of: base)
                    }
                    let row = edges.row(cy, fx: fx, table: tables.entries)
                    var fuRow = fx.row(cy, of: 1), fvRow = fx.row(cy, of: 2)
                    if let d = tables.despill {
                        // The key weight comes from fx's own chroma; what is kept of fx is its despilled chroma.
                        Self.despill(fuRow, fvRow, chromaWidth, through: d, into: despilled)
                        fuRow = despilled
                        fvRow = despilled + chromaWidth
                    }
                    blendRow(cy, row: row, fxChroma: (fuRow, fvRow), fx: fx, base: base, into: output, spare: spare, tables: tables)
                }
            }
        }
    }

    /// fx's chroma row with the key's cast removed: U into `out`, V into `out + width`.
    @inline(__always)
    private static func despill(_ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>, _ width: Int,
                                through table: UnsafePointer<UInt16>, into out: UnsafeMutablePointer<UInt8>) {
        for cx in 0..<width {
            let uv = table[Int(u[cx]) &<< 8 | Int(v[cx])]
            out[cx] = UInt8(truncatingIfNeeded: uv &>> 8)
            out[width + cx] = UInt8(truncatingIfNeeded: uv)
        }
    }

    /// Chroma row `cy` of the blend (and its luma rows), as its edge map's `row` says: copied from fx where the row
    /// is kept whole, from base where it is keyed out whole, else its edge blocks keyed pixel by pixel and the
    /// rest blended by block.
    @inline(__always)
    private func blendRow(_ cy: Int, row: EdgeMap.Row, fxChroma: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
                          fx: YUVPlanes, base: YUVPlanes, into output: YUVPlanes, spare: UnsafeMutablePointer<UInt8>,
                          tables: Tables) {
        let chromaWidth = output.chromaWidth
        let lumaRows = cy * 2 ..< min(cy * 2 + 2, output.height)
        if !row.hasEdges && (row.anyAlpha == 0 || row.allAlpha == 256) {
            // fx kept across the whole row, or keyed out across it (base shows).
            let kept = row.anyAlpha == 0
            output.row(cy, of: 1).update(from: kept ? fxChroma.0 : base.row(cy, of: 1), count: chromaWidth)
            output.row(cy, of: 2).update(from: kept ? fxChroma.1 : base.row(cy, of: 2), count: chromaWidth)
            for y in lumaRows { output.row(y, of: 0).update(from: (kept ? fx : base).row(y, of: 0), count: output.width) }
            return
        }
        // The edge blocks first (keyed pixel by pixel, written whole), then the rest of the row.
        let bottom = lumaRows.count == 2 ? output.lumaRow(1, ofChromaRow: cy) : spare
        if row.hasEdges {
            var spanRow = EdgeSpan.Row(cy, fx: fx, base: base, isEdge: row.isEdge, entries: tables.entries, despill: tables.despill,
                                       output: output, bottom: bottom)
            span.key(&spanRow)
        }
        var rest = MWMixRow(
            fxU: fxChroma.0, fxV: fxChroma.1, baseU: base.row(cy, of: 1), baseV: base.row(cy, of: 2),
            outU: output.row(cy, of: 1), outV: output.row(cy, of: 2),
            fxTop: fx.lumaRow(0, ofChromaRow: cy), fxBottom: fx.lumaRow(1, ofChromaRow: cy),
            baseTop: base.lumaRow(0, ofChromaRow: cy), baseBottom: base.lumaRow(1, ofChromaRow: cy),
            outTop: output.lumaRow(0, ofChromaRow: cy), outBottom: bottom,
            alpha: row.alpha, kind: row.isEdge, chromaWidth: chromaWidth, lumaWidth: output.width)
        span.mixRest(&rest)
    }

    /// Asks the cache for chroma row `cy` of `p` and its two luma rows.
    private static func prefetch(chromaRow cy: Int, of p: YUVPlanes) {
        mw_prefetch(p.lumaRow(0, ofChromaRow: cy), p.width)
        mw_prefetch(p.lumaRow(1, ofChromaRow: cy), p.width)
        mw_prefetch(p.row(cy, of: 1), p.chromaWidth)
        mw_prefetch(p.row(cy, of: 2), p.chromaWidth)
    }

    struct Tables {
        let entries: UnsafePointer<UInt32>
        let despill: UnsafePointer<UInt16>?
    }

    /// Blends whole yuv420p pictures of one size.
    public func blend(fx: Frame, base: Frame, into output: Frame) {
        output.withYUVPlanes { out in
            fx.withYUVPlanes { f in
                base.withYUVPlanes { b in blend(fx: f, base: b, into: out, chromaRows: 0..<out.chromaHeight) }
            }
        }
    }
}
