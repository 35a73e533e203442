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
    func draw(_ picture: Frame, into canvas: Frame, bars: (UInt8, UInt8, UInt8) = (16, 128, 128)) {
        canvas.withYUVPlanes { dst in
            picture.withYUVPlanes { src in
                for plane in 0..<3 { draw(plane, of: src, into: dst, bar: plane == 0 ? bars.0 : plane == 1 ? bars.1 : bars.2) }
            }
        }
    }

    private func draw(_ plane: Int, of src: YUVPlanes, into dst: YUVPlanes, bar: UInt8) {
        let shift = plane == 0 ? 0 : 1
        let cw = (dst.width + shift) >> shift, ch = (dst.height + shift) >> shift
        let px = x >> shift, py = y >> shift
        let pw = (width + shift) >> shift, ph = (height + shift) >> shift
        let x0 = max(0, px), x1 = min(cw, px + pw)
        for row in 0..<ch {
            let d = dst.row(row, of: plane)
            let sr = row - py
            guard sr >= 0, sr < ph, x1 > x0 else {
                d.update(repeating: bar, count: cw)
                continue
            }
            if x0 > 0 { d.update(repeating: bar, count: x0) }
            (d + x0).update(from: src.row(sr, of: plane) + (x0 - px), count: x1 - x0)
            if x1 < cw { (d + x1).update(repeating: bar, count: cw - x1) }
        }
    }
}
