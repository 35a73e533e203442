import FFmpegSupport

/// Chroma at each luma pixel, as a GPU samples a half-size chroma texture with GL_LINEAR: bilinear, texel
/// centres at (i + 0.5) / n, clamp to edge. Luma pixel x sits at chroma x / 2 − 0.25, so its two horizontal
/// taps are its own sample (weight 3/4) and the neighbour on its side (1/4), and the same vertically:
/// 9/16, 3/16, 3/16, 1/16 of four samples. Kept in 1/16 units (0 … 4080), so nothing is rounded here.
/// (Pictures here have even sizes, so a luma pixel's chroma position is exactly that.)
struct LinearChroma {
    /// The chroma plane's rows: this block's row and the neighbouring row above and below (clamped).
    let above: UnsafeMutablePointer<UInt8>
    let row: UnsafeMutablePointer<UInt8>
    let below: UnsafeMutablePointer<UInt8>
    let width: Int

    init(_ planes: YUVPlanes, plane: Int, chromaRow cy: Int) {
        row = planes.row(cy, of: plane)
        above = planes.row(max(cy - 1, 0), of: plane)
        below = planes.row(min(cy + 1, planes.chromaHeight - 1), of: plane)
        width = planes.chromaWidth
    }

    /// 16 × the chroma at luma pixel (2·cx + dx, 2·cy + dy), dx and dy 0 or 1.
    @inline(__always)
    func sixteenths(_ cx: Int, dx: Int, dy: Int) -> Int {
        let nx = dx == 0 ? max(cx - 1, 0) : min(cx + 1, width - 1)
        let other = dy == 0 ? above : below
        return 9 * Int(row[cx]) + 3 * Int(row[nx]) + 3 * Int(other[cx]) + Int(other[nx])
    }
}

extension ChromaKeyBlend {
    /// fx keyed over base as GPUImage draws it on screen, into packed RGB24: every pixel its own chroma
    /// (GL_LINEAR), its own alpha, RGB clamped and rounded as in an RGBA8 texture, blended in float. The movie
    /// holds the same alpha per pixel in its luma, and its chroma averaged over 2×2 blocks as 4:2:0 must;
    /// a `--frame` picture shows the edges as GPUImage's preview would.
    public func blendPicture(fx: YUVPlanes, base: YUVPlanes, into rgb: UnsafeMutablePointer<UInt8>, stride: Int) {
        table.withUnsafeBufferPointer { table in
            for cy in 0..<fx.chromaHeight {
                let fu = LinearChroma(fx, plane: 1, chromaRow: cy), fv = LinearChroma(fx, plane: 2, chromaRow: cy)
                let bu = LinearChroma(base, plane: 1, chromaRow: cy), bv = LinearChroma(base, plane: 2, chromaRow: cy)
                for dy in 0..<2 where 2 * cy + dy < fx.height {
                    let fy = fx.row(2 * cy + dy, of: 0), by = base.row(2 * cy + dy, of: 0)
                    let out = rgb + (2 * cy + dy) * stride
                    for x in 0..<fx.width {
                        let cx = x / 2, dx = x % 2
                        var u = fu.sixteenths(cx, dx: dx, dy: dy), v = fv.sixteenths(cx, dx: dx, dy: dy)
                        let a = Float(pixelAlpha(y: fy[x], u16: u, v16: v, table: table.baseAddress!)) / 256
                        if !despillTable.isEmpty {
                            let uv = Int(despillTable[((u &+ 8) &>> 4) &<< 8 | ((v &+ 8) &>> 4)])
                            (u, v) = ((uv &>> 8) &* 16, (uv & 0xFF) &* 16)
                        }
                        let f = clamped.texel(y: Float(fy[x]), u: Float(u) / 16, v: Float(v) / 16)
                        let b = clamped.texel(y: Float(by[x]), u: Float(bu.sixteenths(cx, dx: dx, dy: dy)) / 16,
                                            v: Float(bv.sixteenths(cx, dx: dx, dy: dy)) / 16)
                        out[3 * x] = UInt8(((f.r * (1 - a) + b.r * a) * 255).rounded())
                        out[3 * x + 1] = UInt8(((f.g * (1 - a) + b.g * a) * 255).rounded())
                        out[3 * x + 2] = UInt8(((f.b * (1 - a) + b.b * a) * 255).rounded())
                    }
                }
            }
        }
    }
}
