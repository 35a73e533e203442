// Compiled only with the package's `Benchmarks` trait, which Benchmarks/Package.swift enables: the harness the
// kernel's per-level benchmark times is not part of the library mixwrite ships.
#if Benchmarks
internal import CKeyKernel
import FFmpegSupport

/// One chroma row of a 1080p picture (960 samples, 1920 pixels) for one of the keyer kernel's functions at one
/// level: the per-level, per-function benchmark (`Benchmarks/Benchmarks/Kernel`) calls `run()` in its loop. Every
/// block is an edge (the key functions key them all) and fx's chroma lies about the key's soft edge, so alphas
/// are computed, not looked up. Not part of the library's API.
@_spi(Benchmarks)
public final class KernelWorkload {
    public enum Function: String, CaseIterable, Sendable {
        case keySpans, keyBlocks, edgeRow, neighbourhood, mixRest
    }

    public let function: Function
    public let level: Int32
    /// The levels this CPU runs, 0 (the scalar reference) first.
    public static var levels: [Int32] { Array(0...KeyKernel.best) }

    private let kernel: MWKeyKernel
    private let params: MWKeyParams
    private let width = 960
    private let bytes: UnsafeMutablePointer<UInt8>
    private let words: UnsafeMutablePointer<UInt16>
    private let table: UnsafeMutablePointer<UInt32>

    public init(_ function: Function, level: Int32) {
        precondition(level <= KeyKernel.best, "level \(level) is above this CPU's \(KeyKernel.best)")
        self.function = function
        self.level = level
        kernel = KeyKernel.table(level)
        let settings = KeySettings()
        let color = ColorDescription(matrix: .bt709, fullRange: false)
        params = EdgeSpan(ClampedKey(settings: settings, color: color), level: 0).parameters
        let entries = ChromaKeyBlend(settings: settings, color: color, kernelLevel: 0).table
        table = .allocate(capacity: entries.count)
        table.initialize(from: entries, count: entries.count)
        // 32 byte rows of 2 × 960 (chroma planes, lumas, outputs, marks), 4 word rows (alphas).
        bytes = .allocate(capacity: 32 * 2 * width)
        words = .allocate(capacity: 4 * 2 * width)
        var state: UInt32 = 12345
        func next() -> UInt32 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return state >> 8
        }
        let soft = (0..<65536).filter { (1..<256).contains(entries[$0] & 0x1FF) }
        for i in 0..<(32 * 2 * width) { bytes[i] = UInt8(truncatingIfNeeded: next()) }
        for i in 0..<(4 * 2 * width) { words[i] = UInt16(next() % 257) }
        // fx's chroma rows (rows 0–5: U ×3, V ×3) about the soft edge.
        for r in 0..<3 {
            for x in 0..<width {
                let uv = soft.isEmpty ? Int(next() & 0xFFFF) : soft[Int(next()) % soft.count]
                bytes[r * 2 * width + x] = UInt8(uv >> 8)
                bytes[(3 + r) * 2 * width + x] = UInt8(uv & 0xFF)
            }
        }
    }

    deinit {
        bytes.deallocate()
        words.deallocate()
        table.deallocate()
    }

    private func row(_ n: Int) -> UnsafeMutablePointer<UInt8> { bytes + n * 2 * width }

    /// One call of the function on the row (the edge marks set again first for the key functions).
    public func run() {
        switch function {
        case .keySpans, .keyBlocks:
            let marks = row(20)
            marks.update(repeating: UInt8(MW_EDGE), count: width)
            var r = MWKeyRow(fxU: (UnsafePointer(row(0)), UnsafePointer(row(1)), UnsafePointer(row(2))),
                             fxV: (UnsafePointer(row(3)), UnsafePointer(row(4)), UnsafePointer(row(5))),
                             baseU: (UnsafePointer(row(6)), UnsafePointer(row(7)), UnsafePointer(row(8))),
                             baseV: (UnsafePointer(row(9)), UnsafePointer(row(10)), UnsafePointer(row(11))),
                             lumaTop: row(12), lumaBottom: row(13), baseLumaTop: row(14), baseLumaBottom: row(15), isEdge: marks,
                             despill: nil, entries: table, outU: row(16), outV: row(17), outTop: row(18), outBottom: row(19),
                             chromaWidth: width, lumaWidth: 2 * width)
            withUnsafePointer(to: params) { p in
                if function == .keySpans { kernel.keySpans(p, &r, 0) } else { kernel.keyBlocks(p, &r) }
            }
        case .edgeRow:
            let three = (UnsafePointer(row(21)), UnsafePointer(row(22)), UnsafePointer(row(23)))
            do {
                var r = MWEdgeRow(table: table, u: row(0), v: row(3), lumaTop: row(12), lumaBottom: row(13), width: width,
                                  lumaWidth: 2 * width, uMin: three, uMax: three, vMin: three, vMax: three, alpha: words,
                                  isEdge: row(24), entries: UnsafeMutableRawPointer(row(25)).assumingMemoryBound(to: UInt32.self),
                                  lumaMin: row(29), lumaMax: row(30))
                _ = kernel.edgeRow(&r)
            }
        case .neighbourhood:
            kernel.neighbourhood(row(0), row(21), row(22), width)
        case .mixRest:
            var r = MWMixRow(fxU: row(0), fxV: row(3), baseU: row(6), baseV: row(9), outU: row(16), outV: row(17),
                             fxTop: row(12), fxBottom: row(13), baseTop: row(14), baseBottom: row(15), outTop: row(18),
                             outBottom: row(19), alpha: words, kind: row(31), chromaWidth: width, lumaWidth: 2 * width)
            kernel.mixRest(&r)
        }
    }
}

/// `--keyer fine` on one picture and the picture laid over base by its matte (what the blend does with it), for the
/// keyer benchmark (`Benchmarks/Benchmarks/Keyer`). Not part of the library's API.
@_spi(Benchmarks)
public final class FineKeyerWorkload {
    private let keyer: FineKeyer
    private let matted: FFmpegSupport.Frame
    private let fx: FFmpegSupport.Frame, base: FFmpegSupport.Frame, output: FFmpegSupport.Frame

    /// fx's key colour `key`, read as BT.709 limited range.
    public init(fx: FFmpegSupport.Frame, base: FFmpegSupport.Frame, output: FFmpegSupport.Frame, key: KeyColor) throws {
        var settings = KeySettings(keyColor: key)
        settings.keyer = .fine
        keyer = FineKeyer(settings: settings, color: ColorDescription(matrix: .bt709, fullRange: false), width: fx.width, height: fx.height)!
        matted = try FFmpegSupport.Frame(width: fx.width, height: fx.height, pixelFormat: .yuva420p)
        (self.fx, self.base, self.output) = (fx, base, output)
    }

    /// Keys fx (both cores, as the blend does).
    public func key() { keyer.key(fx, into: matted) }

    /// Keys fx and lays it over base as it keys (what the blend does without garbage, choke or feather).
    public func blend() { keyer.key(fx, over: base, into: output) }

    /// Keys fx into a picture, then lays that over base by its matte (a refined matte's way).
    public func keyThenLay() {
        keyer.key(fx, into: matted)
        AlphaBlend.blend(fx: matted, base: base, into: output)
    }
}
#endif
