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

    /// The corresponding FFmpeg calls are `sws_getContext` and `sws_setColorspaceDetails` (through the shim's
    /// `mw_sws_*`: the context's type and the flags' differ between FFmpeg versions).
    /// `accurate` rounds exactly and interpolates chroma at full resolution (for pictures that are encoded
    /// again); without it the flags are the ffmpeg CLI's own (bicubic), so a picture converts as ffmpeg shows it.
    public init(from source: Key, to destination: Key, accurate: Bool = true) throws(FFmpegError) {
        self.source = source
        self.destination = destination
        context = mw_sws_get(Int32(source.width), Int32(source.height), source.format.av,
                             Int32(destination.width), Int32(destination.height), destination.format.av, accurate ? 1 : 0)
        guard context != nil else { throw FFmpegError(.invalidArgument, call: "sws_getContext") }
        mw_sws_set_colorspace(context, source.color.matrix.sws, source.color.fullRange ? 1 : 0,
                              destination.color.matrix.sws, destination.color.fullRange ? 1 : 0)
    }

    deinit { mw_sws_free(context) }

    /// Converts `input` into `output` (already allocated at the destination size and format).
    /// The corresponding FFmpeg call is `sws_scale`.
    public func scale(_ input: Frame, into output: Frame) throws(FFmpegError) {
        try check(mw_sws_scale(context, input.pointer, output.pointer), "sws_scale")
    }
}
