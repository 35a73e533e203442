import FFmpegSupport

/// A picture's rectangle in the output frame; it may stick out of it (fill), or leave bars (fit).
struct Placement {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    /// Where a picture shown `dw` × `dh` goes in a `width` × `height` frame; even, so chroma stays aligned.
    init(fitting dw: Double, _ dh: Double, into width: Int, _ height: Int, fit: Fit) {
        switch fit {
        case .stretch:
            self.init(x: 0, y: 0, width: width, height: height)
        case .fit, .fill:
            let W = Double(width), H = Double(height)
            let scale = fit == .fit ? min(W / dw, H / dh) : max(W / dw, H / dh)
            let cw = max(2, Int((dw * scale).rounded()) & ~1), ch = max(2, Int((dh * scale).rounded()) & ~1)
            self.init(x: ((width - cw) / 2) & ~1, y: ((height - ch) / 2) & ~1, width: cw, height: ch)
        }
    }

    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    func isWholeFrame(of target: Scaler.Key) -> Bool {
        x == 0 && y == 0 && width == target.width && height == target.height
    }

    /// `bars` (Y, U, V; black by default) where the picture does not reach, the picture (cropped to the
    /// frame) elsewhere.
    /// An alpha plane (yuva420p) gets 0 in the bars: nothing of fx there.
    func draw(_ picture: Frame, into canvas: Frame, bars: (UInt8, UInt8, UInt8) = (16, 128, 128)) {
        let planes = picture.pixelFormat == .yuva420p && canvas.pixelFormat == .yuva420p ? 4 : 3
        for plane in 0..<planes {
            draw(plane, of: picture, into: canvas, bar: [bars.0, bars.1, bars.2, 0][plane])
        }
    }

    private func draw(_ plane: Int, of src: Frame, into dst: Frame, bar: UInt8) {
        let shift = plane == 1 || plane == 2 ? 1 : 0
        let cw = (dst.width + shift) >> shift, ch = (dst.height + shift) >> shift
        let px = x >> shift, py = y >> shift
        let pw = (width + shift) >> shift, ph = (height + shift) >> shift
        let x0 = max(0, px), x1 = min(cw, px + pw)
        for row in 0..<ch {
            let d = dst.plane(plane) + row * dst.stride(plane)
            let sr = row - py
            guard sr >= 0, sr < ph, x1 > x0 else {
                d.update(repeating: bar, count: cw)
                continue
            }
            if x0 > 0 { d.update(repeating: bar, count: x0) }
            (d + x0).update(from: src.plane(plane) + sr * src.stride(plane) + (x0 - px), count: x1 - x0)
            if x1 < cw { (d + x1).update(repeating: bar, count: cw - x1) }
        }
    }
}
