import Foundation
@_spi(Tools) import MixWrite

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

    /// A track of the mix: its source (`fx`, `audio1`) and its own name (`fx:2`).
    struct Track: Sendable, Equatable {
        var source: String
        var name: String
    }

    /// The job's settings, the mix track by track: the page has a fader a track, so a whole source's gain,
    /// offset, mute or duck is shown on each of its tracks (`expanded`).
    init(job: BlendJob, key: KeySettings, tracks: [Track]) {
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
        self = expanded(tracks)
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
    func validated(for job: BlendJob, tracks: [Track]) throws(RequestError) -> TuneSettings {
        guard OptionValue.color(keyColor) != nil else { throw .bad("keyColor '\(keyColor)' is not RRGGBB") }
        for (name, v) in [("threshold", threshold), ("smoothing", smoothing)] + gains.map({ ("gain of \($0.key)", $0.value) })
            + offsets.map({ ("offset of \($0.key)", $0.value) }) + duck.map({ ("duck depth of \($0.key)", $0.value) })
            + [("loudness", loudness ?? -16)] where !v.isFinite {
            throw .bad("\(name) must be a number")
        }
        let names = Set(tracks.flatMap { [$0.source, $0.name] })
        for name in Array(gains.keys) + mute + Array(offsets.keys) + Array(duck.keys) where !names.contains(name) {
            throw .bad("'\(name)' is not a source or track of this job")
        }
        // The ranges as the page shows them, track by track (a source's gain adds to its tracks' own).
        let perTrack = expanded(tracks)
        do { try perTrack.applied(to: job, tracks: tracks).validate() } catch { throw .bad(error.description) }
        return perTrack
    }

    var key: KeySettings {
        KeySettings(keyColor: OptionValue.color(keyColor) ?? (0, 1, 0), threshold: threshold, smoothing: smoothing,
                                despill: despill)
    }

    /// The mix track by track, as the render resolves it: a source's gain adds to its track's, a track's own
    /// offset or duck depth wins over its source's, a track is muted with its source. Zero (not ducked, no
    /// offset, 0 dB) is left out.
    func expanded(_ tracks: [Track]) -> TuneSettings {
        var s = self
        (s.gains, s.offsets, s.duck, s.mute) = ([:], [:], [:], [])
        for t in tracks {
            s.gains[t.name] = (gains[t.source] ?? 0) + (gains[t.name] ?? 0)
            s.offsets[t.name] = offsets[t.name] ?? offsets[t.source]
            s.duck[t.name] = duck[t.name] ?? duck[t.source]
            if mute.contains(t.source) || mute.contains(t.name) { s.mute.append(t.name) }
        }
        (s.gains, s.offsets, s.duck) = (s.gains.filter { $0.value != 0 }, s.offsets.filter { $0.value != 0 }, s.duck.filter { $0.value != 0 })
        return s
    }

    /// The job with these settings. The mix is written as briefly as it renders the same: a source whose
    /// tracks all have one value gets it by the source's name (`--gain audio1=-9`), else each track its own.
    func applied(to job: BlendJob, tracks: [Track]) -> BlendJob {
        let s = expanded(tracks)
        var j = job
        j.key = key
        j.autoKeyColor = false
        let sources = tracks.map(\.source).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        func collapsed(_ values: [String: Double]) -> [String: Double] {
            var result: [String: Double] = [:]
            for source in sources {
                let own = tracks.filter { $0.source == source }.map(\.name)
                let given = Set(own.map { values[$0] })
                if given.count == 1, let v = given.first {
                    if let v { result[source] = v }
                } else {
                    for name in own { result[name] = values[name] }
                }
            }
            return result
        }
        j.audio.gains = collapsed(s.gains)
        j.audio.offsets = collapsed(s.offsets)
        // Depth 0 is the page's "not ducked".
        j.audio.duck = collapsed(s.duck)
        j.audio.mute = collapsed(Dictionary(uniqueKeysWithValues: s.mute.map { ($0, 1) })).keys.sorted()
        j.audio.loudness = loudness
        if loudness == nil { j.audio.truePeak = nil }
        j.audio.levelMatch = levelMatch
        return j
    }
}

/// A request the server refuses, with its status and a message for the page.
enum RequestError: Error {
    case bad(String)
    case forbidden(String)
    case notFound
    case conflict(String)
    case failed(String)
}
