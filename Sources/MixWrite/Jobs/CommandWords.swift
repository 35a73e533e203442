import Foundation

/// A job's command line, read through its options' declarations: the words become the job-file entry they
/// stand for (`--gain fx=-6` is `"gain": {"fx": -6}`), which the job reads as it reads a job file. So the command
/// line, the job file and the help cannot drift apart. The command line's own options (`--json`, `--frame` …),
/// declared the same way by the caller, are handed back as text.
@_spi(Tools)
public struct CommandWords: Sendable {
    /// The command's own options as given: every value of each, in order (a flag's is "true").
    public var own: [String: [String]] = [:]

    public func flag(_ name: String) -> Bool { own[name] != nil }
    public func text(_ name: String) -> String? { own[name]?.last }

    /// Reads `words` (what follows the command's name) as a job of type `J` and the command's `own` options.
    public static func parse<J: MixJob>(_ words: [String], as type: J.Type,
                                        own: [OptionDeclaration]) throws(MixWriteError) -> (job: J, words: CommandWords) {
        guard let described = J.self as? any DescribedJob.Type else { throw .usage("\(J.self) has no command line") }
        let options = described.declarations
        var reader = WordReader(job: options, own: own)
        try reader.read(words)
        let entry = try reader.entry()
        let decoder = JSONDecoder()
        decoder.userInfo[JobContext.key] = JobContext(folder: nil, threads: 0)
        do {
            let data = try JSONSerialization.data(withJSONObject: entry)
            return (try decoder.decode(J.self, from: data), CommandWords(own: reader.ownValues))
        } catch let problem as JobProblem {
            let given = problem.key.flatMap { reader.given[$0] }.map { " " + $0 } ?? ""
            if let input = options.first(where: { $0.name == problem.key && $0.form == .positional }), problem.what.hasPrefix("is missing") {
                throw .usage("missing \(input.shownInput)" + problem.what.dropFirst("is missing".count).replacingOccurrences(of: "'layers'", with: "--layer"))
            }
            let shown = options.first { $0.name == problem.key }?.commandName ?? problem.key ?? ""
            let what = "--\(shown)\(given): \(problem.what)"
            if let file = problem.file { throw .input(file: file, problem.what) }
            throw .usage(what)
        } catch let error as MixWriteError {
            throw error
        } catch {
            throw .usage("\(error)")
        }
    }

    /// Every option a job's command line takes, as it is written (`--crf`, `-o`), for a shell's completion.
    public static func names<J: MixJob>(for type: J.Type, own: [OptionDeclaration]) -> [String] {
        guard let described = J.self as? any DescribedJob.Type else { return [] }
        return (described.declarations + own).flatMap { d -> [String] in
            switch d.form {
            case .positional: return []
            case .short(let s): return [s, "--" + d.commandName]
            case .named: return ["--" + d.commandName]
            }
        }
    }

    /// What a shell offers for word `index` of `words` (the command line as typed, `prefix` the part before the cursor):
    /// the option names after a dash; after an option, its choices (`--keyer`: gpuimage, fine), files where it takes a
    /// path (a layer's spec starts with one), nothing where it takes a number or text; files for an input. The shell
    /// keeps the candidates that start with `prefix`.
    public static func completions<J: MixJob>(for type: J.Type, own: [OptionDeclaration], words: [String], index: Int,
                                              prefix: String) -> [String] {
        guard let described = J.self as? any DescribedJob.Type else { return [] }
        if prefix.hasPrefix("-") { return names(for: type, own: own) }
        let previous = index > 0 && index <= words.count ? words[index - 1] : ""
        let declaration = (described.declarations + own).first { d in
            d.form != .positional && (previous == "--" + d.commandName || d.form == .short(previous))
        }
        switch declaration?.shape {
        case nil, .path, .paths, .events, .layers: return files(matching: prefix)
        case .choice(let values): return values
        case .flag: return files(matching: prefix)   // a flag takes no value: an input may follow
        default: return []
        }
    }

    /// The files and folders whose path starts with `prefix` (relative to the working folder; `~/` the home folder),
    /// as typed: hidden ones only when their name's dot is typed.
    public static func files(matching prefix: String) -> [String] {
        let typedFolder = prefix.lastIndex(of: "/").map { String(prefix[...$0]) } ?? ""
        let start = String(prefix.dropFirst(typedFolder.count))
        var folder = typedFolder.isEmpty ? "." : typedFolder
        // The shell expands ~ by HOME.
        if folder.hasPrefix("~/") { folder = (ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()) + folder.dropFirst() }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasPrefix(start) && (!$0.hasPrefix(".") || start.hasPrefix(".")) }.sorted().map { typedFolder + $0 }
    }

    /// The options' help, as `--help` shows it: the inputs, then every option with its value, help and default.
    public static func help<J: MixJob>(for type: J.Type, own: [OptionDeclaration]) -> String {
        guard let described = J.self as? any DescribedJob.Type else { return "" }
        let options = described.declarations
        let inputs = options.filter { $0.form == .positional }
        let named = options.filter { $0.form != .positional }
        func row(_ left: String, _ d: OptionDeclaration) -> String {
            var help = d.help
            if case .flag = d.shape {} else if let v = d.defaultValue { help += " (default: \(v.shownText))" }
            let indent = String(repeating: " ", count: 32)
            let pad = left.count < 30 ? String(repeating: " ", count: 30 - left.count) : "\n" + indent
            return "  " + left + pad + wrapped(help, width: 78 - 32).joined(separator: "\n" + indent)
        }
        var lines = ["USAGE: " + usage(described, inputs: inputs), "", "ARGUMENTS:"]
        lines += inputs.map { row($0.shownInput, $0) }
        func rows(_ list: [OptionDeclaration]) -> [String] {
            list.map { d in row(d.shownNames.joined(separator: ", ") + (d.shownValue.map { " " + $0 } ?? ""), d) }
        }
        lines += ["", "JOB OPTIONS (each is also a job file's key, without the dashes):"] + rows(named)
        if !own.isEmpty { lines += ["", "COMMAND OPTIONS:"] + rows(own) }
        return lines.joined(separator: "\n")
    }

    /// The option reference (`Docs/options.md`, written by `make docs`): each command's usage line, then every option
    /// once, with the commands that take it, its value, default and help, as `--help` and the schema have them.
    public static func reference(_ commands: [(name: String, abstract: String, job: any MixJob.Type, own: [OptionDeclaration])]) -> String {
        var lines = ["# Options", "",
                     "Every option of every command, written by `make docs` from the declarations the command line, `--help`,",
                     "job files and `Schemas/jobs.schema.json` are read by (a test fails when this file differs: do not edit it).",
                     "A job option is also a job file's key, without the dashes.", "", "| command | usage |", "| --- | --- |"]
        var rows: [(key: String, cells: [String], commands: [String])] = []
        for c in commands {
            guard let described = c.job as? any DescribedJob.Type else { continue }
            let inputs = described.declarations.filter { $0.form == .positional }
            var line = usage(described, inputs: inputs)
            if c.name != described.kind { line = "mixwrite \(c.name)" + line.dropFirst("mixwrite".count) }
            lines.append("| `\(c.name)` | `\(line)`: \(c.abstract) |")
            for (d, isOwn) in described.declarations.filter({ $0.form != .positional }).map({ ($0, false) }) + c.own.map({ ($0, true) }) {
                let cells = reference(d, isOwn: isOwn)
                let key = cells.joined(separator: "|")
                if let i = rows.firstIndex(where: { $0.key == key }) { rows[i].commands.append(c.name) } else {
                    rows.append((key, cells, [c.name]))
                }
            }
        }
        lines += ["", "| option | value | default | commands | what it does |", "| --- | --- | --- | --- | --- |"]
        lines += rows.map { r in
            let all = r.commands.count == commands.count ? "all" : r.commands.joined(separator: ", ")
            return "| " + ([r.cells[0], r.cells[1], r.cells[2], all, r.cells[3]]).joined(separator: " | ") + " |"
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One option's cells in the reference: its name (`-o, --output`), value, default and help (a command's own
    /// option marked so).
    static func reference(_ d: OptionDeclaration, isOwn: Bool) -> [String] {
        let name = d.shownNames.map { "`\($0)`" }.joined(separator: ", ")
        var value = d.shownValue.map { "`\($0)`" } ?? ""
        if let range = d.shape.range { value += " \(JobOption<Int>.format(range.lowerBound))…\(JobOption<Int>.format(range.upperBound))" }
        if let unit = d.shape.unit { value += " \(unit)" }
        var shownDefault = ""
        if case .flag = d.shape { shownDefault = "off" } else if let v = d.defaultValue { shownDefault = "`\(v.shownText)`" }
        let help = (isOwn ? "(the command's, not a job file's) " : "") + d.help
        return [name, value, shownDefault, help].map { $0.replacingOccurrences(of: "|", with: "\\|") }
    }

    /// Lines of at most `width` characters, broken between words.
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }

    static func usage(_ described: any DescribedJob.Type, inputs: [OptionDeclaration]) -> String {
        let output = described.declarations.first { $0.name == "output" }.map { _ in " -o OUTPUT" } ?? ""
        return (described.command + inputs.map(\.shownInput)).joined(separator: " ") + output + " [options]"
    }
}

extension OptionDeclaration {
    /// Its names as the help shows them: `-o` and `--output`, or `--size` alone.
    var shownNames: [String] {
        if case .short(let s) = form { return [s, "--" + commandName] }
        return ["--" + commandName]
    }

    /// An input as the usage line shows it: `FX`, `CLIP...`.
    var shownInput: String {
        let n = valueName ?? name.uppercased()
        if case .paths = shape { return n + "..." }
        return n
    }
}

extension JobValue {
    /// A default as the help shows it.
    var shownText: String {
        switch self {
        case .flag: return "on"
        case .number(let x): return JobOption<Int>.format(x)
        case .text(let s), .path(let s): return s
        case .texts(let l), .paths(let l): return l.joined(separator: ", ")
        case .pairs(let p, let w): return (p.map { "\($0.key)=\($0.value)" } + w.map { "\($0.key)=\($0.value)" }).sorted().joined(separator: ", ")
        case .events, .layers: return "none"
        }
    }
}

extension DescribedJob {
    static var declarations: [OptionDeclaration] { options.map(\.declaration) }
}

/// The words of a command line, sorted into the job's entry (JSON values by each option's shape) and the
/// command's own options.
struct WordReader {
    let job: [OptionDeclaration]
    let own: [OptionDeclaration]
    var values: [String: Any] = [:]
    var ownValues: [String: [String]] = [:]
    /// Each option's words as given, for messages.
    var given: [String: String] = [:]
    var positionals: [String] = []

    init(job: [OptionDeclaration], own: [OptionDeclaration]) {
        (self.job, self.own) = (job, own)
    }

    func declaration(_ word: String) -> (OptionDeclaration, isOwn: Bool)? {
        for (list, isOwn) in [(job, false), (own, true)] {
            if let d = list.first(where: { "--" + $0.commandName == word || $0.form == .short(word) }) { return (d, isOwn) }
        }
        return nil
    }

    mutating func read(_ words: [String]) throws(MixWriteError) {
        var i = 0
        while i < words.count {
            let word = words[i]
            i += 1
            if word == "--" { positionals += words[i...]; break }
            guard word.hasPrefix("-"), word.count > 1, Double(word) == nil else { positionals.append(word); continue }
            var name = word, inline: String?
            if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
                (name, inline) = (String(word[..<eq]), String(word[word.index(after: eq)...]))
            }
            if !word.hasPrefix("--"), word.count > 2, let cluster = shortCluster(word) {
                for d in cluster { try take(d, "true", isOwn: declaration(shortName(d))?.isOwn ?? false) }
                continue
            }
            guard let (d, isOwn) = declaration(name) else {
                let names = (job + own).filter { $0.form != .positional }.map { "--" + $0.commandName }
                throw .usage("unknown option '\(name)'" + OptionValue.didYouMean(name, in: names))
            }
            if !d.shape.takesValue {
                guard inline == nil else { throw .usage("\(name) takes no value") }
                try take(d, "true", isOwn: isOwn)
                continue
            }
            guard let value = inline ?? (i < words.count ? words[i] : nil) else { throw .usage("\(name) needs a value") }
            if inline == nil { i += 1 }
            try take(d, value, isOwn: isOwn)
        }
    }

    func shortName(_ d: OptionDeclaration) -> String {
        if case .short(let s) = d.form { return s }
        return "--" + d.name
    }

    /// `-yq`: every letter a known short flag; nil otherwise.
    func shortCluster(_ word: String) -> [OptionDeclaration]? {
        let found = word.dropFirst().map { c in declaration("-" + String(c))?.0 }
        guard found.allSatisfy({ $0.map { !$0.shape.takesValue } ?? false }) else { return nil }
        return found.compactMap { $0 }
    }

    mutating func take(_ d: OptionDeclaration, _ text: String, isOwn: Bool) throws(MixWriteError) {
        if isOwn { ownValues[d.name, default: []].append(text); return }
        given[d.name] = d.shape.repeatable ? nil : text
        let name = "--" + d.commandName
        switch d.shape {
        case .flag: values[d.name] = true
        case .number(_, let unit):
            guard let x = Double(text), x.isFinite else {
                throw .usage("\(name) '\(text)' is not a number" + (unit.map { " (\($0))" } ?? ""))
            }
            values[d.name] = x
        case .integer:
            guard let n = Int(text) else { throw .usage("\(name) '\(text)' is not a whole number") }
            values[d.name] = n
        case .text, .choice, .path, .events, .rect: values[d.name] = text
        case .layers(let options): values[d.name] = (values[d.name] as? [[String: Any]] ?? []) + [try Self.object(text, options, name)]
        case .texts, .paths: values[d.name] = (values[d.name] as? [String] ?? []) + [text]
        case .pairs(_, _, let bare, let word):
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            var pairs = values[d.name] as? [String: Any] ?? [:]
            if parts.count == 1, let bare, !parts[0].isEmpty {
                pairs[parts[0]] = bare
            } else if parts.count == 2, !parts[0].isEmpty, let word, parts[1] == word {
                pairs[parts[0]] = word
            } else {
                guard parts.count == 2, !parts[0].isEmpty, let v = Double(parts[1]), v.isFinite else {
                    throw .usage("\(name) '\(text)' is not SOURCE=NUMBER (e.g. fx=\(d.shape.unit == "seconds" ? "1.5" : "-6"))"
                                 + (word.map { " or SOURCE=\($0)" } ?? ""))
                }
                pairs[parts[0]] = v
            }
            values[d.name] = pairs
        }
    }

    /// One object of a `.layers` option from its word: the first option's value (a file), then `NAME=VALUE` (or a
    /// flag's `NAME`) after each colon. The file ends at the first colon followed by one of the names, so a colon
    /// in a file's name stays in it.
    static func object(_ text: String, _ options: [OptionDeclaration], _ name: String) throws(MixWriteError) -> [String: Any] {
        guard let first = options.first else { return [:] }
        let names = options.dropFirst().map(\.name)
        // A known name, or any NAME= of lowercase letters and dashes (so a misspelt option is refused, not read as
        // part of the file's name).
        func startsOption(_ rest: Substring) -> Bool {
            if names.contains(where: { rest == $0 || rest.hasPrefix($0 + ":") }) { return true }
            guard let eq = rest.firstIndex(of: "="), eq > rest.startIndex else { return false }
            return rest[..<eq].allSatisfy { ($0.isLetter && $0.isLowercase) || $0 == "-" }
        }
        var cut = text.endIndex
        var i = text.startIndex
        while let colon = text[i...].firstIndex(of: ":") {
            if startsOption(text[text.index(after: colon)...]) { cut = colon; break }
            i = text.index(after: colon)
        }
        let file = String(text[..<cut])
        guard !file.isEmpty else { throw .usage("\(name) '\(text)': no file before the options (FILE:NAME=VALUE...)") }
        var reader = WordReader(job: Array(options.dropFirst()), own: [])
        reader.values[first.name] = file
        if cut < text.endIndex {
            for item in text[text.index(after: cut)...].split(separator: ":", omittingEmptySubsequences: false) {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard let key = parts.first, let d = options.dropFirst().first(where: { $0.name == key }) else {
                    let meant = parts.first.map { OptionValue.didYouMean($0, in: Array(names)) } ?? ""
                    throw .usage("\(name) '\(text)': '\(item)' is not NAME=VALUE with NAME one of \(names.joined(separator: ", "))\(meant)")
                }
                if case .flag = d.shape {
                    guard parts.count == 1 || ["true", "1"].contains(parts[1]) else { throw .usage("\(name) '\(text)': \(key) takes no value") }
                    reader.values[key] = true
                    continue
                }
                guard parts.count == 2 else { throw .usage("\(name) '\(text)': \(key) needs a value (\(key)=...)") }
                do { try reader.take(d, parts[1], isOwn: false) } catch { throw .usage("\(name) '\(text)': \(error.description)") }
            }
        }
        return reader.values
    }

    /// The job-file entry: the named values, then the inputs in their places (a list takes the rest).
    func entry() throws(MixWriteError) -> [String: Any] {
        var entry = values
        var rest = positionals[...]
        // An input that may be left out (a blend's FX, when --layer gives every layer) takes a word only when there
        // are more words than the inputs that must be there.
        let must = job.filter { $0.form == .positional && $0.required }.count
        var spare = positionals.count - must
        for d in job where d.form == .positional {
            if !d.required {
                guard spare > 0 else { continue }
                spare -= 1
            }
            if case .paths = d.shape {
                if !rest.isEmpty { entry[d.name] = Array(rest) }
                rest = []
            } else if let first = rest.first {
                entry[d.name] = first
                rest = rest.dropFirst()
            }
        }
        if let extra = rest.first { throw .usage("unexpected argument '\(extra)'") }
        for d in job where d.required && entry[d.name] == nil {
            if case .short(let s) = d.form { throw .usage("missing \(s) \(d.name.uppercased())") }
            throw .usage("missing \(d.shownInput)")
        }
        return entry
    }
}
