import CKeyKernel
import FFmpegSupport
import Testing
import TestSupport
@testable import MixWrite

/// The whole-frame blend by fx's own alpha (`AlphaBlend.blend`, C at every level) against overlay's formula written
/// out here pixel by pixel: seeded random pictures of odd and tiny sizes, with and without a despill table, the same
/// bits at every level this CPU runs.
@Suite("alpha blend: every level against overlay's formula")
struct AlphaBlendCheckTests {
    static func random(_ w: Int, _ h: Int, _ format: PixelFormat, _ rng: inout SplitMix64) throws -> Frame {
        let f = try Frame(width: w, height: h, pixelFormat: format)
        for p in 0..<(format == .yuva420p ? 4 : 3) {
            let (pw, ph) = p == 1 || p == 2 ? ((w + 1) / 2, (h + 1) / 2) : (w, h)
            for y in 0..<ph {
                // Alpha mostly 0 or 255 (a keyed picture's), the rest anything.
                for x in 0..<pw {
                    let r = UInt8.random(in: 0...255, using: &rng)
                    f.plane(p)[y * f.stride(p) + x] = p == 3 && r < 170 ? (r < 85 ? 0 : 255) : UInt8.random(in: 0...255, using: &rng)
                }
            }
        }
        return f
    }

    /// overlay's formula: (f·a + b·(255 − a)) / 255 rounded as FAST_DIV255, a chroma sample's alpha its 2×2's mean.
    static func expected(_ fx: Frame, _ base: Frame, _ despill: [UInt16]?) -> [[UInt8]] {
        let (w, h) = (fx.width, fx.height)
        func over(_ f: Int, _ b: Int, _ a: Int) -> UInt8 { UInt8(((f * a + b * (255 - a) + 128) * 257) >> 16) }
        var planes: [[UInt8]] = [[], [], []]
        for y in 0..<h {
            for x in 0..<w {
                planes[0].append(over(Int(fx.plane(0)[y * fx.stride(0) + x]), Int(base.plane(0)[y * base.stride(0) + x]),
                                      Int(fx.plane(3)[y * fx.stride(3) + x])))
            }
        }
        for cy in 0..<(h + 1) / 2 {
            for cx in 0..<(w + 1) / 2 {
                let xs = [2 * cx, min(2 * cx + 1, w - 1)], ys = [2 * cy, min(2 * cy + 1, h - 1)]
                let a = ys.flatMap { y in xs.map { x in Int(fx.plane(3)[y * fx.stride(3) + x]) } }.reduce(0, +) >> 2
                var (u, v) = (Int(fx.plane(1)[cy * fx.stride(1) + cx]), Int(fx.plane(2)[cy * fx.stride(2) + cx]))
                if let despill { (u, v) = (Int(despill[u << 8 | v] >> 8), Int(despill[u << 8 | v] & 0xFF)) }
                planes[1].append(over(u, Int(base.plane(1)[cy * base.stride(1) + cx]), a))
                planes[2].append(over(v, Int(base.plane(2)[cy * base.stride(2) + cx]), a))
            }
        }
        return planes
    }

    @Test("odd and tiny sizes, with and without a despill table: overlay's bits at every level", arguments: [false, true])
    func levels(despill: Bool) throws {
        var rng = SplitMix64(seed: despill ? 7 : 3)
        let table: [UInt16]? = despill ? (0..<65536).map { _ in UInt16.random(in: 0...UInt16.max, using: &rng) } : nil
        for (w, h) in [(1, 1), (2, 3), (3, 2), (33, 17), (64, 2), (130, 9)] {
            let fx = try Self.random(w, h, .yuva420p, &rng), base = try Self.random(w, h, .yuv420p, &rng)
            let want = Self.expected(fx, base, table)
            for level in 0...KeyKernel.best {
                let out = try Frame(width: w, height: h, pixelFormat: .yuv420p)
                AlphaBlend.blend(fx: fx, base: base, into: out, despill: table, level: level)
                for p in 0..<3 {
                    let (pw, ph) = p == 0 ? (w, h) : ((w + 1) / 2, (h + 1) / 2)
                    let got = (0..<ph).flatMap { y in (0..<pw).map { out.plane(p)[y * out.stride(p) + $0] } }
                    #expect(got == want[p], "\(w)×\(h) plane \(p) level \(level)")
                }
            }
        }
    }
}
