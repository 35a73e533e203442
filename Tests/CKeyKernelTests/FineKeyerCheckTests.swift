import CKeyKernel
import FFmpegSupport
import Testing
import TestSupport
@testable import MixWrite

/// The fine keyer's C checked as the keyer's kernel is: its per-pixel core at every level this CPU runs against the
/// scalar reference (level 0), bit for bit, on seeded random rows of every width from 1 to 40 and wider, each array
/// at an unaligned start with guard bytes around it; and whole pictures (a lit, noisy screen with a subject, odd
/// sizes, 4:2:0 and 4:4:4 out) keyed at every level and in two parts (the picture-wide passes' rows of cells and the
/// tiles) as in one, the same bits; laid over a base as they are keyed, the bits of keying then laying by the matte.
@Suite("fine keyer: every level against the scalar reference")
struct FineKeyerCheckTests {
    static let levels = Array(1...max(1, KeyKernel.best)).filter { $0 <= KeyKernel.best }

    /// Floats as guarded 32-bit words.
    static func floats(_ count: Int, _ rng: inout SplitMix64, _ range: ClosedRange<Float>) -> Guarded<UInt32> {
        Guarded((0..<count).map { _ in Float.random(in: range, using: &rng).bitPattern }, misalign: Int.random(in: 0..<8, using: &rng))
    }

    /// The parameters of a green screen read as BT.709 limited range, with the key and spill as a user gives them.
    static func params(_ key: KeyColor = KeyColor(r: 0.22, g: 0.63, b: 0.3), despill: Double = 1) -> MWFineParams {
        var s = KeySettings(keyColor: key)
        (s.keyer, s.despillStrength) = (.fine, despill)
        return FineKeyer.parameters(s, ColorDescription(matrix: .bt709, fullRange: false))!
    }

    /// One row's inputs and outputs.
    final class Row {
        let width: Int
        let luma: Guarded<UInt8>
        let inputs: [Guarded<UInt32>]
        let outputs: [Guarded<UInt32>]

        init(width: Int, _ rng: inout SplitMix64) {
            self.width = width
            luma = .random(width, &rng)
            // guideA, guideB, u, v, luma's mean, screen ×3, fore ×3, near, core.
            let ranges: [ClosedRange<Float>] = [-0.05...0.05, -1...2, -0.5...0.5, -0.5...0.5, 0...255, 0...1, 0...1, 0...1, 0...1, 0...1, 0...1, 0...1]
            var inputs = ranges.map { FineKeyerCheckTests.floats(width, &rng, $0) }
            inputs.append(Guarded((0..<width).map { _ in (Bool.random(using: &rng) ? Float(1) : 0).bitPattern }, misalign: 3))
            self.inputs = inputs
            outputs = (0..<4).map { _ in FineKeyerCheckTests.floats(width, &rng, -9...9) }
        }

        init(copying r: Row) {
            width = r.width
            (luma, inputs, outputs) = (r.luma.copy(), r.inputs.map { $0.copy() }, r.outputs.map { $0.copy() })
        }

        func run(_ core: MWFineCore, _ params: MWFineParams) {
            func f(_ g: Guarded<UInt32>) -> UnsafeMutablePointer<Float> { UnsafeMutableRawPointer(g.pointer).assumingMemoryBound(to: Float.self) }
            let i = inputs.map { UnsafePointer(f($0)) }
            var row = MWFineRow(luma: UnsafePointer(luma.pointer), guideA: i[0], guideB: i[1], u: i[2], v: i[3], lumaMean: i[4],
                                screen: (i[5], i[6], i[7]), fore: (i[8], i[9], i[10]), near: i[11], core: i[12],
                                alpha: f(outputs[0]), outY: f(outputs[1]), outU: f(outputs[2]), outV: f(outputs[3]), width: width)
            var p = params
            core(&p, &row)
        }
    }

    @Test("core: every pixel's matte and colour", .enabled(if: KeyKernel.best >= 1, "no vector level on this CPU"), arguments: levels)
    func core(level: Int32) throws {
        var rng = SplitMix64(seed: 0x6669_6e65 + UInt64(level))
        let reference = try #require(mw_fine_kernel(0)?.pointee.core), kernel = try #require(mw_fine_kernel(level)?.pointee.core)
        for width in Array(1...40) + [64, 127, 1920] {
            let params = Self.params(despill: [0, 0.5, 1].randomElement(using: &rng)!)
            let want = Row(width: width, &rng), got = Row(copying: want)
            want.run(reference, params)
            got.run(kernel, params)
            for (g, w) in zip(got.outputs, want.outputs) { try g.expectSame(as: w, "level \(level), width \(width)") }
            for (g, w) in zip(got.inputs, want.inputs) { try g.expectSame(as: w, "level \(level), width \(width): an input") }
        }
    }

    /// A picture as a camera gives it: a screen lit unevenly with noise, a subject (a disc and thin strands of
    /// another colour) over it; yuv420p planes without padding.
    static func picture(width: Int, height: Int, _ rng: inout SplitMix64, subject: Bool = true) -> (y: [UInt8], u: [UInt8], v: [UInt8]) {
        let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
        var y = [UInt8](repeating: 0, count: width * height), u = [UInt8](repeating: 0, count: cw * ch), v = u
        for py in 0..<height {
            for px in 0..<width {
                let dx = Double(px) - Double(width) * 0.4, dy = Double(py) - Double(height) * 0.5
                let inside = subject && (dx * dx + dy * dy < Double(width * height) * 0.04 || px % 11 == 0)
                let light = 0.9 + 0.2 * Double(px) / Double(width)
                let noise = Double.random(in: -2...2, using: &rng)
                y[py * width + px] = UInt8(clamping: Int((inside ? 60 : 130 * light) + noise))
                if py % 2 == 0 && px % 2 == 0 {
                    u[py / 2 * cw + px / 2] = UInt8(clamping: Int((inside ? 120 : 100) + noise))
                    v[py / 2 * cw + px / 2] = UInt8(clamping: Int((inside ? 150 : 95) + noise))
                }
            }
        }
        return (y, u, v)
    }

    /// A picture keyed at `level` in `parts` parts (4:2:0 out, or 4:4:4 with `full`): the output's four planes; or laid
    /// as it is keyed over `base` (4:2:0): the output's three.
    static func keyed(_ pic: (y: [UInt8], u: [UInt8], v: [UInt8]), width: Int, height: Int, level: Int32, parts: Int32,
                      full: Bool, over base: (y: [UInt8], u: [UInt8], v: [UInt8])? = nil,
                      plate: (y: [UInt8], u: [UInt8], v: [UInt8])? = nil, steady: OpaquePointer? = nil,
                      follows: Bool = false) throws -> [[UInt8]] {
        let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
        let (ow, oh) = full ? (width, height) : (cw, ch)
        let sizes = [width * height, ow * oh, ow * oh] + (base == nil ? [width * height] : [])
        let planes = sizes.map { UnsafeMutableBufferPointer<UInt8>.allocate(capacity: $0) }
        defer { for p in planes { p.deallocate() } }
        for p in planes { p.initialize(repeating: 7) }
        let keyer = try #require(mw_fine_create(Int32(width), Int32(height)))
        defer { mw_fine_free(keyer) }
        let kernel = try #require(mw_fine_kernel(level), "level \(level) is not in the family's table")
        var p = Self.params()
        var input = MWFineInput(), out = MWFineOutput()
        out.plane = (planes[0].baseAddress, planes[1].baseAddress, planes[2].baseAddress, base == nil ? planes[3].baseAddress : nil)
        out.stride = (width, ow, ow, base == nil ? width : 0)
        out.fullChroma = full ? 1 : 0
        for (i, plane) in ([pic.y, pic.u, pic.v] + (base.map { [$0.y, $0.u, $0.v] } ?? [])).enumerated() {
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, plane.count))
            _ = copy.initialize(from: plane)
            switch i {
            case 0: (input.plane.0, input.stride.0) = (UnsafePointer(copy.baseAddress), width)
            case 1: (input.plane.1, input.stride.1) = (UnsafePointer(copy.baseAddress), cw)
            case 2: (input.plane.2, input.stride.2) = (UnsafePointer(copy.baseAddress), cw)
            case 3: (out.base.0, out.baseStride.0) = (UnsafePointer(copy.baseAddress), width)
            case 4: (out.base.1, out.baseStride.1) = (UnsafePointer(copy.baseAddress), cw)
            default: (out.base.2, out.baseStride.2) = (UnsafePointer(copy.baseAddress), cw)
            }
        }
        defer {
            for q in [input.plane.0, input.plane.1, input.plane.2, out.base.0, out.base.1, out.base.2] { UnsafeMutablePointer(mutating: q)?.deallocate() }
        }
        if let plate {
            try plate.y.withUnsafeBufferPointer { y in
                try plate.u.withUnsafeBufferPointer { u in
                    try plate.v.withUnsafeBufferPointer { v in
                        var given = MWFineInput(plane: (y.baseAddress, u.baseAddress, v.baseAddress), stride: (width, cw, cw))
                        try #require(mw_fine_plate(keyer, &p, &given) == 0)
                    }
                }
            }
        }
        // Step 6 in a run: as the tiles lay the picture, or on the whole matte keyed.
        if let steady, base != nil { (out.steady, out.follows) = (steady, follows ? 1 : 0) }
        // The picture-wide steps whole, or in parts as the keyer runs them: each pass's rows of cells by part, then its grid.
        if parts == 1 {
            try #require(mw_fine_prepare(keyer, &p, &input, kernel) == 0)
        } else {
            for pass in 0..<Int32(MW_FINE_PASSES) {
                for part in 0..<parts { try #require(mw_fine_rows(keyer, &p, &input, kernel, pass, part, parts) == 0) }
                try #require(mw_fine_grid(keyer, &p, kernel, pass) == 0)
            }
        }
        for part in 0..<parts { try #require(mw_fine_tiles(keyer, &p, &input, &out, kernel, part, parts) == 0) }
        if let steady {
            if base == nil { mw_fine_steady(steady, &input, planes[3].baseAddress, width, follows ? 1 : 0) } else { mw_fine_steady_keep(steady, &input) }
        }
        return planes.map { Array($0) }
    }

    /// A run of pictures as a camera gives them: a lit, noisy screen (`picture`'s) with a disc of subject moving a
    /// pixel a picture, the noise new each time; and in every other picture faint features fx hardly changes for, so
    /// that a plain tile's last matte is not its own: dark lines a few levels under the screen, a spot of the disc's
    /// chroma a little towards the screen's.
    static func run(width: Int, height: Int, count: Int, _ rng: inout SplitMix64) -> [(y: [UInt8], u: [UInt8], v: [UInt8])] {
        let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
        return (0..<count).map { k in
            var (y, u, v) = picture(width: width, height: height, &rng, subject: false)
            let (cx0, cy0, r) = (Double(width) * 0.4 + Double(k), Double(height) * 0.5, Double(min(width, height)) * 0.3)
            for py in 0..<height {
                for px in 0..<width where (Double(px) - cx0) * (Double(px) - cx0) + (Double(py) - cy0) * (Double(py) - cy0) < r * r {
                    y[py * width + px] = UInt8(clamping: 60 + Int.random(in: -2...2, using: &rng))
                    if py % 2 == 0 && px % 2 == 0 { (u[py / 2 * cw + px / 2], v[py / 2 * cw + px / 2]) = (120, 150) }
                }
            }
            guard k % 2 == 0 else { return (y, u, v) }
            for row in 0..<height { for col in stride(from: 3, to: width, by: 29) where y[row * width + col] > 100 { y[row * width + col] -= 20 } }
            let (sx, sy) = (Int(cx0) / 2, ch / 2)
            for cy in max(0, sy - 2)..<min(ch, sy + 2) {
                for cx in max(0, sx - 2)..<min(cw, sx + 2) { u[cy * cw + cx] -= 9; v[cy * cw + cx] -= 9 }
            }
            return (y, u, v)
        }
    }

    /// A keyed picture's four planes (4:2:0) laid over `base` by overlay's formula (AlphaBlendKernel.h's, checked
    /// against it by AlphaBlendCheckTests).
    static func laid(_ keyed: [[UInt8]], over base: (y: [UInt8], u: [UInt8], v: [UInt8]), width: Int, height: Int) -> [[UInt8]] {
        let cw = (width + 1) / 2, ch = (height + 1) / 2, sizes = [width * height, cw * ch, cw * ch]
        let ins = (keyed + [base.y, base.u, base.v]).map { a in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, a.count))
            p.initialize(from: a, count: a.count)
            return p
        }
        let outs = sizes.map { UnsafeMutablePointer<UInt8>.allocate(capacity: $0) }
        defer { for p in ins + outs { p.deallocate() } }
        var b = MWAlphaBlend()
        b.fx = (UnsafePointer(ins[0]), UnsafePointer(ins[1]), UnsafePointer(ins[2]), UnsafePointer(ins[3]))
        b.base = (UnsafePointer(ins[4]), UnsafePointer(ins[5]), UnsafePointer(ins[6]))
        b.out = (outs[0], outs[1], outs[2])
        (b.fxStride, b.baseStride, b.outStride) = ((width, cw, cw, width), (width, cw, cw), (width, cw, cw))
        (b.width, b.height) = (Int32(width), Int32(height))
        mw_alpha_kernel(1).pointee.blend(&b)
        return zip(outs, sizes).map { Array(UnsafeBufferPointer(start: $0, count: $1)) }
    }

    @Test("whole pictures: every level and two parts give the reference's bits, keyed or laid over a base as it is keyed, with a clean plate or without",
          arguments: [67, 320, 130])
    func pictures(width: Int) throws {
        let size = (width, [67: 45, 320: 240, 130: 2][width]!)
        var rng = SplitMix64(seed: 0x7069_6374 + UInt64(size.0))
        let pic = Self.picture(width: size.0, height: size.1, &rng)
        for full in [false, true] {
            let want = try Self.keyed(pic, width: size.0, height: size.1, level: 0, parts: 1, full: full)
            // The alpha is not all one value: the picture has screen, subject and edges.
            #expect(Set(want[3]).count > 10, "\(size) full \(full): alphas \(Set(want[3]).sorted().prefix(12))")
            for level in [0] + Self.levels {
                let got = try Self.keyed(pic, width: size.0, height: size.1, level: level, parts: 2, full: full)
                for p in 0..<4 {
                    let first = zip(got[p], want[p]).enumerated().first { $0.element.0 != $0.element.1 }
                    #expect(first == nil, "\(size) level \(level) full \(full) plane \(p): sample \(first?.offset ?? -1)")
                }
            }
        }
        // With a clean plate (the screen alone, its own noise): the screen is the plate's at each sample, at every level.
        let plate = Self.picture(width: size.0, height: size.1, &rng, subject: false)
        let unplated = try Self.keyed(pic, width: size.0, height: size.1, level: 0, parts: 1, full: false)
        let plated = try Self.keyed(pic, width: size.0, height: size.1, level: 0, parts: 1, full: false, plate: plate)
        #expect(plated[3] != unplated[3], "\(size): the plate changed no alpha")
        for level in Self.levels {
            let got = try Self.keyed(pic, width: size.0, height: size.1, level: level, parts: 2, full: false, plate: plate)
            for p in 0..<4 {
                let first = zip(got[p], plated[p]).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(first == nil, "\(size) level \(level) with a plate, plane \(p): sample \(first?.offset ?? -1)")
            }
        }
        // Laid as it is keyed over a base: the bits of keying, then laying by the matte.
        let base = Self.picture(width: size.0, height: size.1, &rng)
        let want = Self.laid(try Self.keyed(pic, width: size.0, height: size.1, level: 0, parts: 1, full: false), over: base,
                             width: size.0, height: size.1)
        for level in [0] + Self.levels {
            let got = try Self.keyed(pic, width: size.0, height: size.1, level: level, parts: 2, full: false, over: base)
            for p in 0..<3 {
                let first = zip(got[p], want[p]).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(first == nil, "\(size) level \(level) laid plane \(p): sample \(first?.offset ?? -1)")
            }
        }
    }

    @Test("a run of pictures steadied (step 6): laid as they are keyed, at every level in two parts, the bits of keying each, steadying its matte, then laying it",
          arguments: [67, 320])
    func steadiedRun(width: Int) throws {
        let height = width == 67 ? 45 : 240
        var rng = SplitMix64(seed: 0x7374_6479 + UInt64(width))
        let pictures = Self.run(width: width, height: height, count: 5, &rng)
        let base = Self.picture(width: width, height: height, &rng)
        // The reference: each picture keyed at level 0, its whole matte steadied (mw_fine_steady), laid by it.
        let reference = try #require(mw_fine_steady_create(Int32(width), Int32(height)))
        defer { mw_fine_steady_free(reference) }
        var want: [[[UInt8]]] = [], moved = 0
        for (k, pic) in pictures.enumerated() {
            let alone = try Self.keyed(pic, width: width, height: height, level: 0, parts: 1, full: false)
            let keyed = try Self.keyed(pic, width: width, height: height, level: 0, parts: 1, full: false, steady: reference, follows: k > 0)
            moved += zip(alone[3], keyed[3]).filter { $0 != $1 }.count
            want.append(Self.laid(keyed, over: base, width: width, height: height))
        }
        #expect(moved > 0, "the run steadied no alpha")
        for level in [0] + Self.levels {
            let steady = try #require(mw_fine_steady_create(Int32(width), Int32(height)))
            defer { mw_fine_steady_free(steady) }
            for (k, pic) in pictures.enumerated() {
                let got = try Self.keyed(pic, width: width, height: height, level: level, parts: 2, full: false, over: base, steady: steady,
                                         follows: k > 0)
                for p in 0..<3 {
                    let first = zip(got[p], want[k][p]).enumerated().first { $0.element.0 != $0.element.1 }
                    #expect(first == nil, "\(width) level \(level) picture \(k) plane \(p): sample \(first?.offset ?? -1)")
                }
            }
        }
        // Every tile's last matte other than its own, fx unchanged (the state given a random matte for the same
        // picture): plain screen and plain subject tiles steadied as they are laid, at full weight.
        let pic = pictures[1], random = (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &rng) }
        func primed() throws -> OpaquePointer {
            let s = try #require(mw_fine_steady_create(Int32(width), Int32(height)))
            var matte = random
            pic.y.withUnsafeBufferPointer { y in
                pic.u.withUnsafeBufferPointer { u in
                    pic.v.withUnsafeBufferPointer { v in
                        let cw = (width + 1) / 2
                        var input = MWFineInput(plane: (y.baseAddress, u.baseAddress, v.baseAddress), stride: (width, cw, cw))
                        matte.withUnsafeMutableBufferPointer { mw_fine_steady(s, &input, $0.baseAddress, width, 0) }
                    }
                }
            }
            return s
        }
        let reference2 = try primed()
        defer { mw_fine_steady_free(reference2) }
        let keyed = try Self.keyed(pic, width: width, height: height, level: 0, parts: 1, full: false, steady: reference2, follows: true)
        let wanted = Self.laid(keyed, over: base, width: width, height: height)
        for level in [0] + Self.levels {
            let steady = try primed()
            defer { mw_fine_steady_free(steady) }
            let got = try Self.keyed(pic, width: width, height: height, level: level, parts: 2, full: false, over: base, steady: steady, follows: true)
            for p in 0..<3 {
                let first = zip(got[p], wanted[p]).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(first == nil, "\(width) level \(level), a random last matte, plane \(p): sample \(first?.offset ?? -1)")
            }
        }
    }
}
