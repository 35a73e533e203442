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
        /// Pull the key colour's cast out of kept fx pixels near the key (GPUImage has none).
        public var despill: Bool

        public init(keyColor: (r: Double, g: Double, b: Double) = (0, 1, 0), threshold: Double = 0.4, smoothing: Double = 0.1,
                    despill: Bool = false) {
            self.keyColor = keyColor
            self.threshold = threshold
            self.smoothing = smoothing
            self.despill = despill
        }

        public static func == (a: Settings, b: Settings) -> Bool {
            a.keyColor == b.keyColor && a.threshold == b.threshold && a.smoothing == b.smoothing && a.despill == b.despill
        }
        public func hash(into h: inout Hasher) {
            h.combine(keyColor.r); h.combine(keyColor.g); h.combine(keyColor.b); h.combine(threshold); h.combine(smoothing)
            h.combine(despill)
        }

        enum CodingKeys: String, CodingKey { case keyColor, threshold, smoothing, despill }
        public init(from decoder: any Swift.Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let hex = try c.decode(String.self, forKey: .keyColor)
            guard let rgb = OptionValue.color(hex) else {
                throw DecodingError.dataCorruptedError(forKey: .keyColor, in: c, debugDescription: "not RRGGBB")
            }
            keyColor = rgb
            threshold = try c.decode(Double.self, forKey: .threshold)
            smoothing = try c.decode(Double.self, forKey: .smoothing)
            despill = try c.decodeIfPresent(Bool.self, forKey: .despill) ?? false
        }
        public func encode(to encoder: any Swift.Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(keyColorHex, forKey: .keyColor)
            try c.encode(threshold, forKey: .threshold)
            try c.encode(smoothing, forKey: .smoothing)
            try c.encode(despill, forKey: .despill)
        }

        /// "RRGGBB" as in the key colour, for reports.
        public var keyColorHex: String { OptionValue.hex(keyColor) }
    }

    /// Alpha (the weight of base) for each (U, V), scaled to 0 … 256.
    public let table: [UInt16]
    /// With despill: fx's (U, V) with the key's cast removed, packed U << 8 | V; empty without.
    public let despillTable: [UInt16]
    public let settings: Settings
    public let color: ColorDescription

    /// How far past the soft edge (in GPUImage's Cr/Cb distance) despill still acts, fading to nothing.
    static let despillReach = 0.25

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
        despillTable = settings.despill ? ChromaKeyBlend.makeDespillTable(settings: settings, color: color) : []
    }

    /// Blends `fx` over `base` into `output`, chroma rows `rows` (each covers two luma rows).
    /// All three are yuv420p planes of one size, read with this blend's colour description.
    ///
    /// Per chroma row: one table look-up a chroma sample gives a row of weights; then plain loops over
    /// bytes blend U, V and the two luma rows (the compiler vectorizes them). Rows entirely kept or entirely
    /// keyed out are copied.
    public func blend(fx: YUVPlanes, base: YUVPlanes, into output: YUVPlanes, chromaRows rows: Range<Int>) {
        let width = output.width, chromaWidth = output.chromaWidth
        let weights = UnsafeMutablePointer<UInt16>.allocate(capacity: chromaWidth * 3)
        defer { weights.deallocate() }
        let lumaWeights = weights + chromaWidth
        let despilled = despillTable.isEmpty ? nil : UnsafeMutablePointer<UInt8>.allocate(capacity: chromaWidth * 2)
        defer { despilled?.deallocate() }
        table.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            for cy in rows {
                var fuRow = fx.row(cy, of: 1), fvRow = fx.row(cy, of: 2)
                let buRow = base.row(cy, of: 1), bvRow = base.row(cy, of: 2)
                let ouRow = output.row(cy, of: 1), ovRow = output.row(cy, of: 2)
                var any: UInt16 = 0, all: UInt16 = 0xFFFF
                for cx in 0..<chromaWidth {
                    let a = table[Int(fuRow[cx]) &<< 8 | Int(fvRow[cx])]
                    weights[cx] = a
                    any |= a
                    all &= a
                }
                if let despilled {
                    // The key weight comes from fx's own chroma; what is kept of fx is its despilled chroma.
                    despillTable.withUnsafeBufferPointer { d in
                        for cx in 0..<chromaWidth {
                            let uv = d[Int(fuRow[cx]) &<< 8 | Int(fvRow[cx])]
                            despilled[cx] = UInt8(truncatingIfNeeded: uv &>> 8)
                            despilled[chromaWidth + cx] = UInt8(truncatingIfNeeded: uv)
                        }
                    }
                    fuRow = despilled
                    fvRow = despilled + chromaWidth
                }
                let lumaRows = cy * 2 ..< min(cy * 2 + 2, output.height)
                if any == 0 {
                    // fx kept across the whole row.
                    ouRow.update(from: fuRow, count: chromaWidth)
                    ovRow.update(from: fvRow, count: chromaWidth)
                    for y in lumaRows { output.row(y, of: 0).update(from: fx.row(y, of: 0), count: width) }
                } else if all == 256 {
                    // Keyed out across the whole row: base shows.
                    ouRow.update(from: buRow, count: chromaWidth)
                    ovRow.update(from: bvRow, count: chromaWidth)
                    for y in lumaRows { output.row(y, of: 0).update(from: base.row(y, of: 0), count: width) }
                } else {
                    mixRow(fuRow, buRow, weights, ouRow, chromaWidth)
                    mixRow(fvRow, bvRow, weights, ovRow, chromaWidth)
                    for cx in 0..<chromaWidth {
                        lumaWeights[2 * cx] = weights[cx]
                        lumaWeights[2 * cx + 1] = weights[cx]
                    }
                    for y in lumaRows { mixRow(fx.row(y, of: 0), base.row(y, of: 0), lumaWeights, output.row(y, of: 0), width) }
                }
            }
        }
    }

    /// Blends whole yuv420p pictures of one size.
    public func blend(fx: Frame, base: Frame, into output: Frame) {
        output.withYUVPlanes { out in
            fx.withYUVPlanes { f in
                base.withYUVPlanes { b in blend(fx: f, base: b, into: out, chromaRows: 0..<out.chromaHeight) }
            }
        }
    }
}

/// out = (f·(256 − a) + b·a + 128) / 256 over `count` bytes: a loop the compiler turns into vector code.
@inline(__always)
private func mixRow(_ f: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, _ a: UnsafeMutablePointer<UInt16>,
                    _ out: UnsafeMutablePointer<UInt8>, _ count: Int) {
    for i in 0..<count {
        let w = UInt32(a[i])
        out[i] = UInt8(truncatingIfNeeded: (UInt32(f[i]) &* (256 &- w) &+ UInt32(b[i]) &* w &+ 128) &>> 8)
    }
}

