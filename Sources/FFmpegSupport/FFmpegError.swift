import CFFmpeg

/// A failed FFmpeg call: its return code, the call's name and FFmpeg's own text for the code.
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
    public let code: Int32
    public let call: String

    public init(code: Int32, call: String) {
        self.code = code
        self.call = call
    }

    /// FFmpeg's text for the code. The corresponding FFmpeg call is `av_strerror`.
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return string(fromCString: buffer)
    }

    public var description: String { "\(call): \(message.lowercased())" }

    public var isEndOfFile: Bool { code == mw_averror_eof() }
    public var isNoSpace: Bool { code == mw_averror_enospc() }

    public static var endOfFile: Int32 { mw_averror_eof() }
    public static var tryAgain: Int32 { mw_averror_eagain() }
    public static var noMemory: Int32 { mw_averror_enomem() }
    public static var invalidArgument: Int32 { mw_averror_einval() }
    public static func fromErrno(_ e: Int32) -> Int32 { mw_averror_from_errno(e) }
}

/// Throws an `FFmpegError` when `result` is negative; returns it otherwise.
@discardableResult
@inline(__always)
public func check(_ result: Int32, _ call: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
    if result < 0 { throw FFmpegError(code: result, call: call()) }
    return result
}

/// The outcome of a receive call: EAGAIN and EOF are states of the codec, not failures.
public enum Receive<Value> {
    case value(Value)
    case needsInput
    case endOfStream
}

/// Sets FFmpeg's global log level once: mixwrite reports problems itself, one line each.
public enum FFmpegLog {
    public static func quiet() { av_log_set_level(AV_LOG_QUIET) }
    public static func errorsOnly() { av_log_set_level(AV_LOG_ERROR) }
}

/// A Swift string from a NUL-terminated C buffer filled by an FFmpeg call.
func string(fromCString buffer: [CChar]) -> String {
    buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}
