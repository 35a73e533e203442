internal import CKeyKernel
import FFmpegSupport

/// The keyer's per-pixel path for a row's edge blocks: GL_LINEAR chroma and GPUImage's exact alpha (the RGBA8
/// texture's clamping and rounding included) for each of their pixels, the pixels blended by their own alphas and
/// the chroma by the 2×2 average. Spans of eight blocks with enough edge blocks go through vector lanes, two spans
/// a step; the others block by block. It is C (`Sources/CKeyKernel`: the scalar reference, and the vector kernel
/// compiled for plain x86-64, SSE4.2, AVX2 and AVX-512); every level gives the reference's bytes.
struct EdgeSpan: Sendable {
    let parameters: MWKeyParams
    /// Which level of the kernel runs (`KeyKernel`).
    let level: Int32
    private let kernel: MWKeyKernel

    init(_ k: ClampedKey, level: Int32 = KeyKernel.level) {
        self.level = min(level, KeyKernel.best)
        kernel = KeyKernel.table(self.level)
        // The kernel leaves out red's U term and blue's V term: zero in every YUV matrix.
        precondition(k.perU.r == 0 && k.perV.b == 0, "a YUV matrix whose red takes U or blue V")
        // Channels in 8-bit units of the texture; chroma in 1/16 steps.
        let toByte: Float = 255, perSixteenth: Float = 255 / 16
        // Cr = 0.7132 (R − Y), Cb = 0.5647 (B − Y), Y = 0.2989 R + 0.5866 G + 0.1145 B: with the weights of Y
        // summing to 1, Cr = a·(R − G) + b·(B − G), Cb = c·(R − G) + d·(B − G) (channels in 8-bit units here).
        let (kr, kb) = (0.2989, 0.1145)
        let (a, b) = (0.7132 * (1 - kr) / 255, 0.7132 * -kb / 255)
        let (c, d) = (0.5647 * -kr / 255, 0.5647 * (1 - kb) / 255)
        // The (R − G, B − G) where (Cr, Cb) is the key's, and the squared distance from it in smoothing widths.
        let det = a * d - b * c
        let (keyCr, keyCb) = (Double(k.key.cr), Double(k.key.cb))
        let scale = k.smoothing > 0 ? 1 / (Double(k.smoothing) * Double(k.smoothing)) : 1
        parameters = MWKeyParams(
            lumaZero: k.lumaZero, lumaScale: k.lumaScale * toByte,
            perU: (k.perU.r * perSixteenth, k.perU.g * perSixteenth, k.perU.b * perSixteenth),
            perV: (k.perV.r * perSixteenth, k.perV.g * perSixteenth, k.perV.b * perSixteenth),
            keyRG: Float((keyCr * d - b * keyCb) / det), keyBG: Float((a * keyCb - c * keyCr) / det),
            square: (Float(scale * (a * a + c * c)), Float(scale * 2 * (a * b + c * d)), Float(scale * (b * b + d * d))),
            threshold: k.smoothing > 0 ? k.threshold / k.smoothing : k.threshold, hardEdge: k.smoothing > 0 ? 0 : 1)
    }

    /// What one chroma row of a blend hands the kernel: the rows it reads and where its results go.
    struct Row {
        var row: MWKeyRow

        /// `bottom` is where the output's second luma row goes (a scratch row when the picture ends at the first).
        init(_ cy: Int, fx: YUVPlanes, base: YUVPlanes, isEdge: UnsafeMutablePointer<UInt8>, entries: UnsafePointer<UInt32>,
             despill: UnsafePointer<UInt16>?, output: YUVPlanes, bottom: UnsafeMutablePointer<UInt8>) {
            // The row above and below clamped at the picture's edges, as the block-by-block path reads them.
            func rows(_ p: YUVPlanes, _ plane: Int) -> (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) {
                let c = LinearChroma(p, plane: plane, chromaRow: cy)
                return (UnsafePointer(c.above), UnsafePointer(c.row), UnsafePointer(c.below))
            }
            row = MWKeyRow(fxU: rows(fx, 1), fxV: rows(fx, 2), baseU: rows(base, 1), baseV: rows(base, 2),
                           lumaTop: fx.lumaRow(0, ofChromaRow: cy), lumaBottom: fx.lumaRow(1, ofChromaRow: cy),
                           baseLumaTop: base.lumaRow(0, ofChromaRow: cy), baseLumaBottom: base.lumaRow(1, ofChromaRow: cy),
                           isEdge: isEdge, despill: despill, entries: entries, outU: output.row(cy, of: 1), outV: output.row(cy, of: 2),
                           outTop: output.row(2 * cy, of: 0), outBottom: bottom, chromaWidth: output.chromaWidth,
                           lumaWidth: output.width)
        }
    }

    /// Spans with at most this many edge blocks are cheaper block by block (the kernel's `keyBlocks`, scalar, a
    /// keyed or kept pixel's alpha from the table): the vector kernel always does a whole chunk of 16 blocks. With
    /// AVX2 or AVX-512 a chunk costs less than one block keyed alone (2.4 ns a block in lanes against about 60
    /// scalar, `Benchmarks/Benchmarks/Kernel`), despill included; with SSE4.2 or plain x86-64 (four instructions
    /// for each of its 16-lane steps) spans of up to three edge blocks are cheaper alone (the keyer benchmark's
    /// typical frame at level 1: 1.34 ms with three, 1.50 with one). Either way the bytes are the same: both are
    /// held to the scalar reference (`Tests/CKeyKernelTests`).
    var fewEdges: Int { level >= 3 ? 0 : 3 }

    /// Keys every edge block of `row`: the spans with more than `fewEdges` edge blocks in vector lanes (row ends
    /// included), the others block by block; each block's pixels and chroma written, the block marked `MW_KEYED`.
    @inline(__always)
    func key(_ row: inout Row) {
        let few = fewEdges
        withUnsafePointer(to: parameters) { p in
            withUnsafePointer(to: &row.row) {
                kernel.keySpans(p, $0, Int32(few))
                if few > 0 { kernel.keyBlocks(p, $0) }
            }
        }
    }

    /// The rest of a row's blend (every block not keyed, by its alpha).
    @inline(__always)
    func mixRest(_ row: inout MWMixRow) { kernel.mixRest(&row) }
}
