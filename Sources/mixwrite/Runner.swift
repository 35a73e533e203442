import Dispatch
import Foundation
import MixWrite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a job from the command line: progress on stderr, SIGINT/SIGTERM cancel it cleanly.
struct Runner {
    let common: CommonOptions

    func run(_ job: any MixJob) async throws -> Report {
        MixWriter.setLibraryLogging(common.verbose)
        let style: ProgressStyle
        switch common.progress {
        case .auto: style = common.quiet || isatty(STDERR_FILENO) == 0 ? .none : .bar
        default: style = common.quiet && common.progress == .bar ? .none : common.progress
        }
        let printer = ProgressPrinter(style: style)
        let task = Task { try await MixWriter(job).run(progress: style == .none ? nil : printer.show) }
        let signals = SignalWatcher { _ in task.cancel() }
        defer { signals.stop() }
        do {
            let report = try await task.value
            printer.end()
            return report
        } catch let error as MixWriteError {
            printer.end()
            if case .interrupted = error, let signal = signals.caught { throw MixWriteError.interrupted(signal: signal) }
            throw error
        }
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP (a closed terminal, handled as SIGTERM; exit 129) into a callback (the job's
/// cancellation, its temporary file removed) instead of an abrupt exit.
final class SignalWatcher {
    private final class Caught: Sendable {
        let signal = Atomic<Int32>(0)
    }
    private static let queue = DispatchQueue(label: "mixwrite.signals")
    private let sources: [any DispatchSourceSignal]
    private let caughtSignal = Caught()

    init(onSignal: @escaping @Sendable (Int32) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for sig in Self.watched {
            signal(sig, SIG_IGN)
            // Its own serial queue, not the global one: the Swift concurrency pool runs on the global queue's
            // threads, one a core, and while the stages keep them busy (a segment of AAC, a picture to encode)
            // a handler queued there waited up to 0.8 s. A labelled queue gets a thread of its own.
            let source = DispatchSource.makeSignalSource(signal: sig, queue: SignalWatcher.queue)
            sources.append(source)
        }
        self.sources = sources
        for (source, sig) in zip(sources, Self.watched) {
            let caught = caughtSignal
            source.setEventHandler {
                caught.signal.store(sig, ordering: .relaxed)
                onSignal(sig)
            }
            source.resume()
        }
        SignalWatcher.waitUntilArmed(Self.watched)
    }

    static let watched = [SIGINT, SIGTERM, SIGHUP]

    /// libdispatch installs its own handler for a signal source on one of its threads, some milliseconds after
    /// `resume()`; until then the signal is ignored (SIG_IGN) and lost. Waits (at most a second) until it is
    /// installed, so that a signal sent once the command goes on (`tune` prints its address next) is seen.
    private static func waitUntilArmed(_ signals: [Int32]) {
        for _ in 0..<1000 {
            let armed = signals.allSatisfy { sig in
                var action = sigaction()
                sigaction(sig, nil, &action)
                // SIG_DFL is 0 and SIG_IGN 1: anything else is a handler.
                return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) > 1
            }
            if armed { return }
            usleep(1000)
        }
    }

    var caught: Int32? {
        let s = caughtSignal.signal.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }

    func stop() {
        for s in sources { s.cancel() }
    }
}

/// Draws progress: one redrawn stderr line on a terminal, or one JSON object a line.
final class ProgressPrinter: Sendable {
    let style: ProgressStyle
    private let drew = Atomic<Bool>(false)

    init(style: ProgressStyle) { self.style = style }

    var show: @Sendable (ProgressUpdate) -> Void {
        { [self] update in
            switch style {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                if let data = try? encoder.encode(update), let line = String(data: data, encoding: .utf8) {
                    writeError(line + "\n")
                }
            case .bar, .auto:
                let percent = Int((update.progress * 100).rounded(.down))
                var line = String(format: "\r%3d%%  %@ / %@  %.0f fps  %.2fx", percent,
                                  formatClock(update.time), formatClock(update.duration), update.fps, update.speed)
                if let eta = update.eta, update.progress < 1 { line += "  ETA \(formatClock(eta))" }
                writeError(line + "\u{1B}[K")
                drew.store(true, ordering: .relaxed)
            case .none:
                break
            }
        }
    }

    func end() {
        if drew.load(ordering: .relaxed) { writeError("\n") }
    }
}

func formatClock(_ s: Double) -> String {
    let t = Int(s.rounded(.down))
    return String(format: "%d:%02d.%d", t / 60, t % 60, Int((s - Double(t)) * 10))
}
