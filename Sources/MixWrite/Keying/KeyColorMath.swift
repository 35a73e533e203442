import FFmpegSupport

/// The colour maths of the key: GPUImage's chroma (Cr, Cb), its smoothstep weight, and despill, in
/// doubles; `ChromaKeyBlend` turns them into tables once a job.
extension ChromaKeyBlend {
    /// Despill on the chroma plane: the part of a pixel's chroma that points toward the key's chroma is
    /// removed, fully within the soft edge and fading out `despillReach` beyond it; luma is kept, so a
    /// green-lit edge turns neutral without getting darker. A table like the key's: no per-pixel maths.
    static func makeDespillTable(settings: Settings, color: ColorDescription) -> [UInt16] {
        let (kr, kg, kb) = (settings.keyColor.r, settings.keyColor.g, settings.keyColor.b)
        let (_, uk, vk) = color.yuv(r: kr, g: kg, b: kb)
        let kx = uk - 128, ky = vk - 128
        let norm = (kx * kx + ky * ky).squareRoot()
        var out = [UInt16](repeating: 0, count: 256 * 256)
        let (gk, bk) = gpuImageChroma(r: kr, g: kg, b: kb)
        for u in 0..<256 {
            for v in 0..<256 {
                var nu = Double(u), nv = Double(v)
                if norm > 1 {
                    let d = chromaDistance(gpuImageChroma(u: nu, v: nv, color: color), (gk, bk))
                    let edge = settings.threshold + settings.smoothing
                    let strength = 1 - smoothstep(edge, edge + despillReach, d)
                    let projection = ((nu - 128) * kx + (nv - 128) * ky) / norm
                    if projection > 0 && strength > 0 {
                        nu -= strength * projection * kx / norm
                        nv -= strength * projection * ky / norm
                    }
                }
                let qu = UInt16(min(max(nu.rounded(), 0), 255)), qv = UInt16(min(max(nv.rounded(), 0), 255))
                out[u << 8 | v] = qu << 8 | qv
            }
        }
        return out
    }

    /// GPUImage's (Cr, Cb) of an RGB colour.
    @inline(__always)
    public static func gpuImageChroma(r: Double, g: Double, b: Double) -> (cr: Double, cb: Double) {
        let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
        return (0.7132 * (r - y), 0.5647 * (b - y))
    }

    /// GPUImage's weight of base for an RGB colour of fx.
    public static func alpha(r: Double, g: Double, b: Double, settings: Settings) -> Double {
        let (cr, cb) = gpuImageChroma(r: r, g: g, b: b)
        let (kr, kb) = gpuImageChroma(r: settings.keyColor.r, g: settings.keyColor.g, b: settings.keyColor.b)
        let d = ((cr - kr) * (cr - kr) + (cb - kb) * (cb - kb)).squareRoot()
        return 1 - smoothstep(settings.threshold, settings.threshold + settings.smoothing, d)
    }

    /// The weight of base for 8-bit chroma samples (U, V) read with `color`.
    public static func alpha(u: Double, v: Double, settings: Settings, color: ColorDescription) -> Double {
        1 - smoothstep(settings.threshold, settings.threshold + settings.smoothing,
                       distance(u: u, v: v, settings: settings, color: color))
    }

    /// GPUImage's distance from the key of chroma samples (U, V) read with `color`.
    static func distance(u: Double, v: Double, settings: Settings, color: ColorDescription) -> Double {
        let k = settings.keyColor
        return chromaDistance(gpuImageChroma(u: u, v: v, color: color), gpuImageChroma(r: k.r, g: k.g, b: k.b))
    }

    /// GPUImage's (Cr, Cb) of 8-bit chroma samples (U, V) read with `color`.
    static func gpuImageChroma(u: Double, v: Double, color: ColorDescription) -> (cr: Double, cb: Double) {
        let (r, g, b) = color.rgbOffset(u: u, v: v)
        // Any luma gives the same (Cr, Cb): add a mid grey so the numbers read as colours.
        return gpuImageChroma(r: 0.5 + r, g: 0.5 + g, b: 0.5 + b)
    }

    /// GPUImage's distance between two (Cr, Cb).
    @inline(__always)
    static func chromaDistance(_ a: (cr: Double, cb: Double), _ b: (cr: Double, cb: Double)) -> Double {
        ((a.cr - b.cr) * (a.cr - b.cr) + (a.cb - b.cb) * (a.cb - b.cb)).squareRoot()
    }
}

@inline(__always)
func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
    guard e1 > e0 else { return x < e0 ? 0 : 1 }
    let t = min(max((x - e0) / (e1 - e0), 0), 1)
    return t * t * (3 - 2 * t)
}

extension ChromaKeyBlend {
    /// A key colour written `RRGGBB`, `#RRGGBB` or `0xRRGGBB`, as RGB in [0, 1].
    public static func color(hex text: String) -> (r: Double, g: Double, b: Double)? {
        var hex = Substring(text)
        if hex.hasPrefix("#") { hex = hex.dropFirst() } else if hex.lowercased().hasPrefix("0x") { hex = hex.dropFirst(2) }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else { return nil }
        return (Double(v >> 16 & 0xFF) / 255, Double(v >> 8 & 0xFF) / 255, Double(v & 0xFF) / 255)
    }

    /// RGB in [0, 1] as `RRGGBB`.
    public static func hex(_ c: (r: Double, g: Double, b: Double)) -> String {
        [c.r, c.g, c.b].map { v in
            let s = String(Int((min(max(v, 0), 1) * 255).rounded()), radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
