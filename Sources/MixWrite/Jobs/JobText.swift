import Foundation
import FFmpegSupport

/// A job written back as text from its description (`JobOption`): the `mixwrite` command that runs it, and its
/// entry in a `batch` job file. Every option that is not at its default is written, so that both run the job
/// exactly (`tune` hands them out to copy; a test reads the entry back through `JobFile` and compares the jobs).
extension DescribedJob {
    /// The command's words, unquoted (`commandLine` quotes them for a shell): the inputs in their places, then
    /// the options. Concat's events from a job file have no command-line form and are left out.
    public var commandWords: [String] {
        var inputs: [String] = [], options: [String] = []
        for (o, value) in values {
            let name: String
            switch o.declaration.form {
            case .positional: inputs += Self.words(value); continue
            case .short(let flag): name = flag
            case .named: name = "--" + o.declaration.commandName
            }
            if case .flag = value { options.append(name) } else { for w in Self.words(value) { options += [name, w] } }
        }
        return Self.command + inputs + options
    }

    /// The command, each word quoted for a POSIX shell when it needs it.
    public var commandLine: String { commandWords.map(JobText.quoted).joined(separator: " ") }

    /// The job as one entry of a job file (a JSON object on one line, `kind` first, in the description's order).
    /// Paths are made absolute, so the entry means the same files wherever the job file is kept.
    public var jobEntry: String {
        let keys = [("kind", JobText.json(Self.kind))] + values.map { ($0.option.name, Self.json($0.value)) }
        return "{" + keys.map { "\(JobText.json($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A value's words after its option's name (none for a flag, one a value for a list).
    private static func words(_ value: JobValue) -> [String] {
        switch value {
        case .flag: return []
        case .number(let x): return [JobText.number(x)]
        case .text(let s), .path(let s): return [s]
        case .texts(let list), .paths(let list): return list
        case .pairs(let pairs, let words):
            return (pairs.map { "\($0.key)=\(JobText.number($0.value))" } + words.map { "\($0.key)=\($0.value)" }).sorted()
        case .events: return []
        case .layers(let objects):
            // FILE:NAME=VALUE…, the file first (made absolute, as a path is, and so is a path after it), a flag by its
            // name alone.
            return objects.map { object in
                object.enumerated().map { (i, entry) in
                    let (name, value) = entry
                    switch value {
                    case .path(let p): return i == 0 ? JobText.absolute(p) : name + "=" + JobText.absolute(p)
                    case .flag: return name
                    default: return name + "=" + words(value).joined(separator: ",")
                    }
                }.joined(separator: ":")
            }
        }
    }

    private static func json(_ value: JobValue) -> String {
        switch value {
        case .flag: return "true"
        case .number(let x): return JobText.number(x)
        case .text(let s): return JobText.json(s)
        case .path(let p): return JobText.json(JobText.absolute(p))
        case .texts(let list): return "[" + list.map(JobText.json).joined(separator: ", ") + "]"
        case .paths(let list): return "[" + list.map { JobText.json(JobText.absolute($0)) }.joined(separator: ", ") + "]"
        case .pairs(let pairs, let words): return JobText.object(pairs, words: words)
        case .layers(let objects):
            return "[" + objects.map { "{" + $0.map { "\(JobText.json($0.name)): \(json($0.value))" }.joined(separator: ", ") + "}" }
                .joined(separator: ", ") + "]"
        case .events(let events):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Events are numbers and strings: they always encode.
            return String(decoding: (try? encoder.encode(events)) ?? Data("[]".utf8), as: UTF8.self)
        }
    }
}

/// How numbers, strings and words are written.
enum JobText {
    /// The shortest text that reads back as the same number, without a trailing ".0".
    static func number(_ x: Double) -> String {
        var s = "\(x)"
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s == "-0" ? "0" : s
    }

    /// A word as a POSIX shell needs it: as is when it is plain, else in single quotes.
    static func quoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:+,@%".contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A JSON string.
    static func json(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding a String cannot fail.
        return String(decoding: (try? encoder.encode(s)) ?? Data(), as: UTF8.self)
    }

    /// A path made absolute against the current folder.
    static func absolute(_ p: String) -> String {
        p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
    }

    static func object(_ values: [String: Double], words: [String: String] = [:]) -> String {
        let entries = values.map { ($0.key, number($0.value)) } + words.map { ($0.key, json($0.value)) }
        return "{" + entries.sorted { $0.0 < $1.0 }.map { "\(json($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}
