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
    /// An alpha plane (yuva420p) gets 0 in the bars: nothing of fx there. A 10-bit picture (yuv420p10) gets the
    /// bars' values at 10 bits.
    func draw(_ picture: Frame, into canvas: Frame, bars: (UInt8, UInt8, UInt8) = (16, 128, 128)) {
        let planes = picture.pixelFormat == .yuva420p && canvas.pixelFormat == .yuva420p ? 4 : 3
        for plane in 0..<planes {
            let bar = [bars.0, bars.1, bars.2, 0][plane]
            if picture.pixelFormat == .yuv420p10 {
                draw(plane, of: picture, into: canvas, bar: UInt16(bar) << 2, as: UInt16.self)
            } else {
                draw(plane, of: picture, into: canvas, bar: bar, as: UInt8.self)
            }
        }
    }

    private func draw<Sample>(_ plane: Int, of src: Frame, into dst: Frame, bar: Sample, as: Sample.Type) {
        let shift = plane == 1 || plane == 2 ? 1 : 0
        let size = MemoryLayout<Sample>.size
        let cw = (dst.width + shift) >> shift, ch = (dst.height + shift) >> shift
        let px = x >> shift, py = y >> shift
        let pw = (width + shift) >> shift, ph = (height + shift) >> shift
        let x0 = max(0, px), x1 = min(cw, px + pw)
        let dBase = UnsafeMutableRawPointer(dst.plane(plane)), sBase = UnsafeMutableRawPointer(src.plane(plane))
        for row in 0..<ch {
            let d = (dBase + row * dst.stride(plane)).assumingMemoryBound(to: Sample.self)
            let sr = row - py
            guard sr >= 0, sr < ph, x1 > x0 else {
                d.update(repeating: bar, count: cw)
                continue
            }
            if x0 > 0 { d.update(repeating: bar, count: x0) }
            let s = (sBase + sr * src.stride(plane) + (x0 - px) * size).assumingMemoryBound(to: Sample.self)
            (d + x0).update(from: s, count: x1 - x0)
            if x1 < cw { (d + x1).update(repeating: bar, count: cw - x1) }
        }
    }
}
