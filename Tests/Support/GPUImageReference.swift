import Foundation

/// GPUImage's whole path for a chroma-key blend of two 4:2:0 movies, in Double, written from GPUImage's
/// sources (`GPUImageMovie`'s YUV conversion shader, `GPUImageChromaKeyBlendFilter`, the movie writer)
/// and independent of mixwrite's code:
///  1. each movie's Y and CbCr planes are textures; the shader samples CbCr with GL_LINEAR (bilinear,
///     texel centres at (i + 0.5)/n, clamp to edge) at every pixel and converts with the movie's matrix;
///  2. the RGB is stored in an RGBA8 texture: clamped to 0 … 1, 8 bits;
///  3. the chroma-key blend shader runs per pixel in float (`ReferenceKey`), into an RGBA8 framebuffer.
/// That is the picture GPUImage shows; its movie writer then subsamples it to 4:2:0. mixwrite's `--frame` PNG
/// shows its 4:2:0 output as step 1 shows a movie, so where fx is wholly kept or keyed out the two agree to
/// the rounding, and at the key's edges they differ by what 4:2:0 cannot hold.
public enum GPUImageReference {
    /// One decoded yuv420p picture.
    public struct Picture: Sendable {
        public var width: Int
        public var height: Int
        public var y: [UInt8]
        public var u: [UInt8]
        public var v: [UInt8]
        public var chromaWidth: Int { (width + 1) / 2 }
        public var chromaHeight: Int { (height + 1) / 2 }
        public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8]) {
            (self.width, self.height, self.y, self.u, self.v) = (width, height, y, u, v)
        }
    }

    /// A picture's luma weights (Kr, Kb); limited range throughout, as the movies here are.
    public enum Matrix: Sendable {
        case bt601, bt709
        var weights: (kr: Double, kb: Double) { self == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722) }
    }

    /// Frame `index` of `path`'s first video stream as yuv420p, decoded by the ffmpeg CLI.
    public static func decode(_ path: String, frame index: Int) throws -> Picture {
        let probe = try Oracle.probe(path)
        guard let w = probe.video.first?.width, let h = probe.video.first?.height else { throw OracleError("\(path): no video") }
        let r = try Oracle.ffmpeg(["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                   "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let bytes = [UInt8](r.stdout)
        guard r.status == 0, bytes.count == w * h + 2 * cw * ch else { throw OracleError("decode \(path) frame \(index): \(r.stderr)") }
        return Picture(width: w, height: h, y: Array(bytes[0..<w * h]), u: Array(bytes[w * h..<w * h + cw * ch]),
                       v: Array(bytes[w * h + cw * ch..<bytes.count]))
    }

    /// Step 1: a chroma plane sampled with GL_LINEAR at luma pixel (x, y), in 8-bit units.
    public static func linear(_ plane: [UInt8], _ p: Picture, x: Int, y: Int) -> Double {
        let cw = p.chromaWidth, ch = p.chromaHeight
        // The texture coordinate of the pixel's centre, in chroma texels, minus the texel-centre offset.
        let sx = (Double(x) + 0.5) / Double(p.width) * Double(cw) - 0.5
        let sy = (Double(y) + 0.5) / Double(p.height) * Double(ch) - 0.5
        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
        let fx = sx - Double(x0), fy = sy - Double(y0)
        func texel(_ i: Int, _ j: Int) -> Double { Double(plane[min(max(j, 0), ch - 1) * cw + min(max(i, 0), cw - 1)]) }
        return (texel(x0, y0) * (1 - fx) + texel(x0 + 1, y0) * fx) * (1 - fy)
            + (texel(x0, y0 + 1) * (1 - fx) + texel(x0 + 1, y0 + 1) * fx) * fy
    }

    /// Steps 1 and 2: the RGB texture of a picture, clamped and stored in 8 bits, 0 … 1.
    public static func rgbTexture(_ p: Picture, _ m: Matrix) -> [(Double, Double, Double)] {
        var out: [(Double, Double, Double)] = []
        out.reserveCapacity(p.width * p.height)
        for y in 0..<p.height {
            for x in 0..<p.width {
                let c = rgb(y: Double(p.y[y * p.width + x]), u: linear(p.u, p, x: x, y: y), v: linear(p.v, p, x: x, y: y), m)
                out.append((rgba8(c.0), rgba8(c.1), rgba8(c.2)))
            }
        }
        return out
    }

    /// Limited-range Y, U, V (8-bit units) to RGB, unclamped.
    public static func rgb(y: Double, u: Double, v: Double, _ m: Matrix) -> (Double, Double, Double) {
        let (kr, kb) = m.weights, kg = 1 - kr - kb
        let l = (y - 16) / 219, pb = (u - 128) / 224, pr = (v - 128) / 224
        let r = l + 2 * (1 - kr) * pr, b = l + 2 * (1 - kb) * pb
        return (r, (l - kr * r - kb * b) / kg, b)
    }

    static func rgba8(_ x: Double) -> Double { (min(max(x, 0), 1) * 255).rounded() / 255 }

    /// Steps 1–3: GPUImage's alpha (weight of base) at every pixel, and the blended RGB (0 … 1, RGBA8).
    public static func blend(fx: Picture, base: Picture, _ m: Matrix, key: (Double, Double, Double) = (0, 1, 0),
                             threshold: Double = 0.4, smoothing: Double = 0.1)
        -> (alpha: [Double], rgb: [(Double, Double, Double)]) {
        let f = rgbTexture(fx, m), b = rgbTexture(base, m)
        var alpha: [Double] = [], out: [(Double, Double, Double)] = []
        for i in f.indices {
            let a = ReferenceKey.alpha(f[i].0, f[i].1, f[i].2, key: key, threshold: threshold, smoothing: smoothing)
            alpha.append(a)
            out.append((rgba8(f[i].0 * (1 - a) + b[i].0 * a), rgba8(f[i].1 * (1 - a) + b[i].1 * a),
                        rgba8(f[i].2 * (1 - a) + b[i].2 * a)))
        }
        return (alpha, out)
    }

    /// The alpha a blend gave each pixel, read back from two renderings of one fx (packed RGB24) over two flat
    /// grey bases (decoded): the difference of the renderings' luma (`m`'s weights) over the bases' difference.
    public static func alpha(over first: ([UInt8], Picture), and second: ([UInt8], Picture), _ m: Matrix) -> [Double] {
        let (kr, kb) = m.weights, kg = 1 - kr - kb
        let scale = (Double(first.1.y[0]) - Double(second.1.y[0])) / 219 * 255
        let (a, b) = (first.0, second.0)
        return stride(from: 0, to: a.count, by: 3).map { i in
            let la = kr * Double(a[i]) + kg * Double(a[i + 1]) + kb * Double(a[i + 2])
            let lb = kr * Double(b[i]) + kg * Double(b[i + 1]) + kb * Double(b[i + 2])
            return (la - lb) / scale
        }
    }

    /// The pixels within `radius` of an edge of the key: where `alpha` is not the same over the
    /// (2·radius + 1)² square around the pixel.
    public static func edgeBand(_ alpha: [Double], width: Int, height: Int, radius: Int = 2) -> [Int] {
        var band: [Int] = []
        for y in 0..<height {
            for x in 0..<width {
                var lo = 1.0, hi = 0.0
                for j in max(y - radius, 0)...min(y + radius, height - 1) {
                    for i in max(x - radius, 0)...min(x + radius, width - 1) {
                        lo = min(lo, alpha[j * width + i])
                        hi = max(hi, alpha[j * width + i])
                    }
                }
                if hi - lo > 1e-9 { band.append(y * width + x) }
            }
        }
        return band
    }
}
