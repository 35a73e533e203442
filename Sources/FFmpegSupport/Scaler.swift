internal import CFFmpeg

/// Converts pictures between sizes, pixel formats and colour matrices. Owns its `SwsContext`.
public final class Scaler {
    private var context: OpaquePointer?
    public let source: Key
    public let destination: Key

    /// What a conversion is set up for; a new input format needs a new `Scaler`.
    public struct Key: Hashable, Sendable {
        public var width: Int
        public var height: Int
        public var format: PixelFormat
        public var color: ColorDescription

        public init(width: Int, height: Int, format: PixelFormat, color: ColorDescription) {
            self.width = width; self.height = height; self.format = format; self.color = color
        }
    }

    /// How a picture is filtered (the shim's `accurate`: 1, 0, −1).
    public enum Filter: Int32, Sendable {
        /// Exact rounding, chroma interpolated at full resolution: for pictures that are encoded again.
        case accurate = 1
        /// The ffmpeg CLI's own flags (bicubic), so a picture converts as ffmpeg shows it.
        case cli = 0
        /// Bilinear: cheaper, for a picture scaled every frame and laid over another.
        case bilinear = -1
    }

    /// The corresponding FFmpeg calls are `sws_getContext` and `sws_setColorspaceDetails` (through the shim's
    /// `mw_sws_*`: the context's type and the flags' differ between FFmpeg versions).
    public init(from source: Key, to destination: Key, filter: Filter = .accurate) throws(FFmpegError) {
        self.source = source
        self.destination = destination
        context = mw_sws_get(Int32(source.width), Int32(source.height), source.format.av,
                             Int32(destination.width), Int32(destination.height), destination.format.av, filter.rawValue)
        guard context != nil else { throw FFmpegError(.invalidArgument, call: "sws_getContext") }
        mw_sws_set_colorspace(context, source.color.matrix.sws, source.color.fullRange ? 1 : 0,
                              destination.color.matrix.sws, destination.color.fullRange ? 1 : 0)
    }

    deinit { mw_sws_free(context) }

    /// Converts `input` into `output` (already allocated at the destination size and format).
    /// The corresponding FFmpeg call is `sws_scale`.
    public func scale(_ input: Frame, into output: Frame) throws(FFmpegError) {
        try check(mw_sws_scale(context, input.pointer, output.pointer), "sws_scale")
        widenAlpha(input, into: output)
    }

    /// swscale widens an 8-bit alpha by a shift, so opaque (255) becomes 1020 of 1023 in 10 bits, not opaque (and
    /// FFmpeg 7's swscale reads 1020 back as 254): where 8-bit alpha goes to more bits, the alpha plane is widened
    /// again by repeating the high bits (255 → 1023, 0 → 0, in between the nearest).
    private func widenAlpha(_ input: Frame, into output: Frame) {
        guard source.format.planarAlphaDepth == 8, let depth = destination.format.planarAlphaDepth, depth > 8,
              source.width == destination.width, source.height == destination.height else { return }
        for y in 0..<source.height {
            let a = input.plane(3) + y * input.stride(3)
            let out = UnsafeMutableRawPointer(output.plane(3) + y * output.stride(3)).assumingMemoryBound(to: UInt16.self)
            for x in 0..<source.width {
                let v = UInt16(a[x])
                out[x] = v << (depth - 8) | v >> (16 - depth)
            }
        }
    }
}
