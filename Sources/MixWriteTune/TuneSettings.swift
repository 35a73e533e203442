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

    init(job: BlendJob, key: ChromaKeyBlend.Settings) {
        keyColor = key.keyColorHex
        threshold = key.threshold
        smoothing = key.smoothing
        despill = key.despill
        gains = job.audio.gains
        mute = job.audio.mute
        offsets = job.audio.offsets
        loudness = job.audio.loudness
    }

    enum CodingKeys: String, CodingKey { case keyColor, threshold, smoothing, despill, gains, mute, offsets, loudness }

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
    }

    /// Limits a request's values must keep, with the message a 400 answers.
    func validated(names: Set<String>) throws(RequestError) -> TuneSettings {
        guard OptionValue.color(keyColor) != nil else { throw .bad("keyColor '\(keyColor)' is not RRGGBB") }
        for (name, v) in [("threshold", threshold), ("smoothing", smoothing)] where !(v.isFinite && (0...1).contains(v)) {
            throw .bad("\(name) must be between 0 and 1")
        }
        for (name, dB) in gains where !(dB.isFinite && (-60...24).contains(dB)) { throw .bad("gain of \(name) must be between -60 and 24 dB") }
        for (name, s) in offsets where !(s.isFinite && (0...3600).contains(s)) { throw .bad("offset of \(name) must be between 0 and 3600 s") }
        if let l = loudness, !(l.isFinite && (-70 ... -5).contains(l)) { throw .bad("loudness must be between -70 and -5 LUFS") }
        for name in Array(gains.keys) + mute + Array(offsets.keys) where !names.contains(name) {
            throw .bad("'\(name)' is not a source or track of this job")
        }
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
        return j
    }

    /// The `mixwrite …` command that renders `job` with these settings, each word quoted for a POSIX shell when
    /// it needs it.
    func command(for job: BlendJob) -> String {
        let j = applied(to: job)
        var words = ["mixwrite", j.fx, j.base, "-o", j.output]
        if let w = j.width, let h = j.height { words += ["--size", "\(w)x\(h)"] }
        if let r = j.frameRate { words += ["--fps", r.description] }
        if j.crf != 20 { words += ["--crf", String(j.crf)] }
        if j.preset != "veryfast" { words += ["--preset", j.preset] }
        if j.duration != .base { words += ["--duration", j.duration.rawValue] }
        words += ["--key-color", j.key.keyColorHex, "--threshold", Self.number(j.key.threshold),
                  "--smoothing", Self.number(j.key.smoothing)]
        if j.key.despill { words.append("--despill") }
        for f in j.audio.files { words += ["--audio", f] }
        if j.audio.tracks != .all { words += ["--audio-tracks", j.audio.tracks.rawValue] }
        for m in j.audio.mute { words += ["--mute", m] }
        for (name, dB) in j.audio.gains.sorted(by: { $0.key < $1.key }) { words += ["--gain", "\(name)=\(Self.number(dB))"] }
        for (name, s) in j.audio.offsets.sorted(by: { $0.key < $1.key }) { words += ["--offset", "\(name)=\(Self.number(s))"] }
        if let l = j.audio.loudness { words += ["--loudness", Self.number(l)] }
        return words.map(Self.quoted).joined(separator: " ")
    }

    /// The job as an entry of a `batch` job file (the schema's keys).
    func jobEntry(for job: BlendJob) -> String {
        let j = applied(to: job)
        var entry: [(String, String)] = [("kind", "\"blend\""), ("fx", Self.json(j.fx)), ("base", Self.json(j.base)),
                                         ("output", Self.json(j.output)), ("key-color", Self.json(j.key.keyColorHex)),
                                         ("threshold", Self.number(j.key.threshold)), ("smoothing", Self.number(j.key.smoothing))]
        if j.key.despill { entry.append(("despill", "true")) }
        if !j.audio.files.isEmpty { entry.append(("audio", "[" + j.audio.files.map(Self.json).joined(separator: ", ") + "]")) }
        if !j.audio.mute.isEmpty { entry.append(("mute", "[" + j.audio.mute.map(Self.json).joined(separator: ", ") + "]")) }
        for (key, values) in [("gain", j.audio.gains), ("offset", j.audio.offsets)] where !values.isEmpty {
            entry.append((key, "{" + values.sorted { $0.key < $1.key }.map { "\(Self.json($0.key)): \(Self.number($0.value))" }
                .joined(separator: ", ") + "}"))
        }
        if let l = j.audio.loudness { entry.append(("loudness", Self.number(l))) }
        return "{" + entry.map { "\(Self.json($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A number as the command line writes it: no trailing ".0", at most 4 decimals.
    static func number(_ x: Double) -> String {
        var s = String(format: "%.4f", x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    static func quoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:+,@%".contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func json(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: (try? encoder.encode(s)) ?? Data("\"\"".utf8), as: UTF8.self)
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
