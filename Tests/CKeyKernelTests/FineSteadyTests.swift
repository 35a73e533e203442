import CKeyKernel
import Testing
import TestSupport

/// The fine keyer's matte steadied over the frames (`mw_fine_steady`, FineKeyer.h's step 6) against a model written
/// here from the header's words alone, byte for byte: seeded random pictures of odd and even sizes at strides wider
/// than their rows, a run of them where fx changes little in places and much in others, and the run's first picture
/// and one after a seek left as they are.
@Suite("fine keyer: the matte steadied over the frames, against its model")
struct FineSteadyTests {
    /// A picture: fx's three planes (yuv420p) and a matte, each row `pad` bytes wider than the picture.
    struct Picture {
        var y: [UInt8], u: [UInt8], v: [UInt8], alpha: [UInt8]
        let width: Int, height: Int, pad: Int
        var cw: Int { (width + 1) / 2 }
        var ch: Int { (height + 1) / 2 }
        var strides: (Int, Int, Int) { (width + pad, cw + pad, width + pad) }

        init(width: Int, height: Int, pad: Int, _ rng: inout SplitMix64) {
            (self.width, self.height, self.pad) = (width, height, pad)
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            y = (0..<(width + pad) * height).map { _ in UInt8.random(in: 0...255, using: &rng) }
            u = (0..<(cw + pad) * ch).map { _ in UInt8.random(in: 0...255, using: &rng) }
            v = (0..<(cw + pad) * ch).map { _ in UInt8.random(in: 0...255, using: &rng) }
            alpha = (0..<(width + pad) * height).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }

        /// The next picture of a run: fx moved by a little noise (most places, under the span), by much (a band), and a
        /// new matte.
        func next(_ rng: inout SplitMix64) -> Picture {
            var p = self
            func nudge(_ b: UInt8, _ by: Int) -> UInt8 { UInt8(clamping: Int(b) + Int.random(in: -by...by, using: &rng)) }
            for i in p.y.indices { p.y[i] = nudge(p.y[i], (i % (width + pad)) < width / 3 ? 60 : 6) }
            for i in p.u.indices { p.u[i] = nudge(p.u[i], 4) }
            for i in p.v.indices { p.v[i] = nudge(p.v[i], (i / (cw + pad)) == ch / 2 ? 90 : 3) }
            for i in p.alpha.indices { p.alpha[i] = UInt8.random(in: 0...255, using: &rng) }
            return p
        }
    }

    /// The header's step 6, written again: when `follows`, alpha moves towards the last picture's by
    /// (1 − c / 92) / 2 where c < 92 is the largest absolute 3 × 3 sum of fx's change (Y at the pixel, U and V at its
    /// chroma sample, the edge repeated), rounded to the nearest, halves away from zero.
    static func model(_ now: Picture, last: Picture?, follows: Bool) -> [UInt8] {
        var out = now.alpha
        guard follows, let last else { return out }
        func change(_ a: [UInt8], _ b: [UInt8], _ w: Int, _ h: Int, _ stride: Int, _ x: Int, _ y: Int) -> Int {
            var sum = 0
            for dy in -1...1 {
                for dx in -1...1 {
                    let i = min(max(y + dy, 0), h - 1) * stride + min(max(x + dx, 0), w - 1)
                    sum += Int(a[i]) - Int(b[i])
                }
            }
            return abs(sum)
        }
        let (sy, sc, sa) = now.strides
        for y in 0..<now.height {
            for x in 0..<now.width {
                let c = max(change(now.y, last.y, now.width, now.height, sy, x, y),
                            change(now.u, last.u, now.cw, now.ch, sc, x / 2, y / 2),
                            change(now.v, last.v, now.cw, now.ch, sc, x / 2, y / 2))
                let own = Int(now.alpha[y * sa + x]), before = Int(last.alpha[y * sa + x])
                let weight = c < 92 ? 92 - c : 0
                let n = (before - own) * weight
                let step = n >= 0 ? (n + 92) / 184 : -((-n + 92) / 184)
                out[y * sa + x] = UInt8(own + step)
            }
        }
        return out
    }

    /// The C step on `picture` (its matte steadied in place).
    static func steady(_ s: OpaquePointer, _ picture: Picture, follows: Bool) -> [UInt8] {
        var p = picture
        let (sy, sc, sa) = p.strides
        p.y.withUnsafeBufferPointer { y in
            p.u.withUnsafeBufferPointer { u in
                p.v.withUnsafeBufferPointer { v in
                    var input = MWFineInput(plane: (y.baseAddress, u.baseAddress, v.baseAddress), stride: (sy, sc, sc))
                    p.alpha.withUnsafeMutableBufferPointer { a in mw_fine_steady(s, &input, a.baseAddress, sa, follows ? 1 : 0) }
                }
            }
        }
        return p.alpha
    }

    @Test("runs of pictures, odd and even sizes: the model's bytes, the first picture and one after a seek left as they are",
          arguments: [(1, 1), (2, 2), (3, 5), (17, 9), (64, 36), (101, 47)])
    func againstModel(size: (Int, Int)) throws {
        var rng = SplitMix64(seed: UInt64(size.0 * 1000 + size.1))
        let s = try #require(mw_fine_steady_create(Int32(size.0), Int32(size.1)))
        defer { mw_fine_steady_free(s) }
        var pictures = [Picture(width: size.0, height: size.1, pad: 5, &rng)]
        for _ in 0..<4 { pictures.append(pictures.last!.next(&rng)) }
        // Picture 3 comes after a seek: not steadied, but kept for picture 4.
        var last: Picture?
        var moved = 0
        for (i, p) in pictures.enumerated() {
            let follows = i > 0 && i != 3
            let got = Self.steady(s, p, follows: follows)
            let want = Self.model(p, last: last, follows: follows)
            #expect(got == want, "picture \(i) of \(size): \(zip(got, want).filter { $0 != $1 }.count) bytes differ")
            if !follows { #expect(got == p.alpha, "picture \(i) is its own") }
            moved += zip(got, p.alpha).filter { $0 != $1 }.count
            last = p
        }
        // The run moves some matte (the model is not the identity on these pictures).
        if size.0 * size.1 > 100 { #expect(moved > 0) }
    }

    @Test("the step's division by 184 as FineParts.h's `half_span_rounded` makes it (a multiply and a shift) is the quotient for every value it meets")
    func division() {
        // |(last − own) · weight| ≤ 255 · 92, plus the half for rounding.
        let wrong = (0...(255 * 92)).filter { (m: Int) -> Bool in
            let n = UInt32(m + 92), product: UInt32 = n &* 91181
            return Int(product >> 24) != (m + 92) / 184
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test("fx unchanged: the matte is the mean of the two pictures' (rounded), whatever their values; changed by the span or more: its own")
    func stillAndMoving() throws {
        let s = try #require(mw_fine_steady_create(8, 4))
        defer { mw_fine_steady_free(s) }
        var rng = SplitMix64(seed: 7)
        var first = Picture(width: 8, height: 4, pad: 0, &rng)
        (first.y, first.u, first.v) = (Array(repeating: 100, count: 32), Array(repeating: 128, count: 8), Array(repeating: 128, count: 8))
        first.alpha = Array(repeating: 10, count: 32)
        _ = Self.steady(s, first, follows: false)
        var second = first
        second.alpha = Array(repeating: 201, count: 32)
        #expect(Self.steady(s, second, follows: true) == Array(repeating: 105, count: 32))   // 201 − 95.5, away from zero
        var third = second
        third.y = Array(repeating: 111, count: 32)   // every 3 × 3 sum of the change is 99
        third.alpha = Array(repeating: 40, count: 32)
        #expect(Self.steady(s, third, follows: true) == Array(repeating: 40, count: 32))
    }
}
