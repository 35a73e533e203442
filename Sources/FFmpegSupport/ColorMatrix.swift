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

/// An HDR stream's light metadata: the mastering display's primaries, white and luminance range (SMPTE ST 2086), and
/// the content's light levels (CTA-861.3's MaxCLL and MaxFALL), in CIE xy and cd/m².
public struct LightMetadata: Sendable {
    public var primaries: (red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double))?
    public var luminance: (min: Double, max: Double)?
    public var contentLight: (maxCLL: Int, maxFALL: Int)?

    public init() {}

    /// From FFmpeg's side data (a frame's or a stream's); nil when neither says anything.
    init?(mastering: UnsafePointer<AVMasteringDisplayMetadata>?, contentLight light: UnsafePointer<AVContentLightMetadata>?) {
        if let m = mastering?.pointee {
            func xy(_ p: AVRational, _ q: AVRational) -> (Double, Double) { (av_q2d(p), av_q2d(q)) }
            if m.has_primaries != 0 {
                let p = m.display_primaries
                primaries = (red: xy(p.0.0, p.0.1), green: xy(p.1.0, p.1.1), blue: xy(p.2.0, p.2.1),
                             white: xy(m.white_point.0, m.white_point.1))
            }
            if m.has_luminance != 0 { luminance = (min: av_q2d(m.min_luminance), max: av_q2d(m.max_luminance)) }
        }
        if let c = light?.pointee, c.MaxCLL > 0 || c.MaxFALL > 0 {
            contentLight = (maxCLL: Int(c.MaxCLL), maxFALL: Int(c.MaxFALL))
        }
        if primaries == nil && luminance == nil && contentLight == nil { return nil }
    }

    /// The content light level's MaxCLL, else the mastering display's peak, in units of 100 cd/m²; nil with neither.
    public var signalPeak: Double? {
        if let c = contentLight, c.maxCLL > 0 { return Double(c.maxCLL) / 100 }
        if let l = luminance, l.max > 0, l.max.isFinite { return l.max / 100 }
        return nil
    }

    /// As libx265's parameters: `master-display=G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min)` (x, y in 0.00002 steps, luminance
    /// in 0.0001 cd/m²; both parts needed) and `max-cll=MaxCLL,MaxFALL`, joined by ':'; empty without either.
    public var x265Parameters: String {
        var parts: [String] = []
        if let p = primaries, let l = luminance {
            func xy(_ c: (Double, Double)) -> String { "(\(Int((c.0 * 50000).rounded())),\(Int((c.1 * 50000).rounded())))" }
            parts.append("master-display=G\(xy(p.green))B\(xy(p.blue))R\(xy(p.red))WP\(xy(p.white))"
                         + "L(\(Int((l.max * 10000).rounded())),\(Int((l.min * 10000).rounded())))")
        }
        if let c = contentLight { parts.append("max-cll=\(c.maxCLL),\(c.maxFALL)") }
        return parts.joined(separator: ":")
    }
}
