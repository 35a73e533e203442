import FFmpegSupport
import Testing
import TestSupport
@_spi(Benchmarks) @_spi(Tools) @testable import MixWrite

/// The keyer against a float RGB implementation of GPUImage's formula, before any encoding.
@Suite("ChromaKeyBlend: GPUImage-exact on YUV planes")
struct ChromaKeyBlendTests {
    /// A picture as RGB in [0, 1], colour constant over each 2×2 block (as a 4:2:0 source is).
    struct RGBPicture {
        var width: Int
        var height: Int
        var pixels: [(Double, Double, Double)]

        init(width: Int, height: Int, block: (Int, Int) -> (Double, Double, Double)) {
            self.width = width
            self.height = height
            pixels = (0..<(width * height)).map { i in block((i % width) / 2, (i / width) / 2) }
        }
    }

    /// Into a yuv420p frame with `color`'s matrix, rounding as an 8-bit source would.
    static func frame(_ p: RGBPicture, color: ColorDescription) throws -> Frame {
        let f = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p)
        for y in 0..<p.height {
            for x in 0..<p.width {
                let (r, g, b) = p.pixels[y * p.width + x]
                let (yy, u, v) = color.yuv(r: r, g: g, b: b)
                f.plane(0)[y * f.stride(0) + x] = UInt8(min(max(yy.rounded(), 0), 255))
                if x % 2 == 0 && y % 2 == 0 {
                    f.plane(1)[(y / 2) * f.stride(1) + x / 2] = UInt8(min(max(u.rounded(), 0), 255))
                    f.plane(2)[(y / 2) * f.stride(2) + x / 2] = UInt8(min(max(v.rounded(), 0), 255))
                }
            }
        }
        return f
    }

    /// Back to RGB in [0, 1] (clamped, as a texture is), pixel by pixel.
    static func rgb(_ f: Frame, color: ColorDescription) -> [(Double, Double, Double)] {
        var out: [(Double, Double, Double)] = []
        for y in 0..<f.height {
            for x in 0..<f.width {
                let yy = Double(f.plane(0)[y * f.stride(0) + x])
                let u = Double(f.plane(1)[(y / 2) * f.stride(1) + x / 2])
                let v = Double(f.plane(2)[(y / 2) * f.stride(2) + x / 2])
                let c = color.rgb(y: yy, u: u, v: v)
                out.append((c.r, c.g, c.b))
            }
        }
        return out
    }

    /// fx: every key distance (the key colour mixed with 16 hues, 0 … 100 %), hard edges between the key
    /// and white/grey/black/skin, and plain white, grey, black; base: a colour ramp.
    static let fxPicture = RGBPicture(width: 256, height: 192) { bx, by in
        let hues: [(Double, Double, Double)] = [(1, 0, 0), (1, 0.5, 0), (1, 1, 0), (0.5, 1, 0), (0, 1, 0.5), (0, 1, 1),
                                                (0, 0.5, 1), (0, 0, 1), (0.5, 0, 1), (1, 0, 1), (1, 0, 0.5), (1, 1, 1),
                                                (0.5, 0.5, 0.5), (0, 0, 0), (0.9, 0.7, 0.6), (0.2, 0.6, 0.2)]
        if by < 64 {
            // Rows of 4 blocks a hue; along x the mix goes from pure key to pure hue.
            let hue = hues[(by / 4) % hues.count]
            let t = Double(bx) / 127
            return ((1 - t) * 0 + t * hue.0, (1 - t) * 1 + t * hue.1, (1 - t) * 0 + t * hue.2)
        }
        if by < 80 {
            // Hard edges: key and a kept colour alternate every 3 blocks.
            let kept = hues[11 + (bx / 24) % 5]
            return (bx / 3) % 2 == 0 ? (0, 1, 0) : kept
        }
        let plain: [(Double, Double, Double)] = [(1, 1, 1), (0.5, 0.5, 0.5), (0, 0, 0), (0, 1, 0)]
        return plain[(bx / 32) % 4]
    }

    static let basePicture = RGBPicture(width: 256, height: 192) { bx, by in
        (Double(bx) / 127, Double(by) / 95, 1 - Double(bx) / 127)
    }

    @Test("alpha per pixel within 0.02 of GPUImage's path on every key distance and hard edge", arguments: [
        (ColorDescription(matrix: .bt601, fullRange: false), GPUImageReference.Matrix.bt601),
        (ColorDescription(matrix: .bt709, fullRange: false), GPUImageReference.Matrix.bt709),
    ])
    func matchesGPUImagePath(_ color: FFmpegSupport.ColorDescription, _ matrix: GPUImageReference.Matrix) throws {
        let fx = try Self.frame(Self.fxPicture, color: color)
        let keyer = ChromaKeyBlend(settings: .init(), color: color)
        // The alpha the keyer gives each pixel, read from luma blended over a light and a dark grey base.
        var lumas: [[UInt8]] = []
        for grey in [0.75, 0.25] {
            let base = try Self.frame(RGBPicture(width: 256, height: 192) { _, _ in (grey, grey, grey) }, color: color)
            let out = try Frame(width: 256, height: 192, pixelFormat: .yuv420p)
            keyer.blend(fx: fx, base: base, into: out)
            lumas.append((0..<192).flatMap { y in (0..<256).map { out.plane(0)[y * out.stride(0) + $0] } })
        }
        let scale = Double(color.yuv(r: 0.75, g: 0.75, b: 0.75).y.rounded() - color.yuv(r: 0.25, g: 0.25, b: 0.25).y.rounded())
        let got = zip(lumas[0], lumas[1]).map { (Double($0) - Double($1)) / scale }
        let picture = GPUImageReference.Picture(
            width: 256, height: 192, y: (0..<192).flatMap { y in (0..<256).map { fx.plane(0)[y * fx.stride(0) + $0] } },
            u: (0..<96).flatMap { y in (0..<128).map { fx.plane(1)[y * fx.stride(1) + $0] } },
            v: (0..<96).flatMap { y in (0..<128).map { fx.plane(2)[y * fx.stride(2) + $0] } })
        let reference = GPUImageReference.blend(fx: picture, base: picture, matrix).alpha
        // The picture really covers the whole range of the key: keyed out, kept and the soft edge between.
        let keyedOut = reference.filter { $0 == 1 }.count, kept = reference.filter { $0 == 0 }.count
        #expect(keyedOut > 2000 && kept > 2000 && keyedOut + kept < reference.count - 500)
        let error = zip(got, reference).map { abs($0 - $1) }
        #expect(error.reduce(0, +) / Double(error.count) <= 0.02, "mean alpha error \(error.reduce(0, +) / Double(error.count))")
        #expect(error.max()! < 0.1, "largest alpha error \(error.max()!)")
    }

    @Test("extremes as GPUImage: pure key fully replaced; white, grey and black fully kept")
    func extremes() throws {
        let color = ColorDescription(matrix: .bt601, fullRange: false)
        let cases: [((Double, Double, Double), Bool)] = [((0, 1, 0), true), ((1, 1, 1), false), ((0.5, 0.5, 0.5), false), ((0, 0, 0), false)]
        for (c, replaced) in cases {
            let fx = try Self.frame(RGBPicture(width: 16, height: 16) { _, _ in c }, color: color)
            let base = try Self.frame(RGBPicture(width: 16, height: 16) { _, _ in (0.8, 0.2, 0.4) }, color: color)
            let out = try Frame(width: 16, height: 16, pixelFormat: .yuv420p)
            ChromaKeyBlend(settings: .init(), color: color).blend(fx: fx, base: base, into: out)
            let expected = replaced ? base : fx
            for plane in 0..<3 {
                let rows = plane == 0 ? 16 : 8
                for y in 0..<rows {
                    for x in 0..<rows {
                        #expect(out.plane(plane)[y * out.stride(plane) + x] == expected.plane(plane)[y * expected.stride(plane) + x],
                                "\(c) plane \(plane) at \(x),\(y)")
                    }
                }
            }
        }
    }

    @Test("the table's alpha is GPUImage's alpha of the same colour")
    func tableAgreesWithFormula() {
        let color = ColorDescription(matrix: .bt709, fullRange: false)
        let settings = ChromaKeyBlend.Settings(keyColor: KeyColor(r: 0.1, g: 0.3, b: 0.9), threshold: 0.3, smoothing: 0.2)
        let keyer = ChromaKeyBlend(settings: settings, color: color)
        for (r, g, b) in [(0.1, 0.3, 0.9), (0.2, 0.35, 0.7), (0.9, 0.9, 0.1), (0.4, 0.4, 0.6), (0.15, 0.3, 0.8)] {
            let (y, u, v) = color.yuv(r: r, g: g, b: b)
            let fromTable = keyer.alpha(y: UInt8(y.rounded()), u: UInt8(u.rounded()), v: UInt8(v.rounded()))
            let exact = ReferenceKey.alpha(r, g, b, key: (0.1, 0.3, 0.9), threshold: 0.3, smoothing: 0.2)
            #expect(abs(fromTable - exact) < 0.03, "\((r, g, b)): table \(fromTable), formula \(exact)")
        }
    }

    @Test("despill turns a green-lit edge neutral and leaves plain colours and the keyed area alone")
    func despill() throws {
        let color = ColorDescription(matrix: .bt601, fullRange: false)
        let keyer = ChromaKeyBlend(settings: .init(despill: true), color: color)
        func despilled(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
            let (_, u, v) = color.yuv(r: r, g: g, b: b)
            let uv = keyer.despillTable[Int(u.rounded()) << 8 | Int(v.rounded())]
            let c = color.rgbOffset(u: Double(uv >> 8), v: Double(uv & 0xFF))
            let (o0, o1, o2) = color.rgbOffset(u: u, v: v)
            return (r - o0 + c.0, g - o1 + c.1, b - o2 + c.2)
        }
        // Skin lit green from the screen: kept by the key (just past its soft edge), less green after despill,
        // and further from the key colour.
        let spill = (0.8, 0.75, 0.6)
        #expect(ReferenceKey.alpha(spill.0, spill.1, spill.2) == 0)
        let fixed = despilled(spill.0, spill.1, spill.2)
        let greenExcess = { (c: (Double, Double, Double)) in c.1 - (c.0 + c.2) / 2 }
        #expect(greenExcess(fixed) < 0.5 * greenExcess(spill), "\(spill) → \(fixed)")
        func distance(_ c: (Double, Double, Double)) -> Double {
            let (cr, cb) = ReferenceKey.chroma(c.0, c.1, c.2), (kr, kb) = ReferenceKey.chroma(0, 1, 0)
            return ((cr - kr) * (cr - kr) + (cb - kb) * (cb - kb)).squareRoot()
        }
        #expect(distance(fixed) > distance(spill) + 0.01)
        // Grey and a colour far from the key keep their chroma.
        for c in [(0.5, 0.5, 0.5), (0.9, 0.2, 0.3), (0.2, 0.3, 0.9)] {
            let d = despilled(c.0, c.1, c.2)
            #expect(abs(d.0 - c.0) < 0.02 && abs(d.1 - c.1) < 0.02 && abs(d.2 - c.2) < 0.02, "\(c) → \(d)")
        }
    }
}

/// The keyer's C loops (`Sources/CKeyKernel`: the edge map and the edge spans) are compiled for plain x86-64,
/// AVX2 and AVX-512; this machine runs the best it has, so the others are checked here against it.
@Suite("ChromaKeyBlend: every kernel level gives the same movie")
struct KernelLevelTests {
    /// (fx, base) pairs: a frame of the edges fixture over the base fixture (decoded by ffmpeg), the key-distance
    /// picture above over its ramp, and a checkerboard of key and out-of-gamut colours where every block is an edge.
    static func pairs(color: ColorDescription) throws -> [(Frame, Frame)] {
        func frame(_ p: GPUImageReference.Picture) throws -> Frame {
            let f = try Frame(width: p.width, height: p.height, pixelFormat: .yuv420p)
            for y in 0..<p.height { for x in 0..<p.width { f.plane(0)[y * f.stride(0) + x] = p.y[y * p.width + x] } }
            for y in 0..<p.chromaHeight {
                for x in 0..<p.chromaWidth {
                    f.plane(1)[y * f.stride(1) + x] = p.u[y * p.chromaWidth + x]
                    f.plane(2)[y * f.stride(2) + x] = p.v[y * p.chromaWidth + x]
                }
            }
            return f
        }
        let movie = (try frame(GPUImageReference.decode(Oracle.fixture("edges.mov"), frame: 10)),
                     try frame(GPUImageReference.decode(Oracle.fixture("base.mov"), frame: 10)))
        let picture = (try ChromaKeyBlendTests.frame(ChromaKeyBlendTests.fxPicture, color: color),
                       try ChromaKeyBlendTests.frame(ChromaKeyBlendTests.basePicture, color: color))
        let checker = Self.checkerboard(width: 256, height: 192)
        return [movie, picture, (try ChromaKeyBlendTests.frame(checker, color: color), picture.1)]
    }

    static func planes(_ f: Frame) -> [[UInt8]] {
        (0..<3).map { p in
            let (w, h) = p == 0 ? (f.width, f.height) : ((f.width + 1) / 2, (f.height + 1) / 2)
            return (0..<h).flatMap { y in (0..<w).map { f.plane(p)[y * f.stride(p) + $0] } }
        }
    }

    static func blend(_ keyer: ChromaKeyBlend, _ pair: (Frame, Frame)) throws -> [[UInt8]] {
        let out = try Frame(width: pair.0.width, height: pair.0.height, pixelFormat: .yuv420p)
        keyer.blend(fx: pair.0, base: pair.1, into: out)
        return planes(out)
    }

    /// The levels this CPU runs: 0 (the scalar reference) to the best.
    static let levels = Array(0...KeyKernel.best)

    @Test("every kernel level gives the scalar reference's bytes, whole pictures (soft, hard edge, despill)",
          arguments: [ChromaKeyBlend.Settings(), .init(smoothing: 0), .init(despill: true)])
    func levelsAgree(_ settings: ChromaKeyBlend.Settings) throws {
        let color = ColorDescription(matrix: .bt709, fullRange: false)
        let reference = ChromaKeyBlend(settings: settings, color: color, kernelLevel: 0)
        for pair in try Self.pairs(color: color) {
            let expected = try Self.blend(reference, pair)
            for level in Self.levels.dropFirst() {
                let got = try Self.blend(ChromaKeyBlend(settings: settings, color: color, kernelLevel: level), pair)
                for p in 0..<3 {
                    let differing = zip(got[p], expected[p]).filter { $0 != $1 }.count
                    #expect(differing == 0, "level \(level), plane \(p): \(differing) bytes differ from the reference")
                }
            }
        }
    }

    /// A checkerboard of key and out-of-gamut colours: every block an edge, so every span goes through the kernel
    /// (each holds more edge blocks than `EdgeSpan.fewEdges` at any level).
    static func checkerboard(width: Int, height: Int) -> ChromaKeyBlendTests.RGBPicture {
        ChromaKeyBlendTests.RGBPicture(width: width, height: height) { bx, by in
            (bx + by) % 4 == 0 ? (0, 1, 0) : (Double(bx % 7) / 6, Double(by % 5) / 4, Double((bx + by) % 3) / 2)
        }
    }

    /// The checkerboard `width` pixels wide over a plain pattern.
    static func checker(width: Int, height: Int = 24, color: ColorDescription) throws -> (Frame, Frame) {
        let fx = Self.checkerboard(width: width, height: height)
        let base = ChromaKeyBlendTests.RGBPicture(width: width, height: height) { bx, by in
            (Double(bx % 5) / 4, 0.3, Double(by % 3) / 2)
        }
        return (try ChromaKeyBlendTests.frame(fx, color: color), try ChromaKeyBlendTests.frame(base, color: color))
    }

    @Test("at a row's ends too: every width the kernel meets (its chunk at the start, the last one moved left, odd widths, rows shorter than a chunk)",
          arguments: [30, 33, 34, 35, 36, 50, 66, 97, 98])
    func rowEnds(width: Int) throws {
        let color = ColorDescription(matrix: .bt709, fullRange: false)
        let pair = try Self.checker(width: width, color: color)
        for settings in [ChromaKeyBlend.Settings(), .init(despill: true)] {
            let expected = try Self.blend(ChromaKeyBlend(settings: settings, color: color, kernelLevel: 0), pair)
            for level in Self.levels.dropFirst() {
                let got = try Self.blend(ChromaKeyBlend(settings: settings, color: color, kernelLevel: level), pair)
                let same = got == expected
                #expect(same, "level \(level) differs from the reference at width \(width) (despill: \(settings.despill))")
            }
        }
    }

    @Test("a picture of odd height blends as the same picture with its last luma row repeated (its last chroma row has one luma row)",
          arguments: [(Int32(0), ChromaKeyBlend.Settings()), (KeyKernel.best, .init()), (KeyKernel.best, .init(despill: true))])
    func oddHeight(level: Int32, settings: ChromaKeyBlend.Settings) throws {
        let color = ColorDescription(matrix: .bt709, fullRange: false)
        let (width, height) = (66, 23)
        let odd = try Self.checker(width: width, height: height, color: color)
        // The even picture: one more luma row, a copy of the last; the same chroma rows (the bottom one clamps
        // to itself in both).
        func repeatingLastRow(_ f: Frame) throws -> Frame {
            let e = try Frame(width: width, height: height + 1, pixelFormat: .yuv420p)
            for y in 0...height { for x in 0..<width { e.plane(0)[y * e.stride(0) + x] = f.plane(0)[min(y, height - 1) * f.stride(0) + x] } }
            for p in 1...2 {
                for y in 0..<(height + 1) / 2 { for x in 0..<width / 2 { e.plane(p)[y * e.stride(p) + x] = f.plane(p)[y * f.stride(p) + x] } }
            }
            return e
        }
        let even = (try repeatingLastRow(odd.0), try repeatingLastRow(odd.1))
        let keyer = ChromaKeyBlend(settings: settings, color: color, kernelLevel: level)
        let got = try Self.blend(keyer, odd), expected = try Self.blend(keyer, even)
        for p in 0..<3 {
            let differing = zip(got[p], expected[p]).filter { $0 != $1 }.count
            #expect(differing == 0, "plane \(p): \(differing) bytes differ")
        }
        // Edges in the last chroma row, so that its luma row is keyed pixel by pixel.
        let lastRow = Self.planes(odd.0)[0].suffix(width)
        #expect(Set(lastRow).count > 2, "the last row is not a checkerboard")
    }
}
