import FFmpegSupport

/// How a stored picture is turned to be shown upright, decided from its display matrix exactly as the
/// ffmpeg CLI's autorotate decides (so mixwrite's output matches what ffmpeg and players show).
enum Orientation: Sendable, Equatable {
    case upright, clockwise, counterClockwise, transpose, antiTranspose, upsideDown, mirrored, flipped

    init(matrix: [Int32]?) {
        guard let m = matrix, m.count == 9 else { self = .upright; return }
        let theta = displayRotation(m)
        if abs(theta - 90) < 1 {
            self = m[3] > 0 ? .transpose : .clockwise
        } else if abs(theta - 180) < 1 {
            switch (m[0] < 0, m[4] < 0) {
            case (true, true): self = .upsideDown
            case (true, false): self = .mirrored
            case (false, true): self = .flipped
            case (false, false): self = .upright
            }
        } else if abs(theta - 270) < 1 {
            self = m[3] < 0 ? .antiTranspose : .counterClockwise
        } else if abs(theta) < 1 || abs(theta - 360) < 1 {
            self = m[4] < 0 ? .flipped : .upright
        } else {
            // Angles other than quarter turns are rare (a tilted phone); mixwrite shows those as stored.
            self = .upright
        }
    }

    /// From an EXIF Orientation value (1 … 8).
    init?(exif: Int) {
        let table: [Int: Orientation] = [1: .upright, 2: .mirrored, 3: .upsideDown, 4: .flipped,
                                         5: .transpose, 6: .clockwise, 7: .antiTranspose, 8: .counterClockwise]
        guard let o = table[exif] else { return nil }
        self = o
    }

    /// Whether width and height swap.
    var swapsSides: Bool { [.clockwise, .counterClockwise, .transpose, .antiTranspose].contains(self) }

    /// The stored pixel shown at (row r, column c) of the turned picture, for a stored picture h × w.
    @inline(__always)
    func source(row r: Int, column c: Int, width w: Int, height h: Int) -> (Int, Int) {
        switch self {
        case .upright: return (r, c)
        case .clockwise: return (h - 1 - c, r)
        case .counterClockwise: return (c, w - 1 - r)
        case .transpose: return (c, r)
        case .antiTranspose: return (h - 1 - c, w - 1 - r)
        case .upsideDown: return (h - 1 - r, w - 1 - c)
        case .mirrored: return (r, w - 1 - c)
        case .flipped: return (h - 1 - r, c)
        }
    }

    /// Turns a yuv420p (yuva420p, or 10-bit yuv420p10) picture into `output` (already allocated with the turned
    /// size and format).
    func apply(_ input: Frame, into output: Frame) {
        let planes = input.pixelFormat == .yuva420p && output.pixelFormat == .yuva420p ? 4 : 3
        let wide = input.pixelFormat == .yuv420p10
        for plane in 0..<planes {
            let shift = plane == 1 || plane == 2 ? 1 : 0
            let (w, h) = ((input.width + shift) >> shift, (input.height + shift) >> shift)
            let (ow, oh) = ((output.width + shift) >> shift, (output.height + shift) >> shift)
            if wide {
                turn(UnsafeMutableRawPointer(input.plane(plane)).assumingMemoryBound(to: UInt16.self), stride: input.stride(plane) / 2,
                     width: w, height: h, into: UnsafeMutableRawPointer(output.plane(plane)).assumingMemoryBound(to: UInt16.self),
                     stride: output.stride(plane) / 2, width: ow, height: oh)
            } else {
                turn(input.plane(plane), stride: input.stride(plane), width: w, height: h,
                     into: output.plane(plane), stride: output.stride(plane), width: ow, height: oh)
            }
        }
    }

    /// One plane, sample by sample (`stride`s in samples).
    private func turn<Sample>(_ pixels: UnsafeMutablePointer<Sample>, stride: Int, width w: Int, height h: Int,
                              into out: UnsafeMutablePointer<Sample>, stride outStride: Int, width ow: Int, height oh: Int) {
        for r in 0..<oh {
            let row = out + r * outStride
            for c in 0..<ow {
                let (sr, sc) = source(row: r, column: c, width: w, height: h)
                row[c] = pixels[sr * stride + sc]
            }
        }
    }
}

/// How a picture of another shape goes into the output's frame.
public enum Fit: String, Sendable, Codable, CaseIterable {
    /// The whole picture, aspect kept, black bars where it does not fill (letterbox / pillarbox).
    case fit
    /// The frame filled, aspect kept, the overflow cut off the middle.
    case fill
    /// The frame filled, aspect changed.
    case stretch
}
