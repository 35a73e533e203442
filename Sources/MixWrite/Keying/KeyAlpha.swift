import FFmpegSupport

/// The key's alpha read from the keyer itself: fx keyed over a low and a high flat picture (`out = fx·(1 − a) +
/// flat·a`), so the two outputs differ by `a` times the flats' difference, luma pixel by luma pixel and chroma sample
/// by chroma sample (luma 219 apart, chroma 224). The tuning page's matte and `--hdr keep`'s blend read it so.
final class KeyAlpha {
    /// The flats' values: limited range's ends.
    static let low: (y: UInt8, c: UInt8) = (16, 16), high: (y: UInt8, c: UInt8) = (235, 240)
    /// fx keyed over each flat (yuv420p), after `read`.
    let overLow: Frame
    let overHigh: Frame
    private let low: Frame
    private let high: Frame

    init(width: Int, height: Int) throws(FFmpegError) {
        (low, high) = (try .flat(Self.low, width: width, height: height), try .flat(Self.high, width: width, height: height))
        overLow = try Frame(width: width, height: height, pixelFormat: .yuv420p)
        overHigh = try Frame(width: width, height: height, pixelFormat: .yuv420p)
    }

    /// The flat pictures themselves.
    var flats: (low: Frame, high: Frame) { (low, high) }

    /// Keys `fx` over both flats.
    func read(_ keyer: ChromaKeyBlend, fx: Frame) {
        keyer.blend(fx: fx, base: low, into: overLow)
        keyer.blend(fx: fx, base: high, into: overHigh)
    }

    /// The flats' difference in `plane`: what an alpha of 1 reads as.
    static func span(ofPlane plane: Int) -> Int { plane == 0 ? Int(high.y - low.y) : Int(high.c - low.c) }
}

extension Frame {
    /// A flat yuv420p picture: every luma `v.y`, every chroma sample `v.c`.
    static func flat(_ v: (y: UInt8, c: UInt8), width: Int, height: Int) throws(FFmpegError) -> Frame {
        let f = try Frame(width: width, height: height, pixelFormat: .yuv420p)
        for y in 0..<height { (f.plane(0) + y * f.stride(0)).update(repeating: v.y, count: width) }
        for p in 1...2 {
            for y in 0..<(height + 1) / 2 { (f.plane(p) + y * f.stride(p)).update(repeating: v.c, count: (width + 1) / 2) }
        }
        return f
    }
}

extension KeyAlpha {
    /// fx's opacity as the last `read` found it, into `layer`'s alpha plane (yuva420p, the same size): 255 where fx
    /// is kept, 0 where the key takes it out, rounded.
    func opacity(into layer: Frame) {
        // 255 − ⌊(255·d + 109) / 219⌋ for d in 0…219 (the flats' span), the division as a multiply and a shift (exact
        // there: checked for every d), in wrapping arithmetic the compiler can vectorize.
        precondition(KeyAlpha.span(ofPlane: 0) == 219)
        for y in 0..<layer.height {
            let lo = overLow.plane(0) + y * overLow.stride(0), hi = overHigh.plane(0) + y * overHigh.stride(0)
            let out = layer.plane(3) + y * layer.stride(3)
            for x in 0..<layer.width {
                let d = UInt32(min(max(Int32(hi[x]) &- Int32(lo[x]), 0), 219))
                out[x] = UInt8(truncatingIfNeeded: 255 &- (((255 &* d &+ 109) &* 19152) &>> 22))
            }
        }
    }
}
