import FFmpegSupport

/// `still`'s picture: the first frame of an image file, turned upright (EXIF orientation or display
/// matrix), its alpha flattened on a background, fitted into the output frame. Made once, shown throughout.
final class StillPicture: PictureSource {
    let damagedPackets = 0
    private let picture: Frame

    init(file: MediaFile, width: Int, height: Int, color: ColorDescription, fit: Fit,
         background: (r: Double, g: Double, b: Double)) throws {
        guard let stream = file.mainVideo ?? file.streams.first(where: { $0.kind == .video }) else {
            throw MixWriteError.input(file: file.path, "has no picture")
        }
        let decoded = try StillPicture.firstFrame(file: file, stream: stream)
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
        let bg = [background.r, background.g, background.b].map { Int(($0 * 255).rounded()) }
        for y in 0..<sh {
            let row = rgba.plane(0) + y * rgba.stride(0)
            for x in 0..<sw {
                let p = row + 4 * x
                let a = Int(p[3])
                if a == 255 { continue }
                for c in 0..<3 { p[c] = UInt8((Int(p[c]) * a + bg[c] * (255 - a) + 127) / 255) }
                p[3] = 255
            }
        }
        var yuv = try Frame(width: sw, height: sh, pixelFormat: .yuv420p)
        try Scaler(from: .init(width: sw, height: sh, format: .rgba, color: rgbColor),
                   to: .init(width: sw, height: sh, format: .yuv420p, color: color)).scale(rgba, into: yuv)
        if orientation != .upright {
            let turned = try Frame(width: place.width, height: place.height, pixelFormat: .yuv420p)
            orientation.apply(yuv, into: turned)
            yuv = turned
        }
        if place.isWholeFrame(Scaler.Key(width: width, height: height, format: .yuv420p, color: color)) {
            picture = yuv
        } else {
            let canvas = try Frame(width: width, height: height, pixelFormat: .yuv420p)
            // Bars in the background colour, not black.
            let (by, bu, bv) = ChromaKeyBlend.rgbToYUV(r: background.r, g: background.g, b: background.b, color: color)
            place.draw(yuv, into: canvas, bars: (UInt8(by.rounded()), UInt8(bu.rounded()), UInt8(bv.rounded())))
            picture = canvas
        }
    }

    func picture(at t: MediaTime, hold: Bool) throws -> Frame? { picture }

    /// The frame's own orientation (display matrix, else EXIF), else the stream's.
    static func orientation(of frame: Frame, stream: StreamInfo) -> Orientation {
        frame.displayMatrix.map { Orientation(matrix: $0) }
            ?? frame.exifOrientation.flatMap { Orientation(exif: $0) }
            ?? Orientation(matrix: stream.displayMatrix)
    }

    /// The picture's size shown upright, read from its first frame.
    static func uprightSize(file: MediaFile, stream: StreamInfo) throws(MixWriteError) -> (width: Int, height: Int) {
        let frame: Frame
        do { frame = try firstFrame(file: file, stream: stream) } catch let e as MixWriteError { throw e } catch {
            throw .input(file: file.path, "cannot be decoded as a picture")
        }
        return orientation(of: frame, stream: stream).swapsSides ? (frame.height, frame.width) : (frame.width, frame.height)
    }

    /// Decodes the first picture of an image (or movie) file.
    static func firstFrame(file: MediaFile, stream: StreamInfo) throws -> Frame {
        do {
            let demuxer = try Demuxer(url: file.path)
            demuxer.keepOnly([stream.index])
            let decoder = try Decoder(demuxer: demuxer, streamIndex: stream.index, threads: 1)
            let packet = Packet(), frame = Frame()
            var ended = false
            while true {
                switch try decoder.receive(into: frame) {
                case .value: return frame
                case .endOfStream: throw MixWriteError.input(file: file.path, "has no decodable picture")
                case .needsInput:
                    if ended { _ = try decoder.send(nil); continue }
                    if try demuxer.read(into: packet) == false { ended = true; _ = try decoder.send(nil); continue }
                    if packet.streamIndex == stream.index { _ = try decoder.send(packet) }
                }
            }
        } catch let e as MixWriteError {
            throw e
        } catch let e as FFmpegError {
            throw MixWriteError.input(file: file.path, "cannot be decoded as a picture (\(e.message.lowercased()))")
        }
    }
}
