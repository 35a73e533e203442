internal import CKeyKernel
import FFmpegSupport

/// fx composited over base by fx's own alpha (straight, not premultiplied), on yuv420p pictures, as FFmpeg's
/// `overlay` filter does it: out = (fx·a + base·(255 − a)) / 255 with overlay's rounding, a chroma sample's alpha
/// the mean of its 2×2 luma alphas. For an fx that carries its transparency (ProRes 4444, VP9 with alpha, PNG,
/// QuickTime Animation): what is transparent shows base, whatever its colour. The whole-frame blend is C's
/// (`AlphaBlendKernel.h`, at the key kernel's level).
enum AlphaBlend {
    /// overlay's division by 255 (`FAST_DIV255`): exact for every product of two 8-bit values.
    @inline(__always)
    static func div255(_ x: Int) -> UInt8 { UInt8(truncatingIfNeeded: ((x + 128) * 257) >> 16) }

    /// `fx` (yuva420p) over `base` (yuv420p, the same size) into `output`. `despill` (the keyer's table, U << 8 | V
    /// to the despilled U << 8 | V): fx's chroma pulled away from the key colour first (the key's despill), as the keyer
    /// does to kept pixels near the key: a green-lit edge of a pre-matted layer turns neutral.
    static func blend(fx: Frame, base: Frame, into output: Frame, despill: [UInt16]? = nil, level: Int32 = KeyKernel.level) {
        func run(_ table: UnsafePointer<UInt16>?) {
            var b = MWAlphaBlend(fx: (UnsafePointer(fx.plane(0)), UnsafePointer(fx.plane(1)), UnsafePointer(fx.plane(2)), UnsafePointer(fx.plane(3))),
                                 base: (UnsafePointer(base.plane(0)), UnsafePointer(base.plane(1)), UnsafePointer(base.plane(2))),
                                 out: (output.plane(0), output.plane(1), output.plane(2)),
                                 fxStride: (fx.stride(0), fx.stride(1), fx.stride(2), fx.stride(3)),
                                 baseStride: (base.stride(0), base.stride(1), base.stride(2)),
                                 outStride: (output.stride(0), output.stride(1), output.stride(2)),
                                 width: Int32(output.width), height: Int32(output.height), despill: table)
            guard let kernel = mw_alpha_kernel(level) else { preconditionFailure("alpha blend level \(level) is above this CPU's") }
            kernel.pointee.blend(&b)
        }
        if let despill { despill.withUnsafeBufferPointer { run($0.baseAddress) } } else { run(nil) }
    }

    /// fx's alpha as grey into `output` (yuv420p): white where fx is opaque, black where base shows (alpha 0).
    static func matte(fx: Frame, into output: Frame) {
        let w = output.width, h = output.height
        for y in 0..<h {
            let a = fx.plane(3) + y * fx.stride(3), o = output.plane(0) + y * output.stride(0)
            for x in 0..<w {
                o[x] = UInt8(16 + (219 * Int(a[x]) + 127) / 255)
            }
        }
        for p in 1...2 {
            for cy in 0..<(h + 1) / 2 { (output.plane(p) + cy * output.stride(p)).update(repeating: 128, count: (w + 1) / 2) }
        }
    }
}

extension AlphaBlend {
    /// A rectangle of the output, in pixels.
    typealias Rectangle = (x: Int, y: Int, width: Int, height: Int)

    /// `layer` (yuva420p) laid over `output` (yuv420p) in place with its top-left corner at (`x`, `y`) (even, so its
    /// chroma stays on the output's; either may be negative), clipped to the frame, its alpha scaled by `opacity`
    /// (0…255): overlay's formula and rounding, a chroma sample's alpha the mean of its 2×2 luma alphas. Only what
    /// falls inside `clip` (output pixels, even) is laid: a layer filling its rectangle is cropped to it.
    static func place(_ layer: Frame, x: Int, y: Int, opacity: Int, clip: Rectangle, over output: Frame) {
        let (w, h) = (layer.width, layer.height)
        let (x0, x1, y0, y1) = visible(layer, x: x, y: y, clip: clip, in: output)
        guard x0 < x1, y0 < y1, opacity > 0 else { return }
        let alpha = layer.plane(3), aStride = layer.stride(3)
        @inline(__always) func scaled(_ a: Int) -> Int { opacity == 255 ? a : (a * opacity + 127) / 255 }
        let op = UInt32(opacity)
        for ly in y0..<y1 {
            let f = layer.plane(0) + ly * layer.stride(0), a = alpha + ly * aStride
            let o = output.plane(0) + (ly + y) * output.stride(0) + x
            // Sixteen pixels at a time: skipped where wholly transparent (most of a keyed layer), else overlay's
            // formula in wrapping arithmetic the compiler can vectorize (its division by 255 exact as `div255`'s; the
            // opacity's scaling rounded as `scaled`).
            var lx = x0
            while lx < x1 {
                let n = min(16, x1 - lx)
                let chunk = UnsafeRawPointer(a + lx)
                if n == 16 && chunk.loadUnaligned(as: UInt64.self) | chunk.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == 0 {
                    lx += 16
                    continue
                }
                for k in lx..<(lx + n) {
                    let av = op == 255 ? UInt32(a[k]) : (UInt32(a[k]) &* op &+ 127) / 255
                    let v = UInt32(f[k]) &* av &+ UInt32(o[k]) &* (255 &- av)
                    o[k] = UInt8(truncatingIfNeeded: ((v &+ 128) &* 257) &>> 16)
                }
                lx += n
            }
        }
        for cy in y0 / 2..<(y1 + 1) / 2 {
            let a0 = alpha + 2 * cy * aStride, a1 = alpha + min(2 * cy + 1, h - 1) * aStride
            let fu = layer.plane(1) + cy * layer.stride(1), fv = layer.plane(2) + cy * layer.stride(2)
            let ou = output.plane(1) + (cy + y / 2) * output.stride(1) + x / 2
            let ov = output.plane(2) + (cy + y / 2) * output.stride(2) + x / 2
            for cx in x0 / 2..<(x1 + 1) / 2 {
                let lx0 = 2 * cx, lx1 = min(2 * cx + 1, w - 1)
                let av = scaled((Int(a0[lx0]) + Int(a0[lx1]) + Int(a1[lx0]) + Int(a1[lx1])) >> 2)
                if av == 0 { continue }
                if av == 255 { (ou[cx], ov[cx]) = (fu[cx], fv[cx]); continue }
                ou[cx] = div255(Int(fu[cx]) * av + Int(ou[cx]) * (255 - av))
                ov[cx] = div255(Int(fv[cx]) * av + Int(ov[cx]) * (255 - av))
            }
        }
    }

    /// `layer` (yuva420p) drawn into `canvas` (yuva420p, the output's size) at (`x`, `y`) as it is, its alpha scaled by
    /// `opacity`, and alpha 0 everywhere else: a placed layer as a whole-frame one (`--hdr keep` lifts and lays that).
    static func draw(_ layer: Frame, x: Int, y: Int, opacity: Int, clip: Rectangle, into canvas: Frame) {
        for row in 0..<canvas.height { (canvas.plane(3) + row * canvas.stride(3)).update(repeating: 0, count: canvas.width) }
        let (x0, x1, y0, y1) = visible(layer, x: x, y: y, clip: clip, in: canvas)
        guard x0 < x1, y0 < y1 else { return }
        for ly in y0..<y1 {
            for p in [0, 3] {
                let src = layer.plane(p) + ly * layer.stride(p), dst = canvas.plane(p) + (ly + y) * canvas.stride(p) + x
                for lx in x0..<x1 { dst[lx] = p == 0 || opacity == 255 ? src[lx] : UInt8((Int(src[lx]) * opacity + 127) / 255) }
            }
        }
        for cy in y0 / 2..<(y1 + 1) / 2 {
            for p in 1...2 {
                let src = layer.plane(p) + cy * layer.stride(p), dst = canvas.plane(p) + (cy + y / 2) * canvas.stride(p) + x / 2
                for cx in x0 / 2..<(x1 + 1) / 2 { dst[cx] = src[cx] }
            }
        }
    }

    /// The part of `layer` placed at (`x`, `y`) that falls inside both `clip` and `output`, in the layer's pixels.
    private static func visible(_ layer: Frame, x: Int, y: Int, clip: Rectangle, in output: Frame) -> (Int, Int, Int, Int) {
        (max(0, -x, clip.x - x), min(layer.width, output.width - x, clip.x + clip.width - x),
         max(0, -y, clip.y - y), min(layer.height, output.height - y, clip.y + clip.height - y))
    }
}
