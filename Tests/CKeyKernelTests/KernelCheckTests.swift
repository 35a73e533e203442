import CKeyKernel
import FFmpegSupport
import Testing
import TestSupport
@_spi(Benchmarks) @testable import MixWrite

/// The keyer's C kernel checked as dav1d's and FFmpeg's checkasm check theirs: every function of the table, at
/// every level this CPU runs, against the scalar reference (level 0), bit for bit, on seeded random rows of
/// every width from 1 to 80 and real ones, each buffer at an unaligned start with guard bytes around it (a write
/// past either end changes them). Inputs are checked to be left as they were.
@Suite("kernel: every function at every level against the scalar reference")
struct KernelCheckTests {
    static let levels = Array(1...max(1, KeyKernel.best)).filter { $0 <= KeyKernel.best }
    static let widths = Array(1...80) + [96, 160, 320, 360, 640, 960]
    /// Keys as users set them (colours, thresholds, hard and soft edges, matrices, ranges, despill or not): built
    /// once, each a keyer's table.
    nonisolated(unsafe) static let setups: [KeySetup] = {
        var rng = SplitMix64(seed: 0x7365_7475)
        return (0..<12).map { KeySetup.random(&rng, despill: $0 % 3 == 1) }
    }()

    @Test("keySpans and keyBlocks: keyed pixels, chroma and marks (soft and hard edges, despill, both row-end kinds)",
          .enabled(if: KeyKernel.best >= 1, "no vector level on this CPU"), arguments: levels)
    func keySpans(level: Int32) throws {
        var rng = SplitMix64(seed: 0x6b65_7900 + UInt64(level))
        let kernel = KeyKernel.table(level), reference = KeyKernel.table(0)
        var checked = 0
        for width in Self.widths {
            for round in 0..<3 {
                let setup = Self.setups[Int.random(in: 0..<Self.setups.count, using: &rng)]
                let row = SpanRow.random(&rng, chromaWidth: width, oddLuma: round == 2 && width > 1, key: setup)
                let few = Int32([0, 3, -1][Int.random(in: 0...2, using: &rng)])
                let (expected, got) = (row.copy(), row.copy())
                withUnsafePointer(to: setup.params) { p in
                    expected.withRow(setup) { reference.keySpans(p, $0, few) }
                    got.withRow(setup) { kernel.keySpans(p, $0, few) }
                }
                let what = "level \(level), width \(width) (luma \(row.lumaWidth)), round \(round), fewEdges \(few)"
                try got.expectSame(as: expected, what)
                // Then the blocks the spans left, one by one (the reference's at every level): all keyed now.
                withUnsafePointer(to: setup.params) { p in
                    expected.withRow(setup) { reference.keyBlocks(p, $0) }
                    got.withRow(setup) { kernel.keyBlocks(p, $0) }
                }
                try got.expectSame(as: expected, what + ", then keyBlocks")
                #expect(got.isEdge.values.allSatisfy { $0 == 0 || $0 == UInt8(MW_EDGE | MW_KEYED) }, "\(what): every edge keyed")
                checked += 1
            }
        }
        print("keySpans, level \(level): \(checked) rows like the reference's")
    }

    @Test("edgeRow and neighbourhood: alphas, edge marks and the row's summary",
          .enabled(if: KeyKernel.best >= 1, "no vector level on this CPU"), arguments: levels)
    func edgeRow(level: Int32) throws {
        var rng = SplitMix64(seed: 0x6564_6765 + UInt64(level))
        let kernel = KeyKernel.table(level), reference = KeyKernel.table(0)
        let table = (0..<65536).map { _ in UInt32.random(in: 0 ... .max, using: &rng) }
        for width in Self.widths {
            for odd in [false, true] where !(odd && width == 1) {
                let lumaWidth = 2 * width - (odd ? 1 : 0)
                // The neighbourhood first: min and max of each sample's three.
                let samples = Guarded<UInt8>.random(width, &rng)
                let (lows, highs) = (Guarded<UInt8>.random(width, &rng), Guarded<UInt8>.random(width, &rng))
                let (refLows, refHighs) = (lows.copy(), highs.copy())
                reference.neighbourhood(samples.pointer, refLows.pointer, refHighs.pointer, width)
                kernel.neighbourhood(samples.pointer, lows.pointer, highs.pointer, width)
                try lows.expectSame(as: refLows, "neighbourhood lows, level \(level), width \(width)")
                try highs.expectSame(as: refHighs, "neighbourhood highs, level \(level), width \(width)")
                try samples.expectIntact("neighbourhood's input")

                let row = EdgeRow.random(&rng, width: width, lumaWidth: lumaWidth)
                let (expected, got) = (row.copy(), row.copy())
                let (a, b) = table.withUnsafeBufferPointer { t in
                    (expected.run(reference, table: t.baseAddress!), got.run(kernel, table: t.baseAddress!))
                }
                let what = "edgeRow, level \(level), width \(width) (luma \(lumaWidth))"
                #expect(a.hasEdges == b.hasEdges && a.anyAlpha == b.anyAlpha && a.allAlpha == b.allAlpha, "\(what): summary")
                try got.alpha.expectSame(as: expected.alpha, what + ": alpha")
                try got.isEdge.expectSame(as: expected.isEdge, what + ": isEdge")
                try got.expectInputsAndScratchGuarded(what)
            }
        }
    }

    @Test("mixRest: the blend of every block not keyed, chroma and pixels",
          .enabled(if: KeyKernel.best >= 1, "no vector level on this CPU"), arguments: levels)
    func mixRest(level: Int32) throws {
        var rng = SplitMix64(seed: 0x6d69_7800 + UInt64(level))
        let kernel = KeyKernel.table(level), reference = KeyKernel.table(0)
        for width in Self.widths {
            for odd in [false, true] where !(odd && width == 1) {
                let row = MixRow.random(&rng, width: width, lumaWidth: 2 * width - (odd ? 1 : 0))
                let (expected, got) = (row.copy(), row.copy())
                expected.run(reference)
                got.run(kernel)
                try got.expectSame(as: expected, "mixRest, level \(level), width \(width) (luma \(row.lumaWidth))")
            }
        }
    }

    @Test("MIXWRITE_KERNEL_LEVEL: 0 … best forces a level; anything else is refused with a message naming it")
    func forcedLevel() throws {
        #expect(try KeyKernel.chosen(forced: nil).get() == KeyKernel.best)
        #expect(try KeyKernel.chosen(forced: "0").get() == 0)
        #expect(try KeyKernel.chosen(forced: String(KeyKernel.best)).get() == KeyKernel.best)
        for bad in ["5", "-1", "avx2", "1.5"] {
            #expect(throws: MixWriteError.self) { try KeyKernel.chosen(forced: bad).get() }
        }
        if KeyKernel.best < 4 {
            let lacking = String(KeyKernel.best + 1)
            #expect(throws: MixWriteError.self) { try KeyKernel.chosen(forced: lacking).get() }
        }
        #expect(mw_key_kernel(KeyKernel.best + 1) == nil && mw_key_kernel(-1) == nil)
    }

    @Test("every family is one table a level (mw_xxx_kernel): an entry at each level this CPU runs, naming it; none past it")
    func familyTables() {
        for level in Int32(-1)...5 {
            let runs = (0...KeyKernel.best).contains(level)
            let named: [Int32?] = [mw_key_kernel(level)?.pointee.level, mw_alpha_kernel(level)?.pointee.level,
                                   mw_tone_kernel(level)?.pointee.level, mw_fine_kernel(level)?.pointee.level,
                                   mw_transition_kernel(level)?.pointee.level]
            #expect(named.allSatisfy { $0 == (runs ? level : nil) }, "level \(level): \(named)")
        }
    }
}

// MARK: random rows

/// `count` values at an unaligned start (a random number of elements past a 64-byte boundary, plus the guard),
/// with 64 guard bytes of a known pattern before and after.
final class Guarded<T: FixedWidthInteger> {
    static var guardBytes: Int { 64 }
    static var pattern: UInt8 { 0xA5 }
    let raw: UnsafeMutableRawPointer
    let start: Int
    let count: Int
    var pointer: UnsafeMutablePointer<T> { (raw + start).assumingMemoryBound(to: T.self) }
    var values: [T] { Array(UnsafeBufferPointer(start: pointer, count: count)) }

    init(_ values: [T], misalign: Int) {
        count = values.count
        start = Self.guardBytes + misalign * MemoryLayout<T>.stride
        let total = start + count * MemoryLayout<T>.stride + Self.guardBytes
        raw = .allocate(byteCount: total, alignment: 64)
        raw.initializeMemory(as: UInt8.self, repeating: Self.pattern, count: total)
        values.withUnsafeBytes { (raw + start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }

    static func random(_ count: Int, _ rng: inout SplitMix64, in range: ClosedRange<T> = T.min ... T.max) -> Guarded {
        Guarded((0..<count).map { _ in T.random(in: range, using: &rng) }, misalign: Int.random(in: 0..<(32 / MemoryLayout<T>.stride), using: &rng))
    }

    func copy() -> Guarded { Guarded(values, misalign: (start - Self.guardBytes) / MemoryLayout<T>.stride) }

    deinit { raw.deallocate() }

    /// The guard bytes as they were put.
    var guardsIntact: Bool {
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        let end = start + count * MemoryLayout<T>.stride
        return (0..<start).allSatisfy { bytes[$0] == Self.pattern } && (end..<end + Self.guardBytes).allSatisfy { bytes[$0] == Self.pattern }
    }

    func expectSame(as expected: Guarded, _ what: String) throws {
        let (got, want) = (values, expected.values)
        let first = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(first == nil, "\(what): element \(first?.offset ?? -1) is \(first?.element.0 ?? 0), the reference's \(first?.element.1 ?? 0)")
        try expectIntact(what)
    }

    func expectIntact(_ what: String) throws {
        #expect(guardsIntact, "\(what): a write outside the buffer")
    }
}

/// Settings and colours as a user gives them, made into the kernel's parameters, and chroma values near the
/// key's soft edge (where alphas are neither 0 nor 256) to draw from.
struct KeySetup {
    var params: MWKeyParams
    var softChroma: [(UInt8, UInt8)]
    var despill: Guarded<UInt16>?
    /// The keyer's table, which `keyBlocks` may take keyed and kept alphas from.
    var entries: Guarded<UInt32>

    static func random(_ rng: inout SplitMix64, despill: Bool) -> KeySetup {
        let keys = [KeyColor(r: 0, g: 1, b: 0), KeyColor(r: 0, g: 0, b: 1), KeyColor(r: 0.1, g: 0.8, b: 0.2),
                    KeyColor(r: Double.random(in: 0...1, using: &rng), g: 1, b: 0.3)]
        let settings = ChromaKeyBlend.Settings(keyColor: keys[Int.random(in: 0..<keys.count, using: &rng)],
                                               threshold: Double.random(in: 0.05...0.6, using: &rng),
                                               smoothing: Bool.random(using: &rng) ? 0 : Double.random(in: 0.01...0.3, using: &rng),
                                               despill: despill)
        let color = ColorDescription(matrix: [.bt601, .bt709, .bt2020][Int.random(in: 0...2, using: &rng)], fullRange: Bool.random(using: &rng))
        let key = ClampedKey(settings: settings, color: color)
        let keyer = ChromaKeyBlend(settings: settings, color: color, kernelLevel: 0)
        var soft: [(UInt8, UInt8)] = []
        for i in stride(from: 0, to: 65536, by: 7) where (1..<256).contains(keyer.table[i] & 0x1FF) {
            soft.append((UInt8(i >> 8), UInt8(i & 0xFF)))
        }
        let table = despill ? Guarded<UInt16>.random(65536, &rng) : nil
        return KeySetup(params: EdgeSpan(key, level: 0).parameters, softChroma: soft, despill: table,
                        entries: Guarded(keyer.table, misalign: 0))
    }

    /// A chroma pair: near the soft edge half the time, anywhere the other half.
    func chroma(_ rng: inout SplitMix64) -> (UInt8, UInt8) {
        guard !softChroma.isEmpty, Bool.random(using: &rng) else { return (.random(in: 0...255, using: &rng), .random(in: 0...255, using: &rng)) }
        let (u, v) = softChroma[Int.random(in: 0..<softChroma.count, using: &rng)]
        func near(_ x: UInt8) -> UInt8 { UInt8(clamping: Int(x) + Int.random(in: -2...2, using: &rng)) }
        return (near(u), near(v))
    }
}

/// One chroma row for the span kernel: fx's and base's chroma (the row, the one above and the one below, each
/// its own buffer), four luma rows, the edge marks, the outputs.
final class SpanRow {
    let chromaWidth: Int, lumaWidth: Int
    let planes: [Guarded<UInt8>]   // fxU ×3, fxV ×3, baseU ×3, baseV ×3
    let lumas: [Guarded<UInt8>]    // fx top, fx bottom, base top, base bottom
    let isEdge: Guarded<UInt8>
    let outs: [Guarded<UInt8>]     // U, V, top, bottom

    init(chromaWidth: Int, lumaWidth: Int, planes: [Guarded<UInt8>], lumas: [Guarded<UInt8>], isEdge: Guarded<UInt8>, outs: [Guarded<UInt8>]) {
        (self.chromaWidth, self.lumaWidth, self.planes, self.lumas, self.isEdge, self.outs) = (chromaWidth, lumaWidth, planes, lumas, isEdge, outs)
    }

    static func random(_ rng: inout SplitMix64, chromaWidth: Int, oddLuma: Bool, key: KeySetup) -> SpanRow {
        let lumaWidth = 2 * chromaWidth - (oddLuma ? 1 : 0)
        var planes: [Guarded<UInt8>] = []
        for plane in 0..<4 {
            for _ in 0..<3 {
                // fx's U and V as pairs near the key, base's anywhere.
                let pairs = (0..<chromaWidth).map { _ in key.chroma(&rng) }
                let values = plane < 2 ? pairs.map { plane == 0 ? $0.0 : $0.1 } : (0..<chromaWidth).map { _ in UInt8.random(in: 0...255, using: &rng) }
                planes.append(Guarded(values, misalign: Int.random(in: 0..<32, using: &rng)))
            }
        }
        let lumas = (0..<4).map { _ in Guarded<UInt8>.random(lumaWidth, &rng) }
        let density = [0.05, 0.3, 0.9][Int.random(in: 0...2, using: &rng)]
        let isEdge = Guarded((0..<chromaWidth).map { _ in Double.random(in: 0..<1, using: &rng) < density ? UInt8(MW_EDGE) : 0 },
                             misalign: Int.random(in: 0..<32, using: &rng))
        let outs = [chromaWidth, chromaWidth, lumaWidth, lumaWidth].map { Guarded<UInt8>.random($0, &rng) }
        return SpanRow(chromaWidth: chromaWidth, lumaWidth: lumaWidth, planes: planes, lumas: lumas, isEdge: isEdge, outs: outs)
    }

    func copy() -> SpanRow {
        SpanRow(chromaWidth: chromaWidth, lumaWidth: lumaWidth, planes: planes.map { $0.copy() }, lumas: lumas.map { $0.copy() },
                isEdge: isEdge.copy(), outs: outs.map { $0.copy() })
    }

    func withRow(_ key: KeySetup, _ body: (UnsafePointer<MWKeyRow>) -> Void) {
        func three(_ i: Int) -> (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) {
            (UnsafePointer(planes[3 * i].pointer), UnsafePointer(planes[3 * i + 1].pointer), UnsafePointer(planes[3 * i + 2].pointer))
        }
        var row = MWKeyRow(fxU: three(0), fxV: three(1), baseU: three(2), baseV: three(3),
                           lumaTop: lumas[0].pointer, lumaBottom: lumas[1].pointer, baseLumaTop: lumas[2].pointer,
                           baseLumaBottom: lumas[3].pointer, isEdge: isEdge.pointer, despill: key.despill.map { UnsafePointer($0.pointer) },
                           entries: key.entries.pointer,
                           outU: outs[0].pointer, outV: outs[1].pointer, outTop: outs[2].pointer, outBottom: outs[3].pointer,
                           chromaWidth: chromaWidth, lumaWidth: lumaWidth)
        withUnsafePointer(to: &row) { body($0) }
    }

    func expectSame(as expected: SpanRow, _ what: String) throws {
        for (name, (got, want)) in zip(["outU", "outV", "outTop", "outBottom"], zip(outs, expected.outs)) {
            try got.expectSame(as: want, "\(what): \(name)")
        }
        try isEdge.expectSame(as: expected.isEdge, "\(what): marks")
        for (got, want) in zip(planes + lumas, expected.planes + expected.lumas) { try got.expectSame(as: want, "\(what): an input") }
    }
}

/// One chroma row for the edge map.
final class EdgeRow {
    let width: Int, lumaWidth: Int
    let inputs: [Guarded<UInt8>]   // u, v, luma top, luma bottom, then uMin, uMax, vMin, vMax three rows each
    let alpha: Guarded<UInt16>
    let isEdge: Guarded<UInt8>
    let entries: Guarded<UInt32>
    let scratch: [Guarded<UInt8>]  // lumaMin, lumaMax

    init(width: Int, lumaWidth: Int, inputs: [Guarded<UInt8>], alpha: Guarded<UInt16>, isEdge: Guarded<UInt8>,
         entries: Guarded<UInt32>, scratch: [Guarded<UInt8>]) {
        (self.width, self.lumaWidth, self.inputs, self.alpha, self.isEdge, self.entries, self.scratch) = (width, lumaWidth, inputs, alpha, isEdge, entries, scratch)
    }

    static func random(_ rng: inout SplitMix64, width: Int, lumaWidth: Int) -> EdgeRow {
        // Spreads small enough that a block often holds (margins are 0 … 127).
        let inputs = [Guarded<UInt8>.random(width, &rng), .random(width, &rng), .random(lumaWidth, &rng), .random(lumaWidth, &rng)]
            + (0..<12).map { _ in Guarded<UInt8>.random(width, &rng, in: 100...140) }
        return EdgeRow(width: width, lumaWidth: lumaWidth, inputs: inputs, alpha: .random(width, &rng), isEdge: .random(width, &rng),
                       entries: .random(width, &rng), scratch: [.random(width, &rng), .random(width, &rng)])
    }

    func copy() -> EdgeRow {
        EdgeRow(width: width, lumaWidth: lumaWidth, inputs: inputs.map { $0.copy() }, alpha: alpha.copy(), isEdge: isEdge.copy(),
                entries: entries.copy(), scratch: scratch.map { $0.copy() })
    }

    func run(_ kernel: MWKeyKernel, table: UnsafePointer<UInt32>) -> MWEdgeSummary {
        func three(_ first: Int) -> (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) {
            (UnsafePointer(inputs[first].pointer), UnsafePointer(inputs[first + 1].pointer), UnsafePointer(inputs[first + 2].pointer))
        }
        var row = MWEdgeRow(table: table, u: inputs[0].pointer, v: inputs[1].pointer, lumaTop: inputs[2].pointer, lumaBottom: inputs[3].pointer,
                            width: width, lumaWidth: lumaWidth, uMin: three(4), uMax: three(7), vMin: three(10), vMax: three(13),
                            alpha: alpha.pointer, isEdge: isEdge.pointer, entries: entries.pointer, lumaMin: scratch[0].pointer,
                            lumaMax: scratch[1].pointer)
        return kernel.edgeRow(&row)
    }

    func expectInputsAndScratchGuarded(_ what: String) throws {
        for i in inputs { try i.expectIntact(what + ": an input") }
        try entries.expectIntact(what + ": entries")
        for s in scratch { try s.expectIntact(what + ": luma scratch") }
    }
}

/// One chroma row for the rest of the blend.
final class MixRow {
    let width: Int, lumaWidth: Int
    let inputs: [Guarded<UInt8>]   // fxU, fxV, baseU, baseV, fx top, fx bottom, base top, base bottom, kind
    let alpha: Guarded<UInt16>
    let outs: [Guarded<UInt8>]     // U, V, top, bottom

    init(width: Int, lumaWidth: Int, inputs: [Guarded<UInt8>], alpha: Guarded<UInt16>, outs: [Guarded<UInt8>]) {
        (self.width, self.lumaWidth, self.inputs, self.alpha, self.outs) = (width, lumaWidth, inputs, alpha, outs)
    }

    static func random(_ rng: inout SplitMix64, width: Int, lumaWidth: Int) -> MixRow {
        // Rows with nothing keyed, and rows with some blocks keyed (their output left alone).
        let keyedShare = [0.0, 0.3, 0.95][Int.random(in: 0...2, using: &rng)]
        let kinds = (0..<width).map { _ -> UInt8 in
            Double.random(in: 0..<1, using: &rng) < keyedShare ? UInt8(MW_EDGE | MW_KEYED) : Bool.random(using: &rng) ? 0 : UInt8(MW_EDGE)
        }
        let inputs = [width, width, width, width, lumaWidth, lumaWidth, lumaWidth, lumaWidth].map { Guarded<UInt8>.random($0, &rng) }
            + [Guarded(kinds, misalign: Int.random(in: 0..<32, using: &rng))]
        return MixRow(width: width, lumaWidth: lumaWidth, inputs: inputs, alpha: .random(width, &rng, in: 0...256),
                      outs: [width, width, lumaWidth, lumaWidth].map { Guarded<UInt8>.random($0, &rng) })
    }

    func copy() -> MixRow {
        MixRow(width: width, lumaWidth: lumaWidth, inputs: inputs.map { $0.copy() }, alpha: alpha.copy(), outs: outs.map { $0.copy() })
    }

    func run(_ kernel: MWKeyKernel) {
        var row = MWMixRow(fxU: inputs[0].pointer, fxV: inputs[1].pointer, baseU: inputs[2].pointer, baseV: inputs[3].pointer,
                           outU: outs[0].pointer, outV: outs[1].pointer, fxTop: inputs[4].pointer, fxBottom: inputs[5].pointer,
                           baseTop: inputs[6].pointer, baseBottom: inputs[7].pointer, outTop: outs[2].pointer, outBottom: outs[3].pointer,
                           alpha: alpha.pointer, kind: inputs[8].pointer, chromaWidth: width, lumaWidth: lumaWidth)
        kernel.mixRest(&row)
    }

    func expectSame(as expected: MixRow, _ what: String) throws {
        for (name, (got, want)) in zip(["outU", "outV", "outTop", "outBottom"], zip(outs, expected.outs)) {
            try got.expectSame(as: want, "\(what): \(name)")
        }
        for (got, want) in zip(inputs, expected.inputs) { try got.expectSame(as: want, "\(what): an input") }
        try alpha.expectSame(as: expected.alpha, "\(what): alpha")
    }
}
