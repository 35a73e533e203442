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

    /// The corresponding FFmpeg calls are `sws_getContext` and `sws_setColorspaceDetails`.
    /// `accurate` rounds exactly and interpolates chroma at full resolution (for pictures that are encoded
    /// again); without it the flags are the ffmpeg CLI's own (bicubic), so a picture converts as ffmpeg shows it.
    public init(from source: Key, to destination: Key, accurate: Bool = true) throws(FFmpegError) {
        self.source = source
        self.destination = destination
        let flags = accurate ? SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT : SWS_BICUBIC
        context = sws_getContext(Int32(source.width), Int32(source.height), source.format.av,
                                 Int32(destination.width), Int32(destination.height), destination.format.av,
                                 flags, nil, nil, nil)
        guard context != nil else { throw FFmpegError(.invalidArgument, call: "sws_getContext") }
        let srcTable = sws_getCoefficients(source.color.matrix.sws)
        let dstTable = sws_getCoefficients(destination.color.matrix.sws)
        sws_setColorspaceDetails(context, srcTable, source.color.fullRange ? 1 : 0,
                                 dstTable, destination.color.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
    }

    deinit { sws_freeContext(context) }

    /// Converts `input` into `output` (already allocated at the destination size and format).
    /// The corresponding FFmpeg call is `sws_scale`.
    public func scale(_ input: Frame, into output: Frame) throws(FFmpegError) {
        let src = input.pointer
        let dst = output.pointer
        let r = withUnsafePointer(to: &src.pointee.data) { sData in
            withUnsafePointer(to: &src.pointee.linesize) { sLines in
                withUnsafePointer(to: &dst.pointee.data) { dData in
                    withUnsafePointer(to: &dst.pointee.linesize) { dLines in
                        sData.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sd in
                            sLines.withMemoryRebound(to: Int32.self, capacity: 8) { sl in
                                dData.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dd in
                                    dLines.withMemoryRebound(to: Int32.self, capacity: 8) { dl in
                                        sws_scale(context, sd, sl, 0, Int32(source.height), dd, dl)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        try check(r, "sws_scale")
    }
}
