import FFmpegSupport

/// What went wrong, in words a user can act on, with the documented exit code.
public enum MixWriteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Bad command line or job options. Exit 1.
    case usage(String)
    /// An input is missing, unreadable, not media, or lacks what the job needs. Exit 2.
    case input(file: String, String)
    /// The output exists, cannot be written, or the disk is full. Exit 3.
    case output(file: String, String)
    /// Decoding, filtering, encoding or muxing failed. Exit 4.
    case processing(file: String?, String)
    /// Stopped by SIGINT (130) or SIGTERM (143).
    case interrupted(signal: Int32)

    /// The signal numbers of an interruption (Linux and macOS agree on these two).
    public static let sigint: Int32 = 2
    public static let sigterm: Int32 = 15

    public var exitCode: Int32 {
        switch self {
        case .usage: return 1
        case .input: return 2
        case .output: return 3
        case .processing: return 4
        case .interrupted(let signal): return 128 + signal
        }
    }

    /// One line: `<file>: <what>`.
    public var description: String {
        switch self {
        case .usage(let what): return what
        case .input(let file, let what), .output(let file, let what): return "\(MediaPath.shown(file)): \(what)"
        case .processing(let file?, let what): return "\(MediaPath.shown(file)): \(what)"
        case .processing(nil, let what): return what
        case .interrupted(let signal): return signal == MixWriteError.sigterm ? "terminated" : "interrupted"
        }
    }
}

extension MixWriteError {
    /// Wraps a failure inside a stage: a MixWriteError passes as it is, anything else names the file.
    static func processing(_ error: any Error, file: String?) -> MixWriteError {
        if let e = error as? MixWriteError { return e }
        if let e = error as? FFmpegError {
            if e.isNoSpace, let file { return .output(file: file, "no space left on device") }
            return .processing(file: file, e.description)
        }
        return .processing(file: file, "\(error)")
    }
}
