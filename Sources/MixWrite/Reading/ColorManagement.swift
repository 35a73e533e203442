import FFmpegSupport

/// Where the output's colour is decided and each input's picture is brought to it (`PictureConverter` does the
/// work: `ToneMapper` for HDR, then swscale for matrix, range and size). The output is SDR, 8 bits, limited range:
/// BT.709 when it is HD (720 lines or more), when base is BT.709, or when base is HDR; BT.601 otherwise, as SD
/// video is. An input in another matrix is converted to it; an HLG or PQ input is tone-mapped first.
enum ColorManagement {
    /// The output's colour for a picture `height` lines high whose main input (base, a concat's first clip) is `base`.
    static func output(base: StreamInfo, height: Int) -> ColorDescription {
        let hd = height >= 720 || base.color.matrix == .bt709 || base.hdr != nil
        return ColorDescription(matrix: hd ? .bt709 : .bt601, fullRange: false)
    }

    /// The conversions that change how an input looks, in words for the report and a warning each:
    /// `base.mov: HDR (HLG, bt2020) tone-mapped to SDR BT.709`.
    static func conversions(of files: [MediaFile]) -> [String] {
        files.compactMap { f in f.mainVideo.flatMap(ToneMapper.init(stream:)).map { "\(f.path): \($0.description)" } }
    }
}
