import FFmpegSupport

/// `--key-color auto`: the screen colour of a green- or blue-screen clip, read from its border.
enum KeyColorPicker {
    /// How many of fx's first frames are read.
    static let frames = 12
    /// The border band, as a fraction of each side.
    static let band = 0.06
    /// How far (0 … 1) the screen's channel must stand above both others to count as a green or blue screen:
    /// enough to refuse grey, skin and sky, little enough for an unevenly lit screen.
    static let screenMargin = 0.15

    /// The median colour of the border band of fx's first frames, as RGB in [0, 1]. Refuses a border that
    /// is not clearly green or blue: keying it out would remove the picture, not a screen.
    static func pick(fx: MediaFile) throws(MixWriteError) -> KeyColor {
        guard let v = fx.mainVideo else { throw .input(file: fx.path, "has no video stream") }
        let w = max(2, v.width & ~1), h = max(2, v.height & ~1)
        let rate = v.frameRate ?? Rational(30, 1)
        var ys: [UInt8] = [], us: [UInt8] = [], vs: [UInt8] = []
        let reader = try VideoTrackReader(file: fx, width: w, height: h, color: v.color, outputFrameRate: rate)
        for n in 0..<frames {
            guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: rate), hold: false) else { break }
            sampleBorder(picture, width: w, height: h, ys: &ys, us: &us, vs: &vs)
        }
        guard !us.isEmpty else { throw .input(file: fx.path, "has no decodable picture to pick a key colour from") }
        let y = Double(median(ys)), u = Double(median(us)), vv = Double(median(vs))
        let rgb = v.color.rgb(y: y, u: u, v: vv)
        let isGreen = rgb.g > rgb.r + screenMargin && rgb.g > rgb.b + screenMargin
        let isBlue = rgb.b > rgb.r + screenMargin && rgb.b > rgb.g + screenMargin
        guard isGreen || isBlue else {
            let hex = KeyColor(rgb).hex
            throw .input(file: fx.path, "no green or blue screen at the border of its first frames (found \(hex)); give --key-color RRGGBB")
        }
        return KeyColor(rgb)
    }

    private static func sampleBorder(_ f: Frame, width w: Int, height h: Int, ys: inout [UInt8], us: inout [UInt8], vs: inout [UInt8]) {
        let bw = max(1, Int(Double(w / 2) * band)), bh = max(1, Int(Double(h / 2) * band))
        let cw = w / 2, ch = h / 2
        let py = f.plane(0), pu = f.plane(1), pv = f.plane(2)
        let sy = f.stride(0), su = f.stride(1), sv = f.stride(2)
        for cy in Swift.stride(from: 0, to: ch, by: 2) {
            let inRowBand = cy < bh || cy >= ch - bh
            for cx in Swift.stride(from: 0, to: cw, by: 2) where inRowBand || cx < bw || cx >= cw - bw {
                us.append(pu[cy * su + cx])
                vs.append(pv[cy * sv + cx])
                ys.append(py[2 * cy * sy + 2 * cx])
            }
        }
    }

    private static func median(_ values: [UInt8]) -> UInt8 {
        var counts = [Int](repeating: 0, count: 256)
        for v in values { counts[Int(v)] += 1 }
        var seen = 0
        for (v, c) in counts.enumerated() {
            seen += c
            if seen * 2 >= values.count { return UInt8(v) }
        }
        return 0
    }
}
