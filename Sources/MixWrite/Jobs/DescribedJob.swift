import Foundation
import FFmpegSupport

/// A job kind's description: its name, its command, its options.
protocol DescribedJob: PlannedJob {
    static var kind: String { get }
    /// The command's first words: `mixwrite` or `mixwrite concat`.
    static var command: [String] { get }
    /// What the kind does, in a line (the command's help and the list of commands), and a command that runs one.
    static var abstract: String { get }
    static var example: String { get }
    static var options: [JobOption<Self>] { get }
    /// The job before a job file's keys are read (the required ones then set every input).
    static var blank: Self { get }
    /// x264's threads, which a batch gives each job.
    mutating func useThreads(_ threads: Int)
}

extension DescribedJob {
    public var kind: String { Self.kind }

    /// Every option that is not at its default, in the description's order.
    var values: [(option: JobOption<Self>, value: JobValue)] {
        Self.options.compactMap { o in o.write(self).map { (o, $0) } }
    }

    /// A job file's entry, read through the description: an unknown key, a missing input or a value of the wrong
    /// shape is a `JobProblem` naming the job's index and the key.
    init(describedBy decoder: any Swift.Decoder) throws {
        let index = decoder.codingPath.last?.intValue
        let c: KeyedDecodingContainer<JobKey>
        do { c = try decoder.container(keyedBy: JobKey.self) } catch {
            throw JobProblem(index: index, key: nil, what: "must be an object")
        }
        let context = decoder.userInfo[JobContext.key] as? JobContext ?? JobContext(folder: nil, threads: 0)
        try c.refuseUnknown(Self.options.map(\.name) + ["kind"], of: "a \(Self.kind) job", index: index)
        if let kind = try? c.decode(String.self, forKey: JobKey("kind")), kind != Self.kind {
            throw JobProblem(index: index, key: "kind", what: "is '\(kind)', not \(Self.kind)")
        }
        var job = Self.blank
        try Self.options.read(into: &job, from: c, index: index, context: context)
        job.useThreads(context.threads)
        self = job
    }

    /// The job-file entry: `kind` and every option not at its default, paths made absolute.
    func encodeDescription(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: JobKey.self)
        try c.encode(Self.kind, forKey: JobKey("kind"))
        for (o, value) in values { try value.encode(in: &c, forKey: JobKey(o.name)) }
    }
}

extension JobValue {
    /// The value under `key` of a job-file entry (or of one of its objects: a blend's layers), paths made absolute.
    func encode(in c: inout KeyedEncodingContainer<JobKey>, forKey key: JobKey) throws {
        switch self {
        case .flag: try c.encode(true, forKey: key)
        case .number(let x): try c.encode(x, forKey: key)
        case .text(let s): try c.encode(s, forKey: key)
        case .path(let p): try c.encode(JobText.absolute(p), forKey: key)
        case .texts(let list): try c.encode(list, forKey: key)
        case .paths(let list): try c.encode(list.map(JobText.absolute), forKey: key)
        case .pairs(let pairs, let words):
            var o = c.nestedContainer(keyedBy: JobKey.self, forKey: key)
            for (k, x) in pairs { try o.encode(x, forKey: JobKey(k)) }
            for (k, w) in words { try o.encode(w, forKey: JobKey(k)) }
        case .events(let events): try c.encode(events, forKey: key)
        case .layers(let objects):
            var list = c.nestedUnkeyedContainer(forKey: key)
            for object in objects {
                var o = list.nestedContainer(keyedBy: JobKey.self)
                for (name, value) in object { try value.encode(in: &o, forKey: JobKey(name)) }
            }
        }
    }
}

extension Array {
    /// Every option's value in `c` read into `value`; a required one missing is a problem naming it. The keys `c`
    /// may hold are checked by the caller (a job's entry also holds `kind`).
    func read<T>(into value: inout T, from c: KeyedDecodingContainer<JobKey>, index: Int?,
                 context: JobContext) throws(JobProblem) where Element == JobOption<T> {
        for o in self {
            let input = OptionInput(container: c, name: o.name, index: index, context: context)
            if c.contains(JobKey(o.name)) {
                try o.read(&value, input)
            } else if o.declaration.required {
                throw input.problem("is missing")
            }
        }
    }
}


extension MixJob {
    /// The job with `entry`'s options (some of a job file's keys, as JSON) read over its own by the job file's reader:
    /// how the tuning page's changes reach a job. A key the kind does not have, or a value its option refuses, is a
    /// usage error naming it.
    @_spi(Tools) public func applying(_ entry: [String: Any]) throws(MixWriteError) -> Self {
        guard let described = self as? any DescribedJob else { return self }
        return try described.overlaid(entry) as! Self
    }

    /// Every option of the job's kind as the job file's schema describes it (type, range, default, help), by name in
    /// the declarations' order: what the tuning page builds its frame and mix controls from.
    @_spi(Tools) public var optionSchema: String {
        guard let described = self as? any DescribedJob else { return "{}" }
        return described.kindOptionSchema
    }
}

extension DescribedJob {
    fileprivate var kindOptionSchema: String { JobSchema.properties(Self.declarations) }
}

extension DescribedJob {
    fileprivate func overlaid(_ entry: [String: Any]) throws(MixWriteError) -> Self {
        let data: Data
        do { data = try JSONSerialization.data(withJSONObject: entry) } catch { throw .usage("the settings are not JSON: \(error)") }
        let decoder = JSONDecoder()
        decoder.userInfo[Overlay<Self>.base] = self
        do { return try decoder.decode(Overlay<Self>.self, from: data).job } catch let p as JobProblem {
            throw .usage(p.description)
        } catch {
            throw .usage("the settings are not a job's options: \(error)")
        }
    }
}

/// A job with some of its options read over it (`MixJob.applying`).
private struct Overlay<J: DescribedJob>: Decodable {
    static var base: CodingUserInfoKey { CodingUserInfoKey(rawValue: "mixwrite.overlay-base")! }
    var job: J

    init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: JobKey.self)
        try c.refuseUnknown(J.options.map(\.name), of: "a \(J.kind) job", index: nil)
        job = decoder.userInfo[Self.base] as? J ?? J.blank
        // The options given, each by its reader (what is not given stays the job's: none is missing).
        try J.options.filter { c.contains(JobKey($0.name)) }.read(into: &job, from: c, index: nil, context: JobContext(folder: nil, threads: 0))
    }
}
