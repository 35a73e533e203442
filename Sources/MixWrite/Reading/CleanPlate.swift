import FFmpegSupport

/// `--clean-plate`: the empty screen filmed as fx is (a picture, or a clip whose first pictures are averaged: the
/// noise goes, the light stays), brought to fx's size and colour as fx's own pictures are (`VideoTrackReader`).
enum CleanPlate {
    /// How many of a clip's pictures are averaged.
    static let pictures = 48

    /// The plate at `width` × `height` (yuv420p in `color`, fitted by `fit` as fx is): the mean of its first `count`
    /// pictures.
    static func read(_ path: String, width: Int, height: Int, color: ColorDescription, fit: Fit = .stretch,
                     count limit: Int = pictures) throws(MixWriteError) -> Frame {
        let file = try MediaFile(path: path)
        guard let v = file.mainVideo else { throw .input(file: path, "has no picture; as the clean plate it must show the empty screen") }
        let rate = v.frameRate.flatMap { $0.isValid ? $0 : nil } ?? Rational(30, 1)
        let reader = try VideoTrackReader(file: file, width: width, height: height, color: color, outputFrameRate: rate, fit: fit)
        let sizes = [(width, height), ((width + 1) / 2, (height + 1) / 2), ((width + 1) / 2, (height + 1) / 2)]
        var sums = sizes.map { [UInt32](repeating: 0, count: $0.0 * $0.1) }
        var count: UInt32 = 0
        for n in 0..<(file.isStillImage ? 1 : limit) {
            guard let picture = try reader.picture(at: MediaTime(frames: Int64(n), rate: rate), hold: false) else { break }
            for (j, (w, h)) in sizes.enumerated() {
                sums[j].withUnsafeMutableBufferPointer { sum in
                    for y in 0..<h {
                        let row = picture.plane(j) + y * picture.stride(j)
                        for x in 0..<w { sum[y * w + x] &+= UInt32(row[x]) }
                    }
                }
            }
            count += 1
        }
        guard count > 0 else { throw .input(file: path, "has no decodable picture; as the clean plate it would show nothing") }
        let plate: Frame
        do { plate = try Frame(width: width, height: height, pixelFormat: .yuv420p) } catch {
            throw .processing(file: path, "cannot allocate the clean plate's picture: \(error.description)")
        }
        for (j, (w, h)) in sizes.enumerated() {
            for y in 0..<h {
                let row = plate.plane(j) + y * plate.stride(j)
                for x in 0..<w { row[x] = UInt8((sums[j][y * w + x] + count / 2) / count) }
            }
        }
        return plate
    }

    /// The plate's mean colour (R'G'B', 0 … 1) at its own size, over its first 8 pictures: what says whether it is a
    /// screen.
    static func meanColor(_ path: String) throws(MixWriteError) -> (r: Double, g: Double, b: Double) {
        let file = try MediaFile(path: path)
        guard let size = file.displaySize else { throw .input(file: path, "has no picture; as the clean plate it must show the empty screen") }
        let color = ColorDescription(matrix: .bt709, fullRange: false)
        let plate = try read(path, width: size.width, height: size.height, color: color, count: 8)
        var means: [Double] = []
        for j in 0..<3 {
            let (w, h) = j == 0 ? (size.width, size.height) : ((size.width + 1) / 2, (size.height + 1) / 2)
            var sum = 0
            for y in 0..<h {
                let row = plate.plane(j) + y * plate.stride(j)
                for x in 0..<w { sum += Int(row[x]) }
            }
            means.append(Double(sum) / Double(w * h))
        }
        return color.rgb(y: means[0], u: means[1], v: means[2])
    }
}
