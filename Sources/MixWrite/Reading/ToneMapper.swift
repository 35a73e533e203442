import Foundation
import FFmpegSupport
internal import CKeyKernel

/// HDR to SDR: an HLG or PQ picture (BT.2020, 10 bits) brought to SDR BT.709 (yuv420p, limited range) as FFmpeg's
/// own chain does it (`zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,
/// zscale=t=bt709:m=bt709:r=tv,format=yuv420p`): linear light with 100 cd/m² as SDR's white, BT.709 primaries, then
/// Hable's filmic curve on max(R, G, B) (highlights rolled off rather than clipped, as the ffmpeg CLI guides
/// recommend), no desaturation, the peak read from the picture's light levels as the tonemap filter reads it.
///
/// Two ways, the same numbers: for the pictures phones and cameras give (yuv420p10, limited range, BT.2020 or BT.709
/// primaries), the chain's own arithmetic a pixel at a time in C (`ToneMapKernel`, at the keyer's instruction-set
/// levels), its transfer functions read from tables made here once; for any other picture the chain itself in an
/// avfilter graph (its first two zscales in one). Every colour inside R'G'B''s cube comes out within one code of the
/// ffmpeg CLI's chain (`ToneMapKernelTests`); what differs is each 2×2 block's chroma, shared by its four pixels
/// where zscale interpolates it (mean CIEDE2000 about 1 on test pictures' sharp colour edges, 0.6 on the iPhone clip).
/// The kernel costs a third of the chain (a 1080p frame 10 ms of CPU against 25: `Benchmarks/compare-hdr.sh`). Not a
/// 3D table built from the chain: its eight corners a pixel are eight gathers, as many as the arithmetic's six.
/// Dolby Vision 8.4 (iPhone) is its HLG base layer. The picture keeps its size; `PictureConverter` scales after.
final class ToneMapper {
    let transfer: HDRTransfer
    private let primaries: String
    private let matrix: String
    private lazy var filter = PictureFilter(filters)

    /// For `stream`, nil when it is SDR.
    convenience init?(stream: StreamInfo) {
        guard let hdr = stream.hdr else { return nil }
        self.init(transfer: hdr, primaries: stream.primaries, matrix: stream.color.matrix)
    }

    init(transfer: HDRTransfer, primaries: String, matrix: ColorMatrix) {
        self.transfer = transfer
        // zscale's names. An HDR stream's matrix is BT.2020's unless it says BT.709 (untagged reads as BT.601 here).
        self.matrix = matrix == .bt709 ? "709" : "2020_ncl"
        // Untagged primaries on an HDR stream are BT.2020's (the only ones HLG and PQ are used with here).
        self.primaries = primaries == "unknown" || primaries == "unspecified" ? "bt2020" : primaries
    }

    /// What the chain does, in words: `HDR (HLG, bt2020) tone-mapped to SDR BT.709`.
    var description: String { "HDR (\(transfer.rawValue), \(primaries)) tone-mapped to SDR BT.709" }

    /// The filters between the source and the sink.
    var filters: String {
        "zscale=tin=\(transfer.zscaleName):pin=\(primaries):min=\(matrix):t=linear:npl=100:p=bt709,format=gbrpf32le,"
            + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    }

    /// `frame` tone-mapped (a picture this mapper owns, valid until the next call); `frame` itself is kept.
    func map(_ frame: Frame) throws(FFmpegError) -> Frame {
        if frame.pixelFormat == .yuv420p10 && !frame.isFullRange, let kernel {
            return try kernel.map(frame)
        }
        return try filter.apply(frame)
    }

    /// The C kernel, where it can do this stream's conversion (BT.2020 or BT.709 primaries).
    private lazy var kernel = ToneMapKernel(transfer: transfer, primaries: primaries, matrix: matrix)
}

/// ToneMapper's C kernel: its tables and parameters, run over the picture's rows on every core.
final class ToneMapKernel {
    /// Read by the kernel check (`ToneMapCheckTests`); its tables live as long as this.
    private(set) var params = MWToneParams()
    /// The transfer table and the output's power table, one after the other (`params` points into them).
    private let tables: UnsafeMutableBufferPointer<Float>
    private let rows: MWToneRows
    private var output: Frame?
    private var peak = 0.0
    private let slices = ProcessInfo.processInfo.activeProcessorCount
    /// 6 · (width + 1) floats for each slice.
    private var scratch: [Float] = []

    /// nil for primaries other than BT.2020's and BT.709's (the chain does those). `level`: the kernel's
    /// instruction-set level (the keyer's, `MIXWRITE_KERNEL_LEVEL`, by default).
    init?(transfer: HDRTransfer, primaries: String, matrix: String, level: Int32 = KeyKernel.level) {
        let inputPrimaries: Primaries
        switch primaries {
        case "bt2020": inputPrimaries = .bt2020
        case "bt709": inputPrimaries = .bt709
        default: return nil
        }
        guard let kernel = mw_tone_kernel(level) else { return nil }
        self.rows = kernel.pointee.rows
        // zimg 3.0's functions (colorspace/gamma.cpp), in doubles, linear light in units of 100 cd/m² (npl=100).
        // HLG's OOTF as FFmpeg 5.1's zscale has zimg apply it: a channel at a time, E^1.2, its 1000 cd/m² peak at 10
        // (measured against the chain: `ToneMapKernelTests`; BT.2100's OOTF on the luminance differs for colours).
        let toLinear: [Float] = (0...Int(2 * MW_SIGNAL_STEPS)).map { i in
            let e = Double(i) / Double(MW_SIGNAL_STEPS)
            switch transfer {
            case .hlg: return Float(10 * pow(e <= 0.5 ? e * e / 3 : (exp((e - 0.55991073) / 0.17883277) + 0.28466892) / 12, 1.2))
            case .pq:
                let p = pow(e, 1 / 78.84375)
                let linear = e > 0 ? pow(max(p - 0.8359375, 0) / max(18.8515625 - 18.6875 * p, Double.leastNormalMagnitude), 1 / 0.1593017578125) : 0
                return Float(linear * 100) // 10 000 cd/m² at 1
            }
        }
        let toGamma = Self.powerTable { $0 > 0 ? pow($0, 1 / 2.4) : 0 }
        tables = .allocate(capacity: toLinear.count + toGamma.count)
        _ = tables.initialize(from: toLinear + toGamma)
        params.toLinear = UnsafePointer(tables.baseAddress!)
        params.toGamma = UnsafePointer(tables.baseAddress! + toLinear.count)

        let (kr, kb) = matrix == "709" ? (0.2126, 0.0722) : (0.2627, 0.0593)
        let kg = 1 - kr - kb
        (params.lumaZero, params.lumaScale, params.chromaZero, params.chromaScale) = (64, 1 / 876, 512, 1 / 896)
        params.rV = Float(2 * (1 - kr))
        params.gU = Float(-2 * kb * (1 - kb) / kg)
        params.gV = Float(-2 * kr * (1 - kr) / kg)
        params.bU = Float(2 * (1 - kb))
        let gamut = Primaries.bt709.fromXYZ.multiplied(by: inputPrimaries.toXYZ)
        withUnsafeMutableBytes(of: &params.gamut) { raw in
            let g = raw.bindMemory(to: Float.self)
            for r in 0..<3 { for c in 0..<3 { g[3 * r + c] = Float(gamut[r][c]) } }
        }
    }

    deinit { tables.deallocate() }

    /// A power table (ToneMapKernel.h): `f` at each entry's x (0 for entry 0).
    private static func powerTable(_ f: (Double) -> Double) -> [Float] {
        let low = UInt32(127 - 24) << 23, shift = 23 - UInt32(MW_POWER_BITS)
        return (0..<Int(MW_POWER_ENTRIES)).map { i in
            Float(f(i == 0 ? 0 : Double(Float(bitPattern: low + UInt32(i) << shift))))
        }
    }

    /// `frame` (yuv420p10, limited range) tone-mapped: a picture this owns, valid until the next call.
    func map(_ frame: Frame) throws(FFmpegError) -> Frame {
        let (width, height) = (frame.width, frame.height)
        if output?.width != width || output?.height != height {
            output = try Frame(width: width, height: height, pixelFormat: .yuv420p)
            scratch = [Float](repeating: 0, count: slices * 6 * (width + 1))
        }
        let output = output!
        try output.makeWritable()
        let framePeak = frame.signalPeak
        if framePeak != peak {
            peak = framePeak
            params.hablePeakInverse = Float(1 / Self.hable(peak))
        }
        var picture = MWTonePicture()
        func samples(_ plane: Int) -> UnsafePointer<UInt16> { UnsafeRawPointer(frame.plane(plane)).assumingMemoryBound(to: UInt16.self) }
        (picture.y, picture.u, picture.v) = (samples(0), samples(1), samples(2))
        (picture.yStride, picture.uStride, picture.vStride) = (frame.stride(0) / 2, frame.stride(1) / 2, frame.stride(2) / 2)
        (picture.outY, picture.outU, picture.outV) = (output.plane(0), output.plane(1), output.plane(2))
        (picture.outYStride, picture.outUStride, picture.outVStride) = (output.stride(0), output.stride(1), output.stride(2))
        (picture.width, picture.height) = (width, height)
        let chromaRows = (height + 1) / 2
        let slices = min(self.slices, chromaRows)
        let rows = self.rows
        // Each slice runs its own chroma rows with its own scratch; the addresses cross as numbers (pointers are
        // not Sendable), and the frames, tables and scratch outlive the call.
        withExtendedLifetime((frame, output)) {
            withUnsafePointer(to: &params) { p in
                withUnsafePointer(to: &picture) { pic in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        let (pAddress, picAddress) = (Int(bitPattern: p), Int(bitPattern: pic))
                        let scratchAddress = Int(bitPattern: scratch.baseAddress!)
                        DispatchQueue.concurrentPerform(iterations: slices) { s in
                            let p = UnsafePointer<MWToneParams>(bitPattern: pAddress)
                            let pic = UnsafePointer<MWTonePicture>(bitPattern: picAddress)
                            let scratch = UnsafeMutablePointer<Float>(bitPattern: scratchAddress)! + s * 6 * (width + 1)
                            let first: Int = chromaRows * s / slices, end: Int = chromaRows * (s + 1) / slices
                            rows(p, pic, first, end, scratch)
                        }
                    }
                }
            }
        }
        return output
    }

    /// FFmpeg's vf_tonemap's Hable curve.
    static func hable(_ x: Double) -> Double {
        let (a, b, c, d, e, f) = (0.15, 0.50, 0.10, 0.20, 0.02, 0.30)
        return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f
    }
}

/// A colour space's primaries and white (CIE xy), and its RGB ↔ XYZ matrices (linear light).
struct Primaries {
    let red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double)

    static let bt709 = Primaries(red: (0.640, 0.330), green: (0.300, 0.600), blue: (0.150, 0.060), white: (0.3127, 0.3290))
    static let bt2020 = Primaries(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: (0.3127, 0.3290))

    /// RGB → XYZ (rows X, Y, Z): each primary's XYZ scaled so that R = G = B = 1 is the white with Y = 1.
    var toXYZ: Matrix3 {
        func xyz(_ p: (Double, Double)) -> [Double] { [p.0 / p.1, 1, (1 - p.0 - p.1) / p.1] }
        let columns = [xyz(red), xyz(green), xyz(blue)]
        let m: Matrix3 = (0..<3).map { r in columns.map { $0[r] } }
        let s = m.inverse.applied(to: xyz(white))
        return (0..<3).map { r in (0..<3).map { c in m[r][c] * s[c] } }
    }

    var fromXYZ: Matrix3 { toXYZ.inverse }
}

typealias Matrix3 = [[Double]]

extension Matrix3 {
    func multiplied(by o: Matrix3) -> Matrix3 {
        (0..<3).map { r in (0..<3).map { c in (0..<3).reduce(0) { $0 + self[r][$1] * o[$1][c] } } }
    }

    func applied(to v: [Double]) -> [Double] { (0..<3).map { r in (0..<3).reduce(0) { $0 + self[r][$1] * v[$1] } } }

    var inverse: Matrix3 {
        let m = self
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        func cofactor(_ r: Int, _ c: Int) -> Double {
            let rows = (0..<3).filter { $0 != r }, cols = (0..<3).filter { $0 != c }
            let v = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
            return (r + c) % 2 == 0 ? v : -v
        }
        return (0..<3).map { r in (0..<3).map { c in cofactor(c, r) / det } }
    }
}

/// An SDR picture (yuv420p, BT.709 or BT.601) placed into HDR (`--hdr keep`): BT.2020, HLG or PQ, 10 bits, its white
/// at BT.2408's reference white, 203 cd/m² (75 % of HLG's signal, 58 % of PQ's), by zscale.
final class SDRToHDR {
    private let filter: PictureFilter

    init(transfer: HDRTransfer, from matrix: ColorMatrix) {
        let (t, m, p) = matrix == .bt709 ? ("709", "709", "709") : ("601", "470bg", "170m")
        filter = PictureFilter("zscale=tin=\(t):min=\(m):pin=\(p):rin=tv:t=\(transfer.zscaleName):p=2020:m=2020_ncl:r=tv:npl=203,"
                               + "format=yuv420p10le")
    }

    /// `frame` in HDR (a picture this owns, valid until the next call).
    func map(_ frame: Frame) throws(FFmpegError) -> Frame { try filter.apply(frame) }
}

/// Pictures through a chain of FFmpeg's video filters, one at a time; the graph is made for the first picture's
/// size and format (and made again when they change), on every core.
final class PictureFilter {
    let filters: String
    private var graph: FilterGraph?
    private var shape: (width: Int, height: Int, format: PixelFormat)?
    private let output = Frame()

    init(_ filters: String) { self.filters = filters }

    /// `frame` filtered (a picture this owns, valid until the next call); `frame` itself is kept.
    func apply(_ frame: Frame) throws(FFmpegError) -> Frame {
        if shape == nil || shape! != (frame.width, frame.height, frame.pixelFormat) {
            // zscale and tonemap cut a picture into slices, one a core.
            let g = FilterGraph(threads: ProcessInfo.processInfo.activeProcessorCount)
            try g.addVideoSource(width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat)
            try g.addVideoSink()
            try g.configure("[in0]" + filters + "[out]")
            (graph, shape) = (g, (frame.width, frame.height, frame.pixelFormat))
        }
        try graph!.push(frame, to: 0, keep: true)
        output.unref()
        guard case .value = try graph!.pull(into: output) else {
            throw FFmpegError(.invalidArgument, call: "the filters (\(filters)) gave no picture")
        }
        return output
    }
}
