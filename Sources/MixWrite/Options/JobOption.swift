import Foundation
import FFmpegSupport

/// One option of a job, declared once: its long name (the command line's `--name` and the job file's key), the
/// shape of its value, its help and its default, how a job file's (or the command line's) value is read into the
/// job, and what is written back when it is not at its default. A job's `Codable` (the job-file entry), its
/// command line (parsed by `CommandWords`, and its `--help`), the range checks of its `validate()`, its
/// `commandWords` and `jobEntry`, and `Schemas/jobs.schema.json` (`JobSchema`) all come from its list of these.
struct JobOption<Job> {
    var declaration: OptionDeclaration
    var read: (inout Job, OptionInput) throws(JobProblem) -> Void
    /// nil: at its default, left out.
    var write: (Job) -> JobValue?

    var name: String { declaration.name }

    init(_ declaration: OptionDeclaration, read: @escaping (inout Job, OptionInput) throws(JobProblem) -> Void,
         write: @escaping (Job) -> JobValue?) {
        self.declaration = declaration
        self.read = read
        self.write = write
    }

    /// The same option on a job that holds this one's (`\BlendJob.audio`).
    func lifted<Outer>(_ path: WritableKeyPath<Outer, Job>) -> JobOption<Outer> {
        let (read, write) = (self.read, self.write)
        return JobOption<Outer>(declaration, read: { (outer, input) throws(JobProblem) in try read(&outer[keyPath: path], input) },
                                write: { write($0[keyPath: path]) })
    }

    /// A value outside the declared range, refused as the command line would write it (`--crf 60: …`).
    func checkRange(_ job: Job) throws(MixWriteError) {
        guard let range = declaration.shape.range, let value = write(job) else { return }
        let unit = declaration.shape.unit.map { " " + $0 } ?? ""
        let bounds = "must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))\(unit)"
        switch value {
        case .number(let x) where !range.contains(x):
            throw .usage("--\(name) \(Self.format(x)): \(bounds)")
        case .pairs(let pairs, _):
            for (k, x) in pairs.sorted(by: { $0.key < $1.key }) where !range.contains(x) {
                throw .usage("--\(name) \(k)=\(Self.format(x)): \(bounds)")
            }
        default: return
        }
    }

    static func format(_ x: Double) -> String { NumberText.shortest(x) }
}

extension Array {
    /// Every declared range of a group's or a job's options, checked.
    func checkRanges<Job>(_ job: Job) throws(MixWriteError) where Element == JobOption<Job> {
        for o in self { try o.checkRange(job) }
    }
}

/// An option as the command line, its help and the job file's schema see it, whatever job holds it. The command
/// line declares its own options (`--json`, `--frame`, `--tune` …) the same way.
@_spi(Tools)
public struct OptionDeclaration: Sendable {
    public var name: String
    public var form: OptionForm
    /// A job file must give it (a job's inputs and output).
    public var required: Bool
    public var shape: OptionShape
    public var help: String
    /// The value's name in the help (`--size WxH`); nil: from the shape.
    public var valueName: String?
    /// Its default as a job file writes it; nil: none, or decided from the inputs (the help says which).
    public var defaultValue: JobValue?
    /// Its name on the command line when not the rule's (`--captions`, a list one a word kept plural as users write it).
    public var commandWord: String?

    public init(_ name: String, _ shape: OptionShape, form: OptionForm = .named, required: Bool = false,
                valueName: String? = nil, default value: JobValue? = nil, commandWord: String? = nil, help: String) {
        self.commandWord = commandWord
        self.name = name
        self.form = form
        self.required = required
        self.shape = shape
        self.help = help
        self.valueName = valueName
        self.defaultValue = value
    }

    /// Its name on the command line: the job file's key, but a list of objects one a word under the singular
    /// (`--layer` for `layers`).
    public var commandName: String {
        if let commandWord { return commandWord }
        if case .layers = shape, name.hasSuffix("s") { return String(name.dropLast()) }
        return name
    }

    /// The help's name of the value: `S`, `WxH`, `SOURCE=DB`; nil for a flag.
    public var shownValue: String? {
        if let valueName { return valueName }
        switch shape {
        case .flag: return nil
        case .number, .integer: return "N"
        case .choice(let values): return values.joined(separator: "|")
        case .text, .texts: return "TEXT"
        case .pairs: return "SOURCE=N"
        case .path, .paths, .events: return name.uppercased()
        case .rect: return "X,Y,W,H"
        case .layers: return "SPEC"
        }
    }
}

/// How an option is written on the command line: `--name VALUE`, in its place among the inputs, or `-o VALUE`
/// (also `--name VALUE`).
@_spi(Tools)
public enum OptionForm: Sendable, Equatable { case named, positional, short(String) }

/// What an option's value is: how the command line reads it, how its range is checked, what the schema says.
@_spi(Tools)
public enum OptionShape: Sendable {
    /// `--name`; `true`.
    case flag
    /// A number within `range` (nil: any finite one), in `unit` (seconds, dB …).
    case number(ClosedRange<Double>?, unit: String?)
    case integer(ClosedRange<Double>?)
    /// Text matching `pattern` (a JSON Schema regex); `orNumber`: a job file may give it as a number (`30`, `192000`).
    case text(pattern: String?, orNumber: Bool)
    case choice([String])
    /// `--name K=V`, repeatable; `{"K": V}`. `bare`: `--name K` alone means `K=bare` (a job file may give a list).
    /// `word`: V may be this word instead of a number (`--offset lav=auto`).
    case pairs(ClosedRange<Double>?, unit: String?, bare: Double?, word: String? = nil)
    /// `--name A --name B`; `["A", "B"]` or one string.
    case texts
    /// A file (an input or the output), made absolute when written back.
    case path
    /// Files: repeatable, or the inputs in their place.
    case paths
    /// Only a job file holds them as values (the command line gives a file): concat's events.
    case events
    /// A rectangle in pixels: `X,Y,W,H` on the command line, `[x, y, w, h]` (or the text) in a job file.
    case rect
    /// Objects of these options: a job file's array of them; on the command line one a word, repeatable, under the
    /// singular name (`--layer FILE:at=2:place=0,0,640,360`: the first option's value, then `NAME=VALUE`s after colons).
    case layers([OptionDeclaration])

    var range: ClosedRange<Double>? {
        switch self {
        case .number(let r, _), .integer(let r), .pairs(let r, _, _, _): return r
        default: return nil
        }
    }

    var unit: String? {
        switch self {
        case .number(_, let u), .pairs(_, let u, _, _): return u
        default: return nil
        }
    }

    /// One value a word on the command line (a flag takes none).
    var takesValue: Bool { if case .flag = self { return false } else { return true } }

    /// Given again on the command line, it adds to the list (else the last one wins).
    var repeatable: Bool {
        switch self {
        case .pairs, .texts, .paths, .layers: return true
        default: return false
        }
    }
}

/// An option's value as both the command line and a job file write it.
@_spi(Tools)
public enum JobValue: Sendable {
    /// `--name`; `true`.
    case flag
    /// `--name 0.5`; `0.5`.
    case number(Double)
    /// `--name TEXT`; `"TEXT"`.
    case text(String)
    /// `--name PATH`; the path made absolute.
    case path(String)
    /// `--name A --name B`; `["A", "B"]`.
    case texts([String])
    case paths([String])
    /// `--name K=V` a pair; `{"K": V}`; `words`: the pairs whose V is a word (`auto`).
    case pairs([String: Double], words: [String: String] = [:])
    /// Only in a job file (the command line takes them from a file): concat's events.
    case events([ClipEvent])
    /// Objects, each its options' values not at their defaults, in their order (a blend's layers).
    case layers([[(name: String, value: JobValue)]])
}

// MARK: - Options by the kind of value

extension JobOption {
    static func flag(_ name: String, _ path: WritableKeyPath<Job, Bool>, form: OptionForm = .named, help: String) -> Self {
        Self(OptionDeclaration(name, .flag, form: form, help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value("must be true or false") },
             write: { $0[keyPath: path] ? .flag : nil })
    }

    static func number(_ name: String, _ path: WritableKeyPath<Job, Double>, default value: Double, _ range: ClosedRange<Double>?,
                       unit: String? = nil, valueName: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name, .number(range, unit: unit), valueName: valueName, default: .number(value), help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value(Self.what(unit)) },
             write: { $0[keyPath: path] == value ? nil : .number($0[keyPath: path]) })
    }

    static func number(_ name: String, _ path: WritableKeyPath<Job, Double?>, _ range: ClosedRange<Double>?,
                       unit: String? = nil, valueName: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name, .number(range, unit: unit), valueName: valueName, help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value(Self.what(unit)) as Double },
             write: { $0[keyPath: path].map { .number($0) } })
    }

    /// A number that may be left unset, whose value then is `value` (the declared default); given as that value it is
    /// not written back.
    static func number(_ name: String, _ path: WritableKeyPath<Job, Double?>, default value: Double, _ range: ClosedRange<Double>?,
                       unit: String? = nil, valueName: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name, .number(range, unit: unit), valueName: valueName, default: .number(value), help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value(Self.what(unit)) as Double },
             write: { $0[keyPath: path].flatMap { $0 == value ? nil : .number($0) } })
    }

    static func what(_ unit: String?) -> String { "must be a number" + (unit.map { " (\($0))" } ?? "") }

    static func integer(_ name: String, _ path: WritableKeyPath<Job, Int>, default value: Int, _ range: ClosedRange<Double>?,
                        valueName: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name, .integer(range), valueName: valueName, default: .number(Double(value)), help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value("must be a whole number") },
             write: { $0[keyPath: path] == value ? nil : .number(Double($0[keyPath: path])) })
    }

    static func integer(_ name: String, _ path: WritableKeyPath<Job, Int?>, _ range: ClosedRange<Double>?, valueName: String? = nil,
                        help: String) -> Self {
        Self(OptionDeclaration(name, .integer(range), valueName: valueName, help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value("must be a whole number") as Int },
             write: { $0[keyPath: path].map { .number(Double($0)) } })
    }

    static func text(_ name: String, _ path: WritableKeyPath<Job, String>, default value: String, help: String) -> Self {
        Self(OptionDeclaration(name, .text(pattern: nil, orNumber: false), default: .text(value), help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value("must be a string") },
             write: { $0[keyPath: path] == value ? nil : .text($0[keyPath: path]) })
    }

    static func choice<T: RawRepresentable & CaseIterable & Equatable>(_ name: String, _ path: WritableKeyPath<Job, T>,
                                                                       default value: T, help: String) -> Self where T.RawValue == String {
        Self(OptionDeclaration(name, .choice(T.allCases.map(\.rawValue)), default: .text(value.rawValue), help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.choice() },
             write: { $0[keyPath: path] == value ? nil : .text($0[keyPath: path].rawValue) })
    }

    /// A choice that may be left unset (nil: a default decided later, such as the container's codec); `only`: the
    /// values this kind of job takes, when not every case (the help and the schema list those alone), `why` the others
    /// are not.
    static func choice<T: RawRepresentable & CaseIterable & Equatable>(_ name: String, _ path: WritableKeyPath<Job, T?>, only: [T]? = nil,
                                                                       why: String? = nil, help: String) -> Self where T.RawValue == String {
        let values = only ?? Array(T.allCases)
        return Self(OptionDeclaration(name, .choice(values.map(\.rawValue)), help: help),
                    read: { (job, input) throws(JobProblem) in
                        let value: T = try input.choice()
                        guard values.contains(value) else {
                            throw input.problem((why.map { $0 + "; " } ?? "") + "one of \(values.map(\.rawValue).joined(separator: ", "))")
                        }
                        job[keyPath: path] = value
                    },
                    write: { $0[keyPath: path].map { .text($0.rawValue) } })
    }

    static func pairs(_ name: String, _ path: WritableKeyPath<Job, [String: Double]>, _ range: ClosedRange<Double>?, unit: String,
                      help: String) -> Self {
        Self(OptionDeclaration(name, .pairs(range, unit: unit, bare: nil), valueName: "SOURCE=\(unit == "seconds" ? "S" : "DB")", help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.value("must be an object of numbers like {\"fx\": 1.5}") },
             write: { $0[keyPath: path].isEmpty ? nil : .pairs($0[keyPath: path]) })
    }

    /// `hdr`: `sdr` (false) or `keep` (true).
    static func hdr(_ path: WritableKeyPath<Job, Bool>, help: String) -> Self {
        Self(OptionDeclaration("hdr", .choice(["sdr", "keep"]), default: .text("sdr"), help: help),
             read: { (job, input) throws(JobProblem) in
                 let text: String = try input.value("must be \"sdr\" or \"keep\"")
                 guard text == "sdr" || text == "keep" else { throw input.problem("'\(text)' is not one of sdr, keep") }
                 job[keyPath: path] = text == "keep"
             }, write: { $0[keyPath: path] ? .text("keep") : nil })
    }

    static func texts(_ name: String, _ path: WritableKeyPath<Job, [String]>, valueName: String, help: String) -> Self {
        Self(OptionDeclaration(name, .texts, valueName: valueName, help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.texts() },
             write: { $0[keyPath: path].isEmpty ? nil : .texts($0[keyPath: path].sorted()) })
    }

    /// An input or output file.
    static func path(_ name: String, _ path: WritableKeyPath<Job, String>, form: OptionForm = .positional, required: Bool = true,
                     help: String) -> Self {
        Self(OptionDeclaration(name, .path, form: form, required: required, help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.path() },
             write: { .path($0[keyPath: path]) })
    }

    /// A list of objects (a blend's layers, the caption files): a job file's array of objects, each read by `options`
    /// into a copy of `blank`; on the command line one word an object, `FILE[:NAME=VALUE]...`, repeatable. `label`
    /// names an object in a message by its index.
    static func objects<T>(_ name: String, _ path: WritableKeyPath<Job, [T]>, blank: T, options: [JobOption<T>], commandWord: String? = nil,
                           label: @escaping @Sendable (Int) -> String, help: String) -> Self {
        Self(OptionDeclaration(name, .layers(options.map(\.declaration)), valueName: "FILE[:NAME=VALUE...]", commandWord: commandWord, help: help),
             read: { (job, input) throws(JobProblem) in job[keyPath: path] = try input.objects(blank, options, label: label) },
             write: { job in
                 job[keyPath: path].isEmpty ? nil : .layers(job[keyPath: path].map { object in
                     options.compactMap { o in o.write(object).map { (o.name, $0) } }
                 })
             })
    }

    /// Input files; `required`: at least one.
    static func paths(_ name: String, _ path: WritableKeyPath<Job, [String]>, form: OptionForm = .named, required: Bool = false,
                      valueName: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name, .paths, form: form, required: required, valueName: valueName, help: help),
             read: { (job, input) throws(JobProblem) in
                 let list = try input.paths()
                 if required && list.isEmpty { throw input.problem("is missing") }
                 job[keyPath: path] = list
             }, write: { $0[keyPath: path].isEmpty ? nil : .paths($0[keyPath: path]) })
    }
}
