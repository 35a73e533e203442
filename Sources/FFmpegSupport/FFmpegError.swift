internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A failed FFmpeg call: its return code, the call's name and FFmpeg's own text for the code.
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
    public let code: Code
    public let call: String

    /// FFmpeg's negative return codes, by our names for the ones mixwrite tells apart.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `AVERROR_EOF`: the end of a stream (a value, not a failure, when reading or draining).
        public static var endOfFile: Code { Code(rawValue: mw_averror_eof()) }
        /// `AVERROR(EAGAIN)`: send more input (or take output) first.
        public static var tryAgain: Code { Code(rawValue: mw_averror_eagain()) }
        /// `AVERROR(ENOMEM)`.
        public static var noMemory: Code { Code(rawValue: mw_averror_enomem()) }
        /// `AVERROR(ENOSPC)`: the disk is full.
        public static var noSpace: Code { Code(rawValue: mw_averror_enospc()) }
        /// `AVERROR(EINVAL)`.
        public static var invalidArgument: Code { Code(rawValue: mw_averror_einval()) }
        /// `AVERROR_INVALIDDATA`: damaged input.
        public static var invalidData: Code { Code(rawValue: mw_averror_invaliddata()) }
        /// `AVERROR_DECODER_NOT_FOUND`.
        public static var decoderNotFound: Code { Code(rawValue: mw_averror_decoder_not_found()) }
        /// `AVERROR_ENCODER_NOT_FOUND`.
        public static var encoderNotFound: Code { Code(rawValue: mw_averror_encoder_not_found()) }
        /// `AVERROR(errno)`: an operating-system error in FFmpeg's convention.
        public static func errno(_ e: Int32) -> Code { Code(rawValue: mw_averror_from_errno(e)) }
    }

    public init(_ code: Code, call: String) {
        self.code = code
        self.call = call
    }

    init(code: Int32, call: String) {
        self.init(Code(rawValue: code), call: call)
    }

    /// FFmpeg's text for the code. The corresponding FFmpeg call is `av_strerror`.
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code.rawValue, &buffer, buffer.count)
        return string(fromCString: buffer)
    }

    public var description: String { "\(call): \(message.lowercased())" }

    public var isEndOfFile: Bool { code == .endOfFile }
    public var isNoSpace: Bool { code == .noSpace }
}

/// Throws an `FFmpegError` when `result` is negative; returns it otherwise.
@discardableResult
@inline(__always)
func check(_ result: Int32, _ call: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
    if result < 0 { throw FFmpegError(code: result, call: call()) }
    return result
}

/// The outcome of a receive call: EAGAIN and EOF are states of the codec, not failures.
public enum Receive<Value> {
    case value(Value)
    case needsInput
    case endOfStream
}

/// FFmpeg's own log, routed through mixwrite: its warning and error lines are counted (so that a job can
/// say "40 decoder warnings while probing") and reach stderr only when shown.
public enum FFmpegLog {
    /// Routes the log; `show` writes every line to stderr as it comes. The corresponding FFmpeg calls are
    /// `av_log_set_callback` and `av_log_set_level`.
    public static func route(show: Bool) {
        // SVT-AV1 prints its banner and configuration to stderr unless SVT_LOG says otherwise: errors only, unless the
        // user set it. Set here, where a program starts (single-threaded), not when the first AV1 encoder opens: a
        // setenv while another thread copies the environment (Foundation's Process.run) reads freed memory.
        setenv("SVT_LOG", "1", 0)
        mw_log_route(show ? 1 : 0)
    }
    /// Warning and error lines FFmpeg has logged since the process started.
    public static var count: Int { Int(mw_log_count()) }
}

/// A Swift string from a NUL-terminated C buffer filled by an FFmpeg call.
func string(fromCString buffer: [CChar]) -> String {
    buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

/// The FFmpeg libraries this process runs on, as they report themselves (not the headers it was built with: a
/// system's libraries can be updated under a built binary). Behaviour differs between FFmpeg versions (encoders'
/// output, defaults), so `mixwrite --version` and every `--json` report name them.
public enum FFmpegLibraries {
    /// FFmpeg's release as the distribution built it (`7.1.5-0+deb13u1`). The corresponding FFmpeg call is
    /// `av_version_info`.
    public static var release: String { String(cString: av_version_info()) }

    /// Each library and its version, `libavcodec 61.19.101`, in link order. The corresponding FFmpeg calls are
    /// `avformat_version`, `avcodec_version` and so on.
    public static var versions: [String] {
        func text(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
        return [("libavformat", avformat_version()), ("libavcodec", avcodec_version()), ("libavfilter", avfilter_version()),
                ("libswscale", swscale_version()), ("libswresample", swresample_version()), ("libavutil", avutil_version())]
            .map { "\($0.0) \(text($0.1))" }
    }

    /// `FFmpeg 7.1.5-0+deb13u1 (libavformat 61.7.103, …)`.
    public static var description: String { "FFmpeg \(release) (\(versions.joined(separator: ", ")))" }
}
