import FFmpegSupport

/// `still`'s picture: the first frame of an image file, turned upright (EXIF orientation or display
/// matrix), its alpha flattened on a background, fitted into the output frame. Made once, shown throughout.
final class StillPicture: PictureSource {
    let damagedPackets = 0
    private let picture: Frame

    init(file: MediaFile, width: Int, height: Int, color: ColorDescription, fit: Fit,
         background: (r: Double, g: Double, b: Double)) throws(MixWriteError) {
        guard let stream = file.mainVideo ?? file.streams.first(where: { $0.kind == .video }) else {
            throw MixWriteError.input(file: file.path, "has no picture")
        }
        let decoded = try StillPicture.firstFrame(file: file, stream: stream)
        do {
            picture = try StillPicture.render(decoded, stream: stream, width: width, height: height, color: color, fit: fit,
                                              background: background)
        } catch {
            throw .processing(file: file.path, "the picture cannot be converted: \(error.description)")
        }
    }

    /// The picture turned upright, laid on `background`, fitted into a `width` × `height` yuv420p frame.
    private static func render(_ decoded: Frame, stream: StreamInfo, width: Int, height: Int, color: ColorDescription,
                               fit: Fit, background: (r: Double, g: Double, b: Double)) throws(FFmpegError) -> Frame {
        let orientation = StillPicture.orientation(of: decoded, stream: stream)

        // Where the upright picture goes in the output frame.
        var dw = Double(decoded.width), dh = Double(decoded.height)
        if orientation.swapsSides { swap(&dw, &dh) }
        let place = Placement(fitting: dw, dh, into: width, height, fit: fit)
        let (sw, sh) = orientation.swapsSides ? (place.height, place.width) : (place.width, place.height)

        // Scale to RGBA, lay it on the background, then to the output's YUV.
        let sourceKey = Scaler.Key(width: decoded.width, height: decoded.height, format: decoded.pixelFormat,
                                   color: decoded.color(fallback: stream.color))
        let rgbColor = ColorDescription(matrix: color.matrix, fullRange: true)
        let rgba = try Frame(width: sw, height: sh, pixelFormat: .rgba)
        try Scaler(from: sourceKey, to: .init(width: sw, height: sh, format: .rgba, color: rgbColor)).scale(decoded, into: rgba)
        flatten(rgba, on: background)
        var yuv = try Frame(width: sw, height: sh, pixelFormat: .yuv420p)
        try Scaler(from: .init(width: sw, height: sh, format: .rgba, color: rgbColor),
                   to: .init(width: sw, height: sh, format: .yuv420p, color: color)).scale(rgba, into: yuv)
        if orientation != .upright {
            let turned = try Frame(width: place.width, height: place.height, pixelFormat: .yuv420p)
            orientation.apply(yuv, into: turned)
            yuv = turned
        }
        if place.isWholeFrame(of: Scaler.Key(width: width, height: height, format: .yuv420p, color: color)) { return yuv }
        let canvas = try Frame(width: width, height: height, pixelFormat: .yuv420p)
        // Bars in the background colour, not black.
        let (by, bu, bv) = color.yuv(r: background.r, g: background.g, b: background.b)
        place.draw(yuv, into: canvas, bars: (UInt8(by.rounded()), UInt8(bu.rounded()), UInt8(bv.rounded())))
        return canvas
    }

    /// Lays an RGBA picture's transparent pixels on `background`.
    private static func flatten(_ rgba: Frame, on background: (r: Double, g: Double, b: Double)) {
        let bg = [background.r, background.g, background.b].map { Int(($0 * 255).rounded()) }
        for y in 0..<rgba.height {
            let row = rgba.plane(0) + y * rgba.stride(0)
            for x in 0..<rgba.width {
                let p = row + 4 * x
                let a = Int(p[3])
                if a == 255 { continue }
                for c in 0..<3 { p[c] = UInt8((Int(p[c]) * a + bg[c] * (255 - a) + 127) / 255) }
                p[3] = 255
            }
        }
    }

    func picture(at t: MediaTime, hold: Bool) throws(MixWriteError) -> Frame? { picture }

    /// The frame's own orientation (display matrix, else EXIF), else the stream's.
    static func orientation(of frame: Frame, stream: StreamInfo) -> Orientation {
        frame.displayMatrix.map { Orientation(matrix: $0) }
            ?? frame.exifOrientation.flatMap { Orientation(exif: $0) }
            ?? Orientation(matrix: stream.displayMatrix)
    }

    /// The picture's size shown upright, read from its first frame.
    static func uprightSize(file: MediaFile, stream: StreamInfo) throws(MixWriteError) -> (width: Int, height: Int) {
        let frame = try firstFrame(file: file, stream: stream)
        return orientation(of: frame, stream: stream).swapsSides ? (frame.height, frame.width) : (frame.width, frame.height)
    }

    /// Decodes the first picture of an image (or movie) file.
    static func firstFrame(file: MediaFile, stream: StreamInfo) throws(MixWriteError) -> Frame {
        let frame: Frame?
        do {
            let demuxer = try Demuxer(url: file.path)
            demuxer.keepOnly([stream.index])
            frame = try Decoder(demuxer: demuxer, streamIndex: stream.index, threads: 1).frames(from: demuxer).next()
        } catch {
            throw .input(file: file.path, "cannot be decoded as a picture (\(error.message.lowercased()))")
        }
        guard let frame else { throw .input(file: file.path, "has no decodable picture") }
        return frame
    }
}
