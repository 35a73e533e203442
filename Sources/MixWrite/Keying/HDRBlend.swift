import FFmpegSupport

/// The blend of `--hdr keep`: fx in HDR over base in HDR, 10 bits a sample, by the key's alpha as the keyer gives it
/// (`KeyAlpha`, 8 bits, GPUImage's formula). fx's colour is `SDRToHDR`'s, not the keyer's (`--despill` does not
/// reach it).
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

    @inline(__always)
    private static func row16(_ f: Frame, _ plane: Int, _ y: Int) -> UnsafeMutablePointer<UInt16> {
        (UnsafeMutableRawPointer(f.plane(plane)) + y * f.stride(plane)).assumingMemoryBound(to: UInt16.self)
    }
}
