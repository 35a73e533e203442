import Foundation
import FFmpegSupport

/// A job file for `mixwrite batch`: `{"jobs": [ {"kind": "blend"|"concat"|"still"|"remix", "output": PATH, …} ]}`.
/// Inputs go under `fx`, `base`, `clips`, `image`, `audio`, `movie`; every command-line option under its long
/// name (`"threshold": 0.35`, `"size": "640x640"`, `"gain": {"fx": -6}`). Relative paths are relative to the
/// job file's folder. The whole file is decoded (`Decodable`, by `JSONDecoder`) and checked before any job runs.
public struct JobFile: Sendable {
    public struct Entry: Sendable {
        /// 0-based place in the file.
        public var index: Int
        public var kind: String
        public var output: String
        public var job: any MixJob
    }

    public var path: String
    public var entries: [Entry]

    /// Reads and checks the whole file; the first problem is reported with the job's index and the key.
    public init(path: String, threads: Int = 0) throws(MixWriteError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .input(file: path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        let decoder = JSONDecoder()
        decoder.userInfo[JobContext.key] = JobContext(folder: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                      threads: threads)
        let root: Root
        do { root = try decoder.decode(Root.self, from: data) } catch let problem as JobProblem {
            throw .input(file: path, problem.description)
        } catch {
            throw .input(file: path, "is not JSON (\(error.localizedDescription))")
        }
        entries = root.jobs.map(\.entry)
        let outputs = entries.map(\.output)
        if let dup = outputs.enumerated().first(where: { outputs.firstIndex(of: $0.element) != $0.offset }) {
            throw .input(file: path, "job \(dup.offset): output \(dup.element) is also the output of job \(outputs.firstIndex(of: dup.element)!)")
        }
    }

    /// The entries of share `k` of `n` (1-based): contiguous, equal to within one job, together all of them once.
    public func shard(_ k: Int, of n: Int) -> [Entry] {
        let m = entries.count
        return Array(entries[(k - 1) * m / n ..< k * m / n])
    }

    /// `{"jobs": [...]}`, and `$schema` for editors; nothing else.
    private struct Root: Decodable {
        var jobs: [Job]

        init(from decoder: any Swift.Decoder) throws {
            let shape = JobProblem(index: nil, key: nil, what: "must be an object with a \"jobs\" array")
            let c: KeyedDecodingContainer<JobKey>
            do { c = try decoder.container(keyedBy: JobKey.self) } catch { throw shape }
            if let extra = c.allKeys.first(where: { $0.stringValue != "jobs" && $0.stringValue != "$schema" }) {
                throw JobProblem(index: nil, key: nil, what: "unknown top-level key '\(extra.stringValue)' (only \"jobs\")")
            }
            var list: UnkeyedDecodingContainer
            do { list = try c.nestedUnkeyedContainer(forKey: JobKey("jobs")) } catch { throw shape }
            var jobs: [Job] = []
            while !list.isAtEnd {
                let i = list.currentIndex
                do { jobs.append(try list.decode(Job.self)) } catch let e as JobProblem { throw e } catch {
                    throw JobProblem(index: i, key: nil, what: "must be an object")
                }
            }
            self.jobs = jobs
        }
    }

    /// One job, decoded by the kind it names.
    private struct Job: Decodable {
        var entry: Entry

        init(from decoder: any Swift.Decoder) throws {
            let index = decoder.codingPath.last?.intValue ?? 0
            guard let context = decoder.userInfo[JobContext.key] as? JobContext else {
                throw JobProblem(index: index, key: nil, what: "cannot be read without its file's folder")
            }
            var keys = JobKeys(try decoder.container(keyedBy: JobKey.self), index: index, context: context)
            entry = try keys.entry()
            try keys.finish()
        }
    }
}

/// What a job file's decoding needs to know besides the JSON.
private struct JobContext: Sendable {
    static let key = CodingUserInfoKey(rawValue: "mixwrite.job-context")!
    var folder: String
    var threads: Int
}

/// A problem in a job file: which job, which key, what is wrong.
private struct JobProblem: Error, CustomStringConvertible {
    var index: Int?
    var key: String?
    var what: String

    var description: String {
        var s = index.map { "job \($0): " } ?? ""
        if let key { s += "'\(key)' " }
        return s + what
    }
}

private struct JobKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// One job's keys, read by their command-line names; remembers which were read, so that a misspelt key
/// is an error, not ignored.
private struct JobKeys {
    let c: KeyedDecodingContainer<JobKey>
    let index: Int
    let context: JobContext
    var used: Set<String> = ["kind"]

    init(_ c: KeyedDecodingContainer<JobKey>, index: Int, context: JobContext) {
        self.c = c; self.index = index; self.context = context
    }

    func problem(_ key: String, _ what: String) -> JobProblem { JobProblem(index: index, key: key, what: what) }

    /// The value under `key` as a `T`, nil when absent; `what` says what it must be when it is not a `T`.
    mutating func value<T: Decodable>(_ key: String, _ what: String) throws(JobProblem) -> T? {
        used.insert(key)
        guard c.contains(JobKey(key)) else { return nil }
        do { return try c.decode(T.self, forKey: JobKey(key)) } catch { throw problem(key, what) }
    }

    /// A value that may be given either way (a path or a list, a number or a text).
    mutating func either<A: Decodable, B: Decodable>(_ key: String, _ a: A.Type, _ b: B.Type, _ what: String) throws(JobProblem) -> Either<A, B>? {
        used.insert(key)
        guard c.contains(JobKey(key)) else { return nil }
        if let v = try? c.decode(A.self, forKey: JobKey(key)) { return .first(v) }
        if let v = try? c.decode(B.self, forKey: JobKey(key)) { return .second(v) }
        throw problem(key, what)
    }

    enum Either<A, B> { case first(A), second(B) }

    mutating func required(_ key: String) throws(JobProblem) -> String {
        guard let s: String = try value(key, "must be a string") else { throw problem(key, "is missing") }
        return s
    }

    func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : context.folder + "/" + p }

    mutating func paths(_ key: String) throws(JobProblem) -> [String]? {
        switch try either(key, String.self, [String].self, "must be a path or an array of paths") {
        case .first(let s): return [resolve(s)]
        case .second(let a): return a.map(resolve)
        case nil: return nil
        }
    }

    mutating func choice<T: RawRepresentable>(_ key: String, _ type: T.Type) throws(JobProblem) -> T? where T.RawValue == String {
        guard let s: String = try value(key, "must be a string") else { return nil }
        guard let v = T(rawValue: s) else { throw problem(key, "'\(s)' is not one of the allowed values") }
        return v
    }

    mutating func color(_ key: String) throws(JobProblem) -> (r: Double, g: Double, b: Double)? {
        guard let s: String = try value(key, "must be RRGGBB") else { return nil }
        guard let rgb = OptionValue.color(s) else { throw problem(key, "must be RRGGBB") }
        return rgb
    }

    /// A number given as a number or as text ("30", "30000/1001", "192k").
    mutating func text(_ key: String, _ what: String) throws(JobProblem) -> String? {
        switch try either(key, String.self, Double.self, what) {
        case .first(let s): return s
        case .second(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case nil: return nil
        }
    }

    func finish() throws(JobProblem) {
        let kind = (try? c.decode(String.self, forKey: JobKey("kind"))) ?? ""
        if let unknown = c.allKeys.map(\.stringValue).sorted().first(where: { !used.contains($0) }) {
            throw problem(unknown, "is not an option of a \(kind) job")
        }
    }

    mutating func entry() throws(JobProblem) -> JobFile.Entry {
        guard let kind: String = try value("kind", "must be a string") else {
            throw problem("kind", "is missing (blend, concat, still or remix)")
        }
        let output = resolve(try required("output"))
        let job: any MixJob
        switch kind {
        case "blend": job = try blend(output: output)
        case "concat": job = try concat(output: output)
        case "still": job = try still(output: output)
        case "remix": job = try remix(output: output)
        default: throw problem("kind", "'\(kind)' is not blend, concat, still or remix")
        }
        return JobFile.Entry(index: index, kind: kind, output: output, job: job)
    }

    /// The keys every kind shares: overwrite, strict.
    mutating func common() throws(JobProblem) -> (overwrite: Bool, strict: Bool) {
        (try value("overwrite", "must be true or false") ?? false, try value("strict", "must be true or false") ?? false)
    }

    mutating func blend(output: String) throws(JobProblem) -> BlendJob {
        var j = BlendJob(fx: resolve(try required("fx")), base: resolve(try required("base")), output: output)
        j.audio = try audioOptions(files: try paths("audio") ?? [])
        try pictureKeys(&j)
        if let d = try choice("duration", DurationPolicy.self) { j.duration = d }
        if let k: String = try value("key-color", "must be RRGGBB or \"auto\""), k.lowercased() == "auto" {
            j.autoKeyColor = true
        } else if let k = try color("key-color") {
            j.key.keyColor = k
        }
        if let t: Double = try value("threshold", "must be a number") { j.key.threshold = t }
        if let s: Double = try value("smoothing", "must be a number") { j.key.smoothing = s }
        if let d: Bool = try value("despill", "must be true or false") { j.key.despill = d }
        let start: Double? = try value("start", "must be a number of seconds")
        let length: Double? = try value("length", "must be a number of seconds")
        if start != nil || length != nil {
            guard let from = MediaTime(seconds: start ?? 0) else { throw problem("start", "must be a number of seconds") }
            let span = try length.map { (x) throws(JobProblem) -> MediaTime in
                guard let t = MediaTime(seconds: x) else { throw problem("length", "must be a number of seconds") }
                return t
            }
            j.excerpt = .init(start: from, length: span)
        }
        (j.overwrite, j.strict) = try common()
        j.threads = context.threads
        return j
    }

    mutating func concat(output: String) throws(JobProblem) -> ConcatJob {
        guard let clips = try paths("clips"), !clips.isEmpty else { throw problem("clips", "is missing") }
        var j = ConcatJob(clips: clips, output: output)
        j.audio = try audioOptions(files: try paths("audio") ?? [])
        try pictureKeys(&j)
        if let e: Bool = try value("event-chapters", "must be true or false") { j.eventChapters = e }
        let eventsWhat = "must be an array of {\"clip\", \"time\", \"name\"} or the path of one"
        switch try either("events", [ClipEvent].self, String.self, eventsWhat) {
        case .first(let events): j.events = events
        case .second(let p):
            guard let data = FileManager.default.contents(atPath: resolve(p)),
                  let events = try? JSONDecoder().decode([ClipEvent].self, from: data) else { throw problem("events", eventsWhat) }
            j.events = events
        case nil: break
        }
        (j.overwrite, j.strict) = try common()
        j.threads = context.threads
        return j
    }

    mutating func still(output: String) throws(JobProblem) -> StillJob {
        guard let sounds = try paths("audio"), !sounds.isEmpty else { throw problem("audio", "is missing") }
        var j = StillJob(image: resolve(try required("image")), audioFiles: sounds, output: output)
        j.audio = try audioOptions(files: [])
        try pictureKeys(&j)
        if let b = try color("background") { j.background = [b.r, b.g, b.b] }
        (j.overwrite, j.strict) = try common()
        j.threads = context.threads
        return j
    }

    mutating func remix(output: String) throws(JobProblem) -> RemixJob {
        var j = RemixJob(movie: resolve(try required("movie")), output: output)
        j.audio = try audioOptions(files: try paths("audio") ?? [])
        (j.overwrite, j.strict) = try common()
        return j
    }

    /// The audio options every kind shares; `files` are the extra audio files (`audio`, except for still).
    mutating func audioOptions(files: [String]) throws(JobProblem) -> AudioOptions {
        var a = AudioOptions()
        a.files = files
        if let t = try choice("audio-tracks", AudioOptions.Tracks.self) { a.tracks = t }
        switch try either("mute", String.self, [String].self, "must be a string or an array of strings") {
        case .first(let s): a.mute = [s]
        case .second(let list): a.mute = list
        case nil: break
        }
        if let g: [String: Double] = try value("gain", "must be an object of numbers like {\"fx\": -6}") { a.gains = g }
        if let o: [String: Double] = try value("offset", "must be an object of numbers like {\"fx\": 1.5}") { a.offsets = o }
        if let m = try choice("mix", MixMode.self) { a.mode = m }
        a.channels = try value("channels", "must be a whole number")
        a.sampleRate = try value("sample-rate", "must be a whole number")
        if let text = try text("audio-bitrate", "must be a bit rate such as \"192k\"") {
            guard let n = OptionValue.bitRate(text) else { throw problem("audio-bitrate", "must be a bit rate such as \"192k\"") }
            a.bitRate = n
        }
        a.loudness = try value("loudness", "must be a number (LUFS), e.g. -16")
        a.truePeak = try value("true-peak", "must be a number (dBTP), e.g. -1")
        if let m: Bool = try value("level-match", "must be true or false") { a.levelMatch = m }
        switch try either("duck", [String: Double].self, [String].self, "must be an object like {\"audio1\": 15} or an array of sources") {
        case .first(let depths): a.duck = depths
        case .second(let names): a.duck = Dictionary(names.map { ($0, AudioOptions.defaultDuckDB) }, uniquingKeysWith: { x, _ in x })
        case nil: break
        }
        if let f: Double = try value("fade-in", "must be a number of seconds") { a.fadeIn = f }
        if let f: Double = try value("fade-out", "must be a number of seconds") { a.fadeOut = f }
        return a
    }

    /// The picture keys blend, concat and still share; absent keys keep the job's defaults.
    mutating func pictureKeys(_ job: inout some EncodedPictureJob) throws(JobProblem) {
        if let s: String = try value("size", "must be WIDTHxHEIGHT") {
            guard let size = OptionValue.size(s) else { throw problem("size", "must be WIDTHxHEIGHT") }
            (job.width, job.height) = (size.width, size.height)
        }
        let fpsWhat = "must be a frame rate such as 30 or \"30000/1001\""
        if let text = try text("fps", fpsWhat) {
            guard let r = Rational(parsing: text) else { throw problem("fps", fpsWhat) }
            job.takeFrameRate(r)
        }
        if let crf: Int = try value("crf", "must be a whole number") { job.crf = crf }
        if let preset: String = try value("preset", "must be a string") { job.preset = preset }
        if let fit = try choice("fit", Fit.self) { job.fit = fit }
    }
}

/// The picture options blend, concat and still share, for the job file to set them in one place.
protocol EncodedPictureJob {
    var width: Int? { get set }
    var height: Int? { get set }
    var crf: Int { get set }
    var preset: String { get set }
    var fit: Fit { get set }
    /// Sets the frame rate when one was given (a still keeps its own default otherwise).
    mutating func takeFrameRate(_ rate: Rational?)
}

extension BlendJob: EncodedPictureJob {
    mutating func takeFrameRate(_ rate: Rational?) { frameRate = rate }
}

extension ConcatJob: EncodedPictureJob {
    mutating func takeFrameRate(_ rate: Rational?) { frameRate = rate }
}

extension StillJob: EncodedPictureJob {
    mutating func takeFrameRate(_ rate: Rational?) { if let rate { frameRate = rate } }
}
