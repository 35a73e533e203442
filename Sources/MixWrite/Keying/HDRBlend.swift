import FFmpegSupport

/// The blend of `--hdr keep`: fx in HDR over base in HDR, 10 bits a sample, by the key's alpha. The alpha comes from
/// the keyer itself (8 bits, GPUImage's formula): fx keyed over a low and a high flat picture, `out = fx·(1 − a) +
/// flat·a`, so the two outputs differ by `a` times the flats' difference, luma pixel by luma pixel and chroma sample
/// by chroma sample. fx's colour is `SDRToHDR`'s, not the keyer's (`--despill` does not reach it).
enum HDRBlend {
    /// The flats' values: luma 16 and 235, chroma 16 and 240 (limited range's ends).
    static let low: (y: UInt8, c: UInt8) = (16, 16), high: (y: UInt8, c: UInt8) = (235, 240)

    /// `out = fx + (base − fx)·a` on yuv420p10 pictures, `a` read from `overLow` and `overHigh` (yuv420p).
    static func blend(fx: Frame, base: Frame, overLow: Frame, overHigh: Frame, into output: Frame) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let w = (output.width + shift) >> shift, h = (output.height + shift) >> shift
            let span = plane == 0 ? Int(high.y - low.y) : Int(high.c - low.c)
            for y in 0..<h {
                let f = row16(fx, plane, y), b = row16(base, plane, y), o = row16(output, plane, y)
                let lo = overLow.plane(plane) + y * overLow.stride(plane), hi = overHigh.plane(plane) + y * overHigh.stride(plane)
                for x in 0..<w {
                    let a = min(max(Int(hi[x]) - Int(lo[x]), 0), span)
                    let fv = Int(f[x])
                    let d = (Int(b[x]) - fv) * a
                    o[x] = UInt16(fv + (d >= 0 ? (d + span / 2) / span : -((-d + span / 2) / span)))
                }
            }
        }
    }

    /// A flat yuv420p picture: every luma `y`, every chroma `c`.
    static func flat(_ v: (y: UInt8, c: UInt8), width: Int, height: Int) throws(FFmpegError) -> Frame {
        let f = try Frame(width: width, height: height, pixelFormat: .yuv420p)
        for y in 0..<height { (f.plane(0) + y * f.stride(0)).update(repeating: v.y, count: width) }
        for p in 1...2 {
            for y in 0..<(height + 1) / 2 { (f.plane(p) + y * f.stride(p)).update(repeating: v.c, count: (width + 1) / 2) }
        }
        return f
    }

    @inline(__always)
    private static func row16(_ f: Frame, _ plane: Int, _ y: Int) -> UnsafeMutablePointer<UInt16> {
        (UnsafeMutableRawPointer(f.plane(plane)) + y * f.stride(plane)).assumingMemoryBound(to: UInt16.self)
    }
}
