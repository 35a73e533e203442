import FFmpegSupport

/// The blend of `--hdr keep`: fx in HDR over base in HDR, 10 bits a sample, by the key's alpha as the keyer gives it
/// (`KeyAlpha`, 8 bits, GPUImage's formula) or by fx's own (straight, as `AlphaBlend` and overlay take it). fx's
/// colour is `SDRToHDR`'s of fx despilled as the keyer despills (`Frame.despilled`).
enum HDRBlend {
    /// `out = fx + (base − fx)·a` on yuv420p10 pictures, `a` read from `alpha`.
    static func blend(fx: Frame, base: Frame, alpha: KeyAlpha, into output: Frame) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let w = (output.width + shift) >> shift, h = (output.height + shift) >> shift
            let span = KeyAlpha.span(ofPlane: plane)
            for y in 0..<h {
                let f = row16(fx, plane, y), b = row16(base, plane, y), o = row16(output, plane, y)
                let lo = alpha.overLow.plane(plane) + y * alpha.overLow.stride(plane)
                let hi = alpha.overHigh.plane(plane) + y * alpha.overHigh.stride(plane)
                for x in 0..<w {
                    let a = min(max(Int(hi[x]) - Int(lo[x]), 0), span)
                    let fv = Int(f[x])
                    let d = (Int(b[x]) - fv) * a
                    o[x] = UInt16(fv + (d >= 0 ? (d + span / 2) / span : -((-d + span / 2) / span)))
                }
            }
        }
    }

    /// `out = (fx·a + base·(255 − a)) / 255` on yuv420p10 pictures, `a` fx's own alpha (`alphaOf`, yuva420p, the
    /// output's size), a chroma sample's the mean of its 2×2 (as `AlphaBlend`), rounded to the nearest.
    static func blend(fx: Frame, base: Frame, alphaOf source: Frame, into output: Frame) {
        let w = output.width, h = output.height
        let alpha = source.plane(3), aStride = source.stride(3)
        @inline(__always) func mix(_ f: UInt16, _ b: UInt16, _ a: Int) -> UInt16 {
            UInt16((Int(f) * a + Int(b) * (255 - a) + 127) / 255)
        }
        for y in 0..<h {
            let f = row16(fx, 0, y), b = row16(base, 0, y), o = row16(output, 0, y), a = alpha + y * aStride
            for x in 0..<w { o[x] = mix(f[x], b[x], Int(a[x])) }
        }
        for cy in 0..<(h + 1) / 2 {
            let a0 = alpha + 2 * cy * aStride, a1 = alpha + min(2 * cy + 1, h - 1) * aStride
            for plane in 1...2 {
                let f = row16(fx, plane, cy), b = row16(base, plane, cy), o = row16(output, plane, cy)
                for cx in 0..<(w + 1) / 2 {
                    let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                    o[cx] = mix(f[cx], b[cx], (Int(a0[x0]) + Int(a0[x1]) + Int(a1[x0]) + Int(a1[x1])) >> 2)
                }
            }
        }
    }

    @inline(__always)
    private static func row16(_ f: Frame, _ plane: Int, _ y: Int) -> UnsafeMutablePointer<UInt16> {
        (UnsafeMutableRawPointer(f.plane(plane)) + y * f.stride(plane)).assumingMemoryBound(to: UInt16.self)
    }
}

extension Frame {
    /// `fx`'s picture (yuv420p or yuva420p, the same size) copied into this yuv420p or yuva420p picture (its own alpha
    /// kept unless both have one), its chroma despilled by
    /// `despill` (the keyer's table: U << 8 | V to the despilled U << 8 | V) when given. Returns self.
    func despilled(_ fx: Frame, _ despill: [UInt16]?) throws(FFmpegError) -> Frame {
        try copyPicture(from: fx)
        guard let despill else { return self }
        for cy in 0..<(height + 1) / 2 {
            let u = plane(1) + cy * stride(1), v = plane(2) + cy * stride(2)
            for cx in 0..<(width + 1) / 2 {
                let d = despill[Int(u[cx]) << 8 | Int(v[cx])]
                (u[cx], v[cx]) = (UInt8(d >> 8), UInt8(d & 0xFF))
            }
        }
        return self
    }
}
