import CKeyKernel
import FFmpegSupport
import Foundation
import Testing
import TestSupport
@testable import MixWrite

/// The tone mapper's C kernel against FFmpeg's own chain run by the ffmpeg CLI, colour by colour: a sweep of 10-bit
/// Y'CbCr (luma in steps of 28 from 0 to 1023, chroma in steps of 85, so saturated highlights and colours outside
/// R'G'B''s cube too), each colour an 8×8 area so that the chain's chroma filters see it alone in the middle 4×4,
/// read back as the codes each gives. The whole chain, from the same samples: the tags (`setparams`), then the CLI's
/// own filters.
@Suite("tone mapping: the C kernel against the ffmpeg CLI's zscale + tonemap, colour by colour")
struct ToneMapKernelTests {
    static let lumas = Array(stride(from: 0, through: 1023, by: 28))
    static let chromas = Array(stride(from: 0, through: 1023, by: 85))
    static let side = 8

    /// The sweep as a yuv420p10 picture: its colours in rows of `columns` areas.
    static func sweep() throws -> (frame: Frame, columns: Int, count: Int) {
        let colours = lumas.flatMap { y in chromas.flatMap { u in chromas.map { v in (y, u, v) } } }
        let columns = Int(Double(colours.count).squareRoot().rounded(.up))
        let rows = (colours.count + columns - 1) / columns
        let frame = try Frame(width: columns * side, height: rows * side, pixelFormat: .yuv420p10)
        for (i, (y, u, v)) in colours.enumerated() {
            let (ax, ay) = (i % columns * side, i / columns * side)
            for plane in 0..<3 {
                let (n, value) = plane == 0 ? (side, y) : (side / 2, plane == 1 ? u : v)
                let (x0, y0) = plane == 0 ? (ax, ay) : (ax / 2, ay / 2)
                let base = UnsafeMutableRawPointer(frame.plane(plane))
                for r in y0 ..< y0 + n {
                    let row = (base + r * frame.stride(plane)).assumingMemoryBound(to: UInt16.self)
                    for c in x0 ..< x0 + n { row[c] = UInt16(value) }
                }
            }
        }
        return (frame, columns, colours.count)
    }

    /// The planes of a yuv420p picture (the rows without padding).
    static func planes(_ frame: Frame) -> [[UInt8]] {
        (0..<3).map { p in
            let (w, h) = p == 0 ? (frame.width, frame.height) : (frame.width / 2, frame.height / 2)
            return (0..<h).flatMap { r in Array(UnsafeBufferPointer(start: frame.plane(p) + r * frame.stride(p), count: w)) }
        }
    }

    @Test("HLG and PQ: every colour inside R'G'B''s cube and BT.709's gamut within 1 code of the chain's in Y', Cb and Cr (on average within 0.05); beyond BT.709, within 1 code of the chain's light clipped",
          arguments: [(HDRTransfer.hlg, "arib-std-b67"), (.pq, "smpte2084")])
    func sweepAgainstChain(transfer: HDRTransfer, zscaleName: String) throws {
        let dir = try Oracle.scratch("tonemap-sweep-\(transfer.rawValue)")
        let (frame, columns, count) = try Self.sweep()
        let (width, height) = (frame.width, frame.height)
        // The sweep as raw samples for the CLI (yuv420p10le, no padding).
        var raw = Data()
        for p in 0..<3 {
            let (w, h) = p == 0 ? (width, height) : (width / 2, height / 2)
            for r in 0..<h { raw.append(UnsafeRawPointer(frame.plane(p) + r * frame.stride(p)).assumingMemoryBound(to: UInt8.self), count: 2 * w) }
        }
        try raw.write(to: URL(fileURLWithPath: dir + "/sweep.yuv"))
        let chain = "setparams=color_primaries=bt2020:color_trc=\(zscaleName):colorspace=bt2020nc:range=tv," + ColorTests.cliChain
        let r = try Oracle.ffmpeg(["-y", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "\(width)x\(height)", "-i", dir + "/sweep.yuv",
                                   "-vf", chain, "-f", "rawvideo", "-pix_fmt", "yuv420p", dir + "/chain.yuv"])
        try #require(r.status == 0, "\(r.stderr)")
        let chain8 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/chain.yuv")))
        try #require(chain8.count == width * height * 3 / 2)
        let expected = [Array(chain8[0 ..< width * height]), Array(chain8[width * height ..< width * height * 5 / 4]),
                        Array(chain8[width * height * 5 / 4 ..< width * height * 3 / 2])]

        // The chain's own linear BT.709 light after its tone map (the CLI up to `tonemap`): a colour inside the cube may
        // be beyond BT.709's gamut (a channel below 0 there). The chain's last step is not one answer for those: zimg's
        // AVX2 path clips a negative channel to 0 before x^(1/2.4), its AVX-512 path carries the sign through (and Cb,
        // Cr then overflow 8 bits). The kernel clips, as a display does; for those colours it is held to the chain's
        // light with that last step done here (clip, x^(1/2.4), BT.709 limited-range Y'CbCr).
        let tonemapped = try Oracle.ffmpeg(["-y", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "\(width)x\(height)", "-i", dir + "/sweep.yuv",
                                            "-vf", "setparams=color_primaries=bt2020:color_trc=\(zscaleName):colorspace=bt2020nc:range=tv,"
                                                + ColorTests.cliChainToLinear709 + ",tonemap=tonemap=hable:desat=0",
                                            "-f", "rawvideo", "-pix_fmt", "gbrpf32le", dir + "/linear.raw"])
        try #require(tonemapped.status == 0, "\(tonemapped.stderr)")
        let light = [Float](try Data(contentsOf: URL(fileURLWithPath: dir + "/linear.raw")).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
        try #require(light.count == width * height * 3)
        /// The middle pixel's linear R, G, B (gbrp's planes are G, B, R).
        func linearRGB(_ i: Int) -> [Double] {
            let (x, y) = (i % columns * Self.side + Self.side / 2, i / columns * Self.side + Self.side / 2)
            return [2, 0, 1].map { Double(light[$0 * width * height + y * width + x]) }
        }
        func inGamut(_ i: Int) -> Bool { linearRGB(i).allSatisfy { $0 >= 0 } }

        let kernel = try #require(ToneMapKernel(transfer: transfer, primaries: "bt2020", matrix: "2020_ncl"))
        let got = Self.planes(try kernel.map(frame))

        /// What the chain gives colour i beyond BT.709's gamut, its last step clipped: Y', Cb, Cr codes.
        func clippedChain(_ i: Int) -> [Int] {
            let e = linearRGB(i).map { pow(max(0, $0), 1 / 2.4) }
            return [16 + 219 * (0.2126 * e[0] + 0.7152 * e[1] + 0.0722 * e[2]),
                    128 + 224 * (-0.1145721061 * e[0] - 0.3854278939 * e[1] + 0.5 * e[2]),
                    128 + 224 * (0.5 * e[0] - 0.4541529083 * e[1] - 0.0458470917 * e[2])].map { Int(min(255, max(0, $0.rounded()))) }
        }

        // Inside R'G'B''s cube, in BT.709's gamut (against the chain's codes) or beyond it (against the chain's light
        // clipped), and outside the cube (Y'CbCr holds colours no camera records: the chain's zimg takes the HDR
        // signal above 1 its own way there, which the kernel does not copy; reported only).
        var worst = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], total = worst, samples = worst
        let colours = Self.lumas.flatMap { y in Self.chromas.flatMap { u in Self.chromas.map { v in (y, u, v) } } }
        for i in 0..<count {
            let k = !Self.insideCube(colours[i]) ? 1 : inGamut(i) ? 0 : 2
            let clipped = k == 2 ? clippedChain(i) : nil
            let (ax, ay) = (i % columns * Self.side, i / columns * Self.side)
            for p in 0..<3 {
                // The middle of the area: 4×4 luma, 2×2 chroma.
                let (x0, y0, n, w) = p == 0 ? (ax + 2, ay + 2, 4, width) : (ax / 2 + 1, ay / 2 + 1, 2, width / 2)
                for y in y0 ..< y0 + n {
                    for x in x0 ..< x0 + n {
                        let d = abs(Int(got[p][y * w + x]) - (clipped?[p] ?? Int(expected[p][y * w + x])))
                        (total[k][p], samples[k][p], worst[k][p]) = (total[k][p] + d, samples[k][p] + 1, max(worst[k][p], d))
                    }
                }
            }
        }
        let means = (0..<3).map { k in (0..<3).map { Double(total[k][$0]) / Double(max(1, samples[k][$0])) } }
        let inside = (0..<3).map { Double(total[0][$0] + total[2][$0]) / Double(max(1, samples[0][$0] + samples[2][$0])) }
        print("\(transfer.rawValue) sweep: \(samples[0][0] / 16) colours inside the cube and BT.709's gamut, largest difference in codes "
              + "(Y', Cb, Cr) \(worst[0]), means \(means[0]); \(samples[2][0] / 16) inside the cube beyond BT.709 (the chain's light "
              + "clipped): \(worst[2]), means \(means[2]); \(samples[1][0] / 16) outside the cube: \(worst[1]), means \(means[1])")
        #expect(samples[0][0] / 16 > 100 && samples[2][0] / 16 > 100, "the sweep has colours in BT.709's gamut and beyond it")
        #expect(worst[0].allSatisfy { $0 <= 1 } && worst[2].allSatisfy { $0 <= 1 }, "\(worst[0]) \(worst[2])")
        #expect(inside.allSatisfy { $0 <= 0.05 }, "inside the cube, on average: \(inside)")
    }
}

extension ToneMapKernelTests {
    /// Whether a 10-bit BT.2020 Y'CbCr colour is inside R'G'B''s cube (the colours a camera records).
    static func insideCube(_ c: (Int, Int, Int)) -> Bool {
        let (y, u, v) = (Double(c.0 - 64) / 876, Double(c.1 - 512) / 896, Double(c.2 - 512) / 896)
        let (kr, kb) = (0.2627, 0.0593), kg = 1 - 0.2627 - 0.0593
        let rgb = [y + 2 * (1 - kr) * v, y - 2 * kb * (1 - kb) / kg * u - 2 * kr * (1 - kr) / kg * v, y + 2 * (1 - kb) * u]
        return rgb.allSatisfy { (0...1).contains($0) }
    }
}
