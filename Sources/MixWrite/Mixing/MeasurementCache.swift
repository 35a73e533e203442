import Foundation

/// Loudness measurements kept from one job to the next on the same sound (`tune`'s auditions and render):
/// the passes behind `--loudness` and `--level-match` decode all the sound, so each mix is measured once.
/// A mix is known by everything its measurement depends on (the files, tracks, gains, offsets, publishing
/// settings, format and length), so a changed fader measures again. Shared by the jobs a caller hands it to
/// (`MixWriter(job, measurements:)`); a job without one measures every time.
@_spi(Tools)
public final class MeasurementCache: @unchecked Sendable {
    typealias Published = (plan: AudioMixPlan, report: LoudnessReport?, warnings: [String])
    /// NSLock, which ThreadSanitizer sees (it cannot see Synchronization.Mutex's futex).
    private let lock = NSLock()
    private var results: [String: Published] = [:]

    public init() {}

    /// The published plan for `plan`: kept, or made by `measure` (under the lock: a second job on the same mix
    /// waits for the first one's figures instead of measuring again).
    func published(_ plan: AudioMixPlan, _ measure: (AudioMixPlan) throws(MixWriteError) -> Published) throws(MixWriteError) -> Published {
        // Every stored value, field by field (a MediaTime's own fields, not its rounded description).
        var key = ""
        dump(plan, to: &key, maxDepth: .max, maxItems: .max)
        lock.lock()
        defer { lock.unlock() }
        if let kept = results[key] { return kept }
        let made = try measure(plan)
        results[key] = made
        return made
    }
}
