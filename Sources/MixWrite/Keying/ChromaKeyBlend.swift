import FFmpegSupport

/// GPUImage's chroma-key blend (GPUImageChromaKeyBlendFilter), run on YUV 4:2:0 planes.
///
/// GPUImage computes, with RGB in [0, 1]:
///     Y = 0.2989 R + 0.5866 G + 0.1145 B;  Cr = 0.7132 (R - Y);  Cb = 0.5647 (B - Y)
///     a = 1 - smoothstep(threshold, threshold + smoothing, distance((Cr, Cb), (Cr_key, Cb_key)))
///     out = fx * (1 - a) + base * a
/// R - Y and B - Y weigh R, G, B with coefficients that sum to zero, and any YUV matrix gives
/// RGB = luma·(1,1,1) + f(U, V); so Cr and Cb, and with them `a`, depend on (U, V) alone.
/// A 256×256 table of `a` built once a job replaces the per-pixel RGB round trip. The blend itself is
/// linear in RGB, so it is the same blend on Y, U and V of pictures that share one matrix.
public struct ChromaKeyBlend: Sendable {
    public struct Settings: Sendable, Hashable, Codable {
        /// The key colour, RGB in [0, 1]. GPUImage's default: pure green.
        public var keyColor: (r: Double, g: Double, b: Double)
        public var threshold: Double
        public var smoothing: Double

        public init(keyColor: (r: Double, g: Double, b: Double) = (0, 1, 0), threshold: Double = 0.4, smoothing: Double = 0.1) {
            self.keyColor = keyColor
            self.threshold = threshold
            self.smoothing = smoothing
        }

        public static func == (a: Settings, b: Settings) -> Bool {
            a.keyColor == b.keyColor && a.threshold == b.threshold && a.smoothing == b.smoothing
        }
        public func hash(into h: inout Hasher) {
            h.combine(keyColor.r); h.combine(keyColor.g); h.combine(keyColor.b); h.combine(threshold); h.combine(smoothing)
        }

        enum CodingKeys: String, CodingKey { case keyColor, threshold, smoothing }
        public init(from decoder: any Swift.Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let rgb = try c.decode([Double].self, forKey: .keyColor)
            keyColor = (rgb[0], rgb[1], rgb[2])
            threshold = try c.decode(Double.self, forKey: .threshold)
            smoothing = try c.decode(Double.self, forKey: .smoothing)
        }
        public func encode(to encoder: any Swift.Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode([keyColor.r, keyColor.g, keyColor.b], forKey: .keyColor)
            try c.encode(threshold, forKey: .threshold)
            try c.encode(smoothing, forKey: .smoothing)
        }

        /// "RRGGBB" as in the key colour, for reports.
        public var keyColorHex: String {
            func h(_ v: Double) -> String {
                let i = Int((v * 255).rounded())
                let s = String(i, radix: 16, uppercase: true)
                return s.count == 1 ? "0" + s : s
            }
            return h(keyColor.r) + h(keyColor.g) + h(keyColor.b)
        }
    }

    /// Alpha (the weight of base) for each (U, V), scaled to 0 … 256.
    public let table: [UInt16]
    public let settings: Settings
    public let color: ColorDescription

    /// Builds the table for pictures read with `color` (the matrix and range fx has been brought to).
    public init(settings: Settings, color: ColorDescription) {
        self.settings = settings
        self.color = color
        var table = [UInt16](repeating: 0, count: 256 * 256)
        for u in 0..<256 {
            for v in 0..<256 {
                let a = ChromaKeyBlend.alpha(u: Double(u), v: Double(v), settings: settings, color: color)
                table[u << 8 | v] = UInt16((a * 256).rounded())
            }
        }
        self.table = table
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
        let (r, g, b) = chromaToRGBOffset(u: u, v: v, color: color)
        // Any luma gives the same (Cr, Cb): add a mid grey so the numbers read as colours.
        return alpha(r: 0.5 + r, g: 0.5 + g, b: 0.5 + b, settings: settings)
    }

    /// The chroma part of the YUV → RGB conversion: RGB = luma·(1,1,1) + this.
    static func chromaToRGBOffset(u: Double, v: Double, color: ColorDescription) -> (Double, Double, Double) {
        let (kr, kb) = color.matrix.lumaWeights
        let kg = 1 - kr - kb
        // Pb, Pr in [-0.5, 0.5].
        let scale = color.fullRange ? 255.0 : 224.0
        let pb = (u - 128) / scale
        let pr = (v - 128) / scale
        let r = 2 * (1 - kr) * pr
        let b = 2 * (1 - kb) * pb
        let g = -(2 * kb * (1 - kb) * pb + 2 * kr * (1 - kr) * pr) / kg
        return (r, g, b)
    }

    /// Blends `fx` over `base` into `output`, rows `rows` of chroma (each chroma row covers two luma rows).
    /// All three are yuv420p pictures of one size, read with this blend's colour description.
    public func blend(fx: Frame, base: Frame, into output: Frame, chromaRows rows: Range<Int>) {
        let width = output.width
        let chromaWidth = (width + 1) / 2
        let height = output.height
        let fy = fx.plane(0), fu = fx.plane(1), fv = fx.plane(2)
        let by = base.plane(0), bu = base.plane(1), bv = base.plane(2)
        let oy = output.plane(0), ou = output.plane(1), ov = output.plane(2)
        let fsY = fx.stride(0), fsC = fx.stride(1)
        let bsY = base.stride(0), bsC = base.stride(1)
        let osY = output.stride(0), osC = output.stride(1)
        table.withUnsafeBufferPointer { table in
            for cy in rows {
                let fuRow = fu + cy * fsC, fvRow = fv + cy * fx.stride(2)
                let buRow = bu + cy * bsC, bvRow = bv + cy * base.stride(2)
                let ouRow = ou + cy * osC, ovRow = ov + cy * output.stride(2)
                let y0 = cy * 2
                let y1 = min(y0 + 1, height - 1)
                let fy0 = fy + y0 * fsY, fy1 = fy + y1 * fsY
                let by0 = by + y0 * bsY, by1 = by + y1 * bsY
                let oy0 = oy + y0 * osY, oy1 = oy + y1 * osY
                let secondRow = y1 != y0
                for cx in 0..<chromaWidth {
                    let u = Int(fuRow[cx]), v = Int(fvRow[cx])
                    let a = Int(table[u << 8 | v])
                    let ia = 256 - a
                    ouRow[cx] = UInt8(truncatingIfNeeded: (u * ia + Int(buRow[cx]) * a + 128) >> 8)
                    ovRow[cx] = UInt8(truncatingIfNeeded: (v * ia + Int(bvRow[cx]) * a + 128) >> 8)
                    let x0 = cx * 2
                    let x1 = min(x0 + 1, width - 1)
                    oy0[x0] = UInt8(truncatingIfNeeded: (Int(fy0[x0]) * ia + Int(by0[x0]) * a + 128) >> 8)
                    oy0[x1] = UInt8(truncatingIfNeeded: (Int(fy0[x1]) * ia + Int(by0[x1]) * a + 128) >> 8)
                    if secondRow {
                        oy1[x0] = UInt8(truncatingIfNeeded: (Int(fy1[x0]) * ia + Int(by1[x0]) * a + 128) >> 8)
                        oy1[x1] = UInt8(truncatingIfNeeded: (Int(fy1[x1]) * ia + Int(by1[x1]) * a + 128) >> 8)
                    }
                }
            }
        }
    }

    /// Blends whole pictures.
    public func blend(fx: Frame, base: Frame, into output: Frame) {
        blend(fx: fx, base: base, into: output, chromaRows: 0..<((output.height + 1) / 2))
    }
}

@inline(__always)
func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
    guard e1 > e0 else { return x < e0 ? 0 : 1 }
    let t = min(max((x - e0) / (e1 - e0), 0), 1)
    return t * t * (3 - 2 * t)
}
