import Foundation
import FFmpegSupport

/// A job written back as text: the `mixwrite` command that runs it, and its entry in a `batch` job file.
/// Every option that is not at its default is written, so that both run the job exactly (`tune` hands them
/// out to copy; a test reads the entry back through `JobFile` and compares the jobs).
extension BlendJob {
    /// The command's words, unquoted (`commandLine` quotes them for a shell).
    public var commandWords: [String] {
        var words = ["mixwrite", fx, base, "-o", output]
        if let w = width, let h = height { words += ["--size", "\(w)x\(h)"] }
        if let r = frameRate { words += ["--fps", r.description] }
        if crf != 20 { words += ["--crf", String(crf)] }
        if preset != "veryfast" { words += ["--preset", preset] }
        if duration != .base { words += ["--duration", duration.rawValue] }
        if fit != .stretch { words += ["--fit", fit.rawValue] }
        if let e = excerpt {
            words += ["--start", JobText.number(e.start.seconds)]
            if let l = e.length { words += ["--length", JobText.number(l.seconds)] }
        }
        for (name, value) in keyOptions { words += ["--" + name, value] }
        if key.despill { words.append("--despill") }
        words += audio.commandWords
        if strict { words.append("--strict") }
        if overwrite { words.append("-y") }
        return words
    }

    /// The command, each word quoted for a POSIX shell when it needs it.
    public var commandLine: String { commandWords.map(JobText.quoted).joined(separator: " ") }

    /// The job as one entry of a job file (a JSON object on one line). Paths are made absolute, so the entry
    /// means the same files wherever the job file is kept.
    public var jobEntry: String {
        var keys: [(String, String)] = [("kind", JobText.json("blend")), ("fx", JobText.path(fx)), ("base", JobText.path(base)),
                                        ("output", JobText.path(output))]
        if let w = width, let h = height { keys.append(("size", JobText.json("\(w)x\(h)"))) }
        if let r = frameRate { keys.append(("fps", JobText.json(r.description))) }
        if crf != 20 { keys.append(("crf", String(crf))) }
        if preset != "veryfast" { keys.append(("preset", JobText.json(preset))) }
        if duration != .base { keys.append(("duration", JobText.json(duration.rawValue))) }
        if fit != .stretch { keys.append(("fit", JobText.json(fit.rawValue))) }
        if let e = excerpt {
            keys.append(("start", JobText.number(e.start.seconds)))
            if let l = e.length { keys.append(("length", JobText.number(l.seconds))) }
        }
        keys += keyOptions.map { ($0.0, $0.0 == "key-color" ? JobText.json($0.1) : $0.1) }
        if key.despill { keys.append(("despill", "true")) }
        if !audio.files.isEmpty { keys.append(("audio", "[" + audio.files.map(JobText.path).joined(separator: ", ") + "]")) }
        keys += audio.entryKeys
        if strict { keys.append(("strict", "true")) }
        if overwrite { keys.append(("overwrite", "true")) }
        return "{" + keys.map { "\(JobText.json($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}

extension BlendJob {
    /// The key's options that are not at their defaults (GPUImage's: green, 0.4, 0.1), as (long name, value).
    var keyOptions: [(String, String)] {
        let defaults = ChromaKeyBlend.Settings()
        var options: [(String, String)] = []
        if autoKeyColor || key.keyColorHex != defaults.keyColorHex { options.append(("key-color", autoKeyColor ? "auto" : key.keyColorHex)) }
        if key.threshold != defaults.threshold { options.append(("threshold", JobText.number(key.threshold))) }
        if key.smoothing != defaults.smoothing { options.append(("smoothing", JobText.number(key.smoothing))) }
        return options
    }
}

extension AudioOptions {
    /// Every option but the files (whose place differs between the kinds of job).
    var commandWords: [String] {
        var words: [String] = []
        for f in files { words += ["--audio", f] }
        if tracks != .all { words += ["--audio-tracks", tracks.rawValue] }
        for m in mute.sorted() { words += ["--mute", m] }
        for (name, dB) in gains.sorted(by: { $0.key < $1.key }) { words += ["--gain", "\(name)=\(JobText.number(dB))"] }
        for (name, s) in offsets.sorted(by: { $0.key < $1.key }) { words += ["--offset", "\(name)=\(JobText.number(s))"] }
        if mode != .sum { words += ["--mix", mode.rawValue] }
        if let c = channels { words += ["--channels", String(c)] }
        if let r = sampleRate { words += ["--sample-rate", String(r)] }
        if bitRate != 192_000 { words += ["--audio-bitrate", String(bitRate)] }
        if let l = loudness { words += ["--loudness", JobText.number(l)] }
        if let t = truePeak { words += ["--true-peak", JobText.number(t)] }
        if levelMatch { words.append("--level-match") }
        for (name, dB) in duck.sorted(by: { $0.key < $1.key }) { words += ["--duck", "\(name)=\(JobText.number(dB))"] }
        if fadeIn > 0 { words += ["--fade-in", JobText.number(fadeIn)] }
        if fadeOut > 0 { words += ["--fade-out", JobText.number(fadeOut)] }
        return words
    }

    /// The job-file keys of every option but the files, as (key, JSON value).
    var entryKeys: [(String, String)] {
        var keys: [(String, String)] = []
        func object(_ values: [String: Double]) -> String {
            "{" + values.sorted { $0.key < $1.key }.map { "\(JobText.json($0.key)): \(JobText.number($0.value))" }
                .joined(separator: ", ") + "}"
        }
        if tracks != .all { keys.append(("audio-tracks", JobText.json(tracks.rawValue))) }
        if !mute.isEmpty { keys.append(("mute", "[" + mute.sorted().map(JobText.json).joined(separator: ", ") + "]")) }
        if !gains.isEmpty { keys.append(("gain", object(gains))) }
        if !offsets.isEmpty { keys.append(("offset", object(offsets))) }
        if mode != .sum { keys.append(("mix", JobText.json(mode.rawValue))) }
        if let c = channels { keys.append(("channels", String(c))) }
        if let r = sampleRate { keys.append(("sample-rate", String(r))) }
        if bitRate != 192_000 { keys.append(("audio-bitrate", JobText.json(String(bitRate)))) }
        if let l = loudness { keys.append(("loudness", JobText.number(l))) }
        if let t = truePeak { keys.append(("true-peak", JobText.number(t))) }
        if levelMatch { keys.append(("level-match", "true")) }
        if !duck.isEmpty { keys.append(("duck", object(duck))) }
        if fadeIn > 0 { keys.append(("fade-in", JobText.number(fadeIn))) }
        if fadeOut > 0 { keys.append(("fade-out", JobText.number(fadeOut))) }
        return keys
    }
}

/// How numbers, strings and words are written.
public enum JobText {
    /// The shortest text that reads back as the same number, without a trailing ".0".
    public static func number(_ x: Double) -> String {
        var s = "\(x)"
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s == "-0" ? "0" : s
    }

    /// A word as a POSIX shell needs it: as is when it is plain, else in single quotes.
    public static func quoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:+,@%".contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A JSON string.
    public static func json(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding a String cannot fail.
        return String(decoding: (try? encoder.encode(s)) ?? Data(), as: UTF8.self)
    }

    /// A path as a JSON string, made absolute against the current folder.
    static func path(_ p: String) -> String {
        json(p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p)
    }
}
