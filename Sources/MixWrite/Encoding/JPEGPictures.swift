import FFmpegSupport

/// Output pictures (yuv420p in the output's colour) as JPEG: BT.601 straight to JPEG's full range (JPEG is BT.601),
/// others through RGB, for their matrix. One for each preview, its buffers kept.
final class JPEGPictures {
    private let rgb: Frame
    private let toRGB: Scaler
    private let direct: Scaler?
    private let jpeg: Frame
    private let toJPEG: Scaler

    init(width: Int, height: Int, color: ColorDescription) throws(MixWriteError) {
        do {
            rgb = try Frame(width: width, height: height, pixelFormat: .rgb24)
            jpeg = try Frame(width: width, height: height, pixelFormat: .yuvj420p)
            toRGB = try Scaler(from: .init(width: width, height: height, format: .yuv420p, color: color),
                               to: .init(width: width, height: height, format: .rgb24, color: color), filter: .cli)
            let jpegColor = ColorDescription(matrix: .bt601, fullRange: true)
            direct = color.matrix == .bt601
                ? try Scaler(from: .init(width: width, height: height, format: .yuv420p, color: color),
                             to: .init(width: width, height: height, format: .yuvj420p, color: jpegColor), filter: .cli)
                : nil
            toJPEG = try Scaler(from: .init(width: width, height: height, format: .rgb24, color: jpegColor),
                                to: .init(width: width, height: height, format: .yuvj420p, color: jpegColor), filter: .cli)
        } catch {
            throw .processing(file: nil, "the preview's pictures: \(error.description)")
        }
    }

    /// `picture` as JPEG bytes (quality 2 … 31, lower is better).
    func jpeg(_ picture: Frame, quality: Int) throws(MixWriteError) -> [UInt8] {
        do {
            if let direct {
                try direct.scale(picture, into: jpeg)
            } else {
                try toRGB.scale(picture, into: rgb)
                try toJPEG.scale(rgb, into: jpeg)
            }
            return try Encoder.jpeg(jpeg, quality: quality)
        } catch {
            throw .processing(file: nil, "the preview picture: \(error.description)")
        }
    }
}
