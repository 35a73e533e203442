import FFmpegSupport
import Synchronization

/// How far a job is: what a progress line or a `--progress json` line shows.
public struct ProgressUpdate: Sendable, Codable {
    /// 0 … 1.
    public var progress: Double
    /// Seconds of output written.
    public var time: Double
    /// Seconds of output in all.
    public var duration: Double
    /// Output video frames a second of wall time (0 without video).
    public var fps: Double
    /// Seconds of output a second of wall time.
    public var speed: Double
    /// Seconds left, estimated.
    public var eta: Double?
}

/// Turns "the output reached time T" into throttled `ProgressUpdate`s for a handler.
final class ProgressReporter: Sendable {
    private struct State {
        var lastReport: ContinuousClock.Instant?
        var done: MediaTime = .zero
        var finished = false
    }

    private let total: MediaTime
    private let frameRate: Rational?
    private let interval: Duration
    private let started = ContinuousClock.now
    private let handler: @Sendable (ProgressUpdate) -> Void
    private let state = Mutex(State())

    init(total: MediaTime, frameRate: Rational?, interval: Duration = .milliseconds(250),
                handler: @escaping @Sendable (ProgressUpdate) -> Void) {
        self.total = total
        self.frameRate = frameRate
        self.interval = interval
        self.handler = handler
    }

    func advance(to time: MediaTime) {
        let now = ContinuousClock.now
        let due: Bool = state.withLock { s in
            if s.done < time { s.done = time }
            if s.finished { return false }
            if let last = s.lastReport, now - last < interval { return false }
            s.lastReport = now
            return true
        }
        if due { handler(update(now: now)) }
    }

    /// Reports 100 % once, when the job is done.
    func complete() {
        let first: Bool = state.withLock { s in
            defer { s.finished = true }
            s.done = total
            return !s.finished
        }
        if first { handler(update(now: .now)) }
    }

    private func update(now: ContinuousClock.Instant) -> ProgressUpdate {
        let done = state.withLock { $0.done }
        let elapsed = max((now - started).seconds, 1e-6)
        let totalSeconds = max(total.seconds, 1e-9)
        let t = min(done.seconds, totalSeconds)
        let speed = t / elapsed
        let fps = frameRate.map { t * $0.doubleValue / elapsed } ?? 0
        let eta: Double? = speed > 0 ? (totalSeconds - t) / speed : nil
        return ProgressUpdate(progress: min(1, t / totalSeconds), time: t, duration: totalSeconds,
                              fps: fps, speed: speed, eta: eta)
    }
}

extension Duration {
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
