internal import CFFmpeg

/// The YUV↔RGB matrix of a picture, our name for the `AVColorSpace` values that matter here.
public enum ColorMatrix: String, Sendable, Codable {
    case bt601, bt709, bt2020, fcc, smpte240m

    /// Untagged and unknown streams are read as FFmpeg's own conversions read them: BT.601.
    init(_ c: AVColorSpace) {
        switch c {
        case AVCOL_SPC_BT709: self = .bt709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: self = .bt2020
        case AVCOL_SPC_FCC: self = .fcc
        case AVCOL_SPC_SMPTE240M: self = .smpte240m
        default: self = .bt601
        }
    }

    /// A stream's matrix: its tag, or for an untagged stream what players assume (BT.709 for HD, 1280 wide or
    /// 720 high and up; BT.601 below). swscale alone would read every untagged stream as BT.601.
    init(_ c: AVColorSpace, width: Int, height: Int) {
        let untagged = c == AVCOL_SPC_UNSPECIFIED || c == AVCOL_SPC_RESERVED
        self = untagged && (width >= 1280 || height >= 720) ? .bt709 : ColorMatrix(c)
    }

    var av: AVColorSpace {
        switch self {
        case .bt601: return AVCOL_SPC_SMPTE170M
        case .bt709: return AVCOL_SPC_BT709
        case .bt2020: return AVCOL_SPC_BT2020_NCL
        case .fcc: return AVCOL_SPC_FCC
        case .smpte240m: return AVCOL_SPC_SMPTE240M
        }
    }

    var sws: Int32 {
        switch self {
        case .bt601: return SWS_CS_ITU601
        case .bt709: return SWS_CS_ITU709
        case .bt2020: return SWS_CS_BT2020
        case .fcc: return SWS_CS_FCC
        case .smpte240m: return SWS_CS_SMPTE240M
        }
    }

    /// The luma weights (Kr, Kb) that define the matrix; Kg = 1 - Kr - Kb.
    public var lumaWeights: (kr: Double, kb: Double) {
        switch self {
        case .bt601: return (0.299, 0.114)
        case .bt709: return (0.2126, 0.0722)
        case .bt2020: return (0.2627, 0.0593)
        case .fcc: return (0.30, 0.11)
        case .smpte240m: return (0.212, 0.087)
        }
    }
}

/// The high-dynamic-range transfer a stream is tagged with: HLG (ARIB STD-B67, what phones record) or PQ (SMPTE
/// ST 2084). Everything else is read as SDR.
public enum HDRTransfer: String, Sendable, Codable {
    case hlg = "HLG", pq = "PQ"

    init?(_ t: AVColorTransferCharacteristic) {
        switch t {
        case AVCOL_TRC_ARIB_STD_B67: self = .hlg
        case AVCOL_TRC_SMPTE2084: self = .pq
        default: return nil
        }
    }

    /// zscale's name for it.
    public var zscaleName: String { self == .hlg ? "arib-std-b67" : "smpte2084" }
}

/// How a picture's samples are read: matrix and range.
public struct ColorDescription: Sendable, Hashable, Codable {
    public var matrix: ColorMatrix
    public var fullRange: Bool
    public init(matrix: ColorMatrix, fullRange: Bool) {
        self.matrix = matrix
        self.fullRange = fullRange
    }
}

extension ColorDescription {
    /// RGB in [0, 1] to 8-bit Y, U, V with this matrix and range (unrounded).
    public func yuv(r: Double, g: Double, b: Double) -> (y: Double, u: Double, v: Double) {
        let (kr, kb) = matrix.lumaWeights
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let pb = (b - y) / (2 * (1 - kb)), pr = (r - y) / (2 * (1 - kr))
        if fullRange { return (y * 255, 128 + pb * 255, 128 + pr * 255) }
        return (16 + y * 219, 128 + pb * 224, 128 + pr * 224)
    }

    /// 8-bit Y, U, V to RGB in [0, 1] (clamped, as a texture stores it) with this matrix and range.
    public func rgb(y: Double, u: Double, v: Double) -> (r: Double, g: Double, b: Double) {
        let luma = fullRange ? y / 255 : (y - 16) / 219
        let (dr, dg, db) = rgbOffset(u: u, v: v)
        let clamp = { (x: Double) in min(max(x, 0), 1) }
        return (clamp(luma + dr), clamp(luma + dg), clamp(luma + db))
    }

    /// The chroma part of the YUV → RGB conversion: RGB = luma·(1, 1, 1) + this.
    public func rgbOffset(u: Double, v: Double) -> (r: Double, g: Double, b: Double) {
        let (kr, kb) = matrix.lumaWeights
        let kg = 1 - kr - kb
        // Pb, Pr in [-0.5, 0.5].
        let scale = fullRange ? 255.0 : 224.0
        let pb = (u - 128) / scale
        let pr = (v - 128) / scale
        let r = 2 * (1 - kr) * pr
        let b = 2 * (1 - kb) * pb
        let g = -(2 * kb * (1 - kb) * pb + 2 * kr * (1 - kr) * pr) / kg
        return (r, g, b)
    }
}

/// The clockwise angle of a display matrix, as FFmpeg's own tools read it (`-av_display_rotation_get`,
/// normalized to 0 ..< 360). The corresponding FFmpeg call is `av_display_rotation_get`.
public func displayRotation(_ matrix: [Int32]) -> Double {
    var m = matrix
    let ccw = av_display_rotation_get(&m)
    guard ccw.isFinite else { return 0 }
    var theta = -ccw
    theta -= 360 * (theta / 360 + 0.9 / 360).rounded(.down)
    return theta
}
