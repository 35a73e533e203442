import Foundation
import MixWrite

/// What the page can change: the key and the mix. Everything else stays as the command line gave it.
struct TuneSettings: Codable, Sendable, Equatable {
    var keyColor: String
    var threshold: Double
    var smoothing: Double
    var despill: Bool
    /// dB by source or track name (`fx`, `fx:2`, `audio1`).
    var gains: [String: Double] = [:]
    var mute: [String] = []
    /// Seconds by source or track name.
    var offsets: [String: Double] = [:]
    var loudness: Double?
    /// dB by source or track name: lowered that far while the others play (`--duck`).
    var duck: [String: Double] = [:]
    var levelMatch = false

    init(job: BlendJob, key: ChromaKeyBlend.Settings) {
        keyColor = key.keyColorHex
        threshold = key.threshold
        smoothing = key.smoothing
        despill = key.despill
        gains = job.audio.gains
        mute = job.audio.mute
        offsets = job.audio.offsets
        loudness = job.audio.loudness
        duck = job.audio.duck
        levelMatch = job.audio.levelMatch
    }

    enum CodingKeys: String, CodingKey { case keyColor, threshold, smoothing, despill, gains, mute, offsets, loudness, duck, levelMatch }

    /// The page sends every key; a script may leave the mix out.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        keyColor = try c.decode(String.self, forKey: .keyColor)
        threshold = try c.decode(Double.self, forKey: .threshold)
        smoothing = try c.decode(Double.self, forKey: .smoothing)
        despill = try c.decodeIfPresent(Bool.self, forKey: .despill) ?? false
        gains = try c.decodeIfPresent([String: Double].self, forKey: .gains) ?? [:]
        mute = try c.decodeIfPresent([String].self, forKey: .mute) ?? []
        offsets = try c.decodeIfPresent([String: Double].self, forKey: .offsets) ?? [:]
        loudness = try c.decodeIfPresent(Double.self, forKey: .loudness)
        duck = try c.decodeIfPresent([String: Double].self, forKey: .duck) ?? [:]
        levelMatch = try c.decodeIfPresent(Bool.self, forKey: .levelMatch) ?? false
    }

    /// Limits a request's values must keep, with the message a 400 answers: the job's own checks (the messages
    /// name the command-line options), and names the job knows.
    func validated(for job: BlendJob, names: Set<String>) throws(RequestError) -> TuneSettings {
        guard OptionValue.color(keyColor) != nil else { throw .bad("keyColor '\(keyColor)' is not RRGGBB") }
        for (name, v) in [("threshold", threshold), ("smoothing", smoothing)] + gains.map({ ("gain of \($0.key)", $0.value) })
            + offsets.map({ ("offset of \($0.key)", $0.value) }) + duck.map({ ("duck depth of \($0.key)", $0.value) })
            + [("loudness", loudness ?? -16)] where !v.isFinite {
            throw .bad("\(name) must be a number")
        }
        for name in Array(gains.keys) + mute + Array(offsets.keys) + Array(duck.keys) where !names.contains(name) {
            throw .bad("'\(name)' is not a source or track of this job")
        }
        do { try applied(to: job).validate() } catch { throw .bad(error.description) }
        return self
    }

    var key: ChromaKeyBlend.Settings {
        ChromaKeyBlend.Settings(keyColor: OptionValue.color(keyColor) ?? (0, 1, 0), threshold: threshold, smoothing: smoothing,
                                despill: despill)
    }

    /// The job with these settings.
    func applied(to job: BlendJob) -> BlendJob {
        var j = job
        j.key = key
        j.autoKeyColor = false
        j.audio.gains = gains.filter { $0.value != 0 }
        j.audio.mute = mute.sorted()
        j.audio.offsets = offsets.filter { $0.value != 0 }
        j.audio.loudness = loudness
        if loudness == nil { j.audio.truePeak = nil }
        // Depth 0 is the page's "not ducked".
        j.audio.duck = duck.filter { $0.value != 0 }
        j.audio.levelMatch = levelMatch
        return j
    }
}

/// A request the server refuses, with its status and a message for the page.
enum RequestError: Error {
    case bad(String)
    case forbidden(String)
    case notFound
    case tooLarge
    case conflict(String)
    case failed(String)
}
