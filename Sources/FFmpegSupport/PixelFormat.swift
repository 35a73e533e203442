internal import CFFmpeg

/// A pixel format, our name for `AVPixelFormat`.
public struct PixelFormat: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ f: AVPixelFormat) { rawValue = f.rawValue }

    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    /// yuv420p and a full-size alpha plane (plane 3): an fx picture that carries its own transparency.
    public static let yuva420p = PixelFormat(AV_PIX_FMT_YUVA420P)
    /// Each pixel's own chroma, and alpha: the fine keyer's layer (`mixwrite key`).
    public static let yuva444p = PixelFormat(AV_PIX_FMT_YUVA444P)
    /// 10 bits a sample in 16 (little-endian): an HDR picture kept as it is.
    public static let yuv420p10 = PixelFormat(AV_PIX_FMT_YUV420P10LE)
    public static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
    public static let rgba = PixelFormat(AV_PIX_FMT_RGBA)
    /// Full-range 4:2:0, what the JPEG encoder takes.
    public static let yuvj420p = PixelFormat(AV_PIX_FMT_YUVJ420P)
    public static let none = PixelFormat(AV_PIX_FMT_NONE)

    var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    /// The corresponding FFmpeg call is `av_get_pix_fmt_name`.
    public var description: String {
        guard let name = av_get_pix_fmt_name(av) else { return "none" }
        return String(cString: name)
    }

    /// Whether the format carries an alpha channel. The corresponding FFmpeg call is `av_pix_fmt_desc_get`.
    public var hasAlpha: Bool {
        guard let d = av_pix_fmt_desc_get(av) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }

    /// The bits of the alpha samples, when they have a plane of their own (yuva…): 8, or 9 … 16 in 16-bit words of
    /// the machine's byte order. nil without alpha or with interleaved alpha (rgba).
    /// The corresponding FFmpeg call is `av_pix_fmt_desc_get`.
    var planarAlphaDepth: Int? {
        guard hasAlpha, let d = av_pix_fmt_desc_get(av), d.pointee.nb_components == 4,
              d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0 else { return nil }
        return Int(d.pointee.comp.3.depth)
    }

    /// Whether the samples are RGB (or a palette): no YUV matrix to read them by.
    public var isRGB: Bool {
        guard let d = av_pix_fmt_desc_get(av) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) != 0
    }

    /// Whether the format is a full-range "J" YUV format (yuvj420p …), deprecated but still produced by MJPEG.
    public var isJPEGRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .map(\.rawValue).contains(rawValue)
    }
}

