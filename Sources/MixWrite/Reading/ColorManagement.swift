import FFmpegSupport

/// Where the output's colour is decided and each input's picture is brought to it (`PictureConverter` does the
/// work: `ToneMapper` for HDR, swscale for size, range and format, then `MatrixConversion` for another matrix). The
/// output is SDR, 8 bits, limited range: BT.709 when it is HD (720 lines or more), when base is BT.709, or when base
/// is HDR; BT.601 otherwise, as SD video is. An input in another matrix is converted to it; an HLG or PQ input is
/// tone-mapped first.
enum ColorManagement {
    /// The output's colour for a picture `height` lines high whose main input (base, a concat's first clip) is `base`.
    static func output(base: StreamInfo, height: Int) -> ColorDescription {
        let hd = height >= 720 || base.color.matrix == .bt709 || base.hdr != nil
        return ColorDescription(matrix: hd ? .bt709 : .bt601, fullRange: false)
    }

    /// The conversions that change how an input looks, in words for the report and a warning each:
    /// `base.mov: HDR (HLG, bt2020) tone-mapped to SDR BT.709`.
    static func conversions(of files: [MediaFile]) -> [String] {
        files.compactMap { f in f.mainVideo.flatMap(ToneMapper.init(stream:)).map { "\(f.path): \($0.description)" } }
    }
}

/// A limited-range YUV picture's matrix changed in the YUV domain, without resampling its chroma: the colour of each
/// (Y, U, V) kept exactly (R, G, B are linear in them, so the new U and V depend on the old U and V alone, and the
/// new Y on Y plus them). swscale's own conversion between matrices goes through RGB at full resolution and back to
/// 4:2:0, which blurs the chroma and moves a key's edges (0.02–0.027 of alpha on the edge band against GPUImage,
/// which keys fx's own pixels; this way the same as one matrix throughout).
struct MatrixConversion {
    /// For each (U, V): luma's change, then U' and V' (limited range, clamped).
    private let table: [(dy: Int16, u: UInt8, v: UInt8)]

    init(from source: ColorMatrix, to destination: ColorMatrix) {
        let (kr, kb) = source.lumaWeights, (kr2, kb2) = destination.lumaWeights
        let kg2 = 1 - kr2 - kb2, kg = 1 - kr - kb
        // (y', u', v') of (y = 0, u, v), u and v in −0.5 … 0.5.
        func convert(_ u: Double, _ v: Double) -> (Double, Double, Double) {
            let r = 2 * (1 - kr) * v, b = 2 * (1 - kb) * u
            let g = (-kr * r - kb * b) / kg
            let y2 = kr2 * r + kg2 * g + kb2 * b
            return (y2, (b - y2) / (2 * (1 - kb2)), (r - y2) / (2 * (1 - kr2)))
        }
        var table: [(dy: Int16, u: UInt8, v: UInt8)] = []
        table.reserveCapacity(65536)
        for u in 0..<256 {
            for v in 0..<256 {
                let (dy, u2, v2) = convert(Double(u - 128) / 224, Double(v - 128) / 224)
                table.append((Int16((dy * 219).rounded()), UInt8(min(max((u2 * 224 + 128).rounded(), 0), 255)),
                              UInt8(min(max((v2 * 224 + 128).rounded(), 0), 255))))
            }
        }
        self.table = table
    }

    /// Converts a yuv420p (or yuva420p) picture in place.
    func apply(_ frame: Frame) {
        let w = frame.width, h = frame.height
        let pu = frame.plane(1), pv = frame.plane(2), su = frame.stride(1), sv = frame.stride(2)
        let py = frame.plane(0), sy = frame.stride(0)
        table.withUnsafeBufferPointer { t in
            for cy in 0..<(h + 1) / 2 {
                let ur = pu + cy * su, vr = pv + cy * sv
                let lumaRows = min(2, h - 2 * cy)
                for cx in 0..<(w + 1) / 2 {
                    let e = t[Int(ur[cx]) << 8 | Int(vr[cx])]
                    for dy in 0..<lumaRows {
                        let row = py + (2 * cy + dy) * sy
                        for x in 2 * cx..<min(2 * cx + 2, w) { row[x] = UInt8(min(max(Int(row[x]) + Int(e.dy), 0), 255)) }
                    }
                    (ur[cx], vr[cx]) = (e.u, e.v)
                }
            }
        }
    }
}
