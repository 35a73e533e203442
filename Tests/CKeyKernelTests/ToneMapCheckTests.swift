import CKeyKernel
import FFmpegSupport
import Testing
import TestSupport
@testable import MixWrite

/// The tone mapper's C kernel checked as the keyer's is: every level this CPU runs against the scalar reference
/// (level 0), bit for bit, on seeded random 10-bit pictures of every width from 1 to 40 and wider ones, odd and even
/// heights, HLG and PQ, both matrices and both primaries, any peak; each plane at an unaligned start with guard bytes
/// around it (a write past either end changes them), the inputs left as they were.
@Suite("tone mapping kernel: every level against the scalar reference")
struct ToneMapCheckTests {
    static let levels = Array(1...max(1, KeyKernel.best)).filter { $0 <= KeyKernel.best }

    /// One picture's planes (rows of exactly the picture's width) and the kernel's output planes and scratch.
    final class Picture {
        let width: Int, height: Int
        let y: Guarded<UInt16>, u: Guarded<UInt16>, v: Guarded<UInt16>
        let outY: Guarded<UInt8>, outU: Guarded<UInt8>, outV: Guarded<UInt8>
        let scratch: Guarded<UInt32>

        init(width: Int, height: Int, _ rng: inout SplitMix64) {
            (self.width, self.height) = (width, height)
            let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
            // Half the pictures in the limited range a camera writes, half anything 10 bits hold.
            let range: ClosedRange<UInt16> = Bool.random(using: &rng) ? 64...940 : 0...1023
            y = .random(width * height, &rng, in: range)
            u = .random(cw * ch, &rng, in: range)
            v = .random(cw * ch, &rng, in: range)
            outY = .random(width * height, &rng)
            outU = .random(cw * ch, &rng)
            outV = .random(cw * ch, &rng)
            scratch = .random(6 * (width + 1), &rng)
        }

        init(copying p: Picture) {
            (width, height) = (p.width, p.height)
            (y, u, v) = (p.y.copy(), p.u.copy(), p.v.copy())
            (outY, outU, outV, scratch) = (p.outY.copy(), p.outU.copy(), p.outV.copy(), p.scratch.copy())
        }

        func run(_ rows: MWToneRows, _ params: MWToneParams) {
            var picture = MWTonePicture()
            (picture.y, picture.u, picture.v) = (UnsafePointer(y.pointer), UnsafePointer(u.pointer), UnsafePointer(v.pointer))
            let cw = (width + 1) / 2
            (picture.yStride, picture.uStride, picture.vStride) = (width, cw, cw)
            (picture.outY, picture.outU, picture.outV) = (outY.pointer, outU.pointer, outV.pointer)
            (picture.outYStride, picture.outUStride, picture.outVStride) = (width, cw, cw)
            (picture.width, picture.height) = (width, height)
            var p = params
            let scratch = UnsafeMutableRawPointer(self.scratch.pointer).assumingMemoryBound(to: Float.self)
            rows(&p, &picture, 0, (height + 1) / 2, scratch)
        }
    }

    @Test("toneRows: every pixel and chroma sample, HLG and PQ", .enabled(if: KeyKernel.best >= 1, "no vector level on this CPU"),
          arguments: levels)
    func toneRows(level: Int32) throws {
        var rng = SplitMix64(seed: 0x746f_6e65 + UInt64(level))
        let reference = try #require(mw_tone_kernel(0)?.pointee.rows), kernel = try #require(mw_tone_kernel(level)?.pointee.rows)
        var checked = 0
        for transfer in [HDRTransfer.hlg, .pq] {
            for (primaries, matrix) in [("bt2020", "2020_ncl"), ("bt709", "709"), ("bt2020", "709")] {
                let mapper = try #require(ToneMapKernel(transfer: transfer, primaries: primaries, matrix: matrix, level: 0))
                for width in Array(1...40) + [64, 97, 320] {
                    var params = mapper.params
                    params.hablePeakInverse = Float(1 / ToneMapKernel.hable(Double.random(in: 1...100, using: &rng)))
                    let picture = Picture(width: width, height: Int.random(in: 1...5, using: &rng), &rng)
                    let (expected, got) = (Picture(copying: picture), Picture(copying: picture))
                    expected.run(reference, params)
                    got.run(kernel, params)
                    let what = "level \(level), \(transfer.rawValue) \(primaries) \(matrix), \(width)×\(picture.height)"
                    try got.outY.expectSame(as: expected.outY, what + ", Y'")
                    try got.outU.expectSame(as: expected.outU, what + ", Cb")
                    try got.outV.expectSame(as: expected.outV, what + ", Cr")
                    for (plane, name) in [(got.y, "Y"), (got.u, "U"), (got.v, "V")] {
                        #expect(plane.values == (name == "Y" ? picture.y : name == "U" ? picture.u : picture.v).values, "\(what): input \(name) changed")
                        try plane.expectIntact(what + ", input \(name)")
                    }
                    try got.scratch.expectIntact(what + ", scratch")
                    checked += 1
                }
            }
        }
        print("toneRows, level \(level): \(checked) pictures like the reference's")
    }
}
