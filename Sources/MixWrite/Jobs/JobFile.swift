import Foundation
import FFmpegSupport

/// A job file for `mixwrite batch`: `{"jobs": [ {"kind": "blend"|"concat"|"still"|"remix", "output": PATH, …} ]}`.
/// Inputs go under `fx`, `base`, `clips`, `image`, `audio`, `movie`; every command-line option under its long
/// name (`"threshold": 0.35`, `"size": "640x640"`, `"gain": {"fx": -6}`). Relative paths are relative to the
/// job file's folder. The whole file is checked before any job runs.
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
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .input(file: path, "is not JSON (\(error.localizedDescription))")
        }
        guard let object = root as? [String: Any], let jobs = object["jobs"] as? [Any] else {
            throw .input(file: path, "must be an object with a \"jobs\" array")
        }
        if let extra = object.keys.first(where: { $0 != "jobs" && $0 != "$schema" }) {
            throw .input(file: path, "unknown top-level key '\(extra)' (only \"jobs\")")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var entries: [Entry] = []
        for (i, any) in jobs.enumerated() {
            guard let dict = any as? [String: Any] else { throw .input(file: path, "job \(i): must be an object") }
            var reader = Keys(dict: dict, index: i, file: path, folder: folder)
            let entry = try reader.entry(threads: threads)
            try reader.finish()
            entries.append(entry)
        }
        let outputs = entries.map(\.output)
        if let dup = outputs.enumerated().first(where: { outputs.firstIndex(of: $0.element) != $0.offset }) {
            throw .input(file: path, "job \(dup.offset): output \(dup.element) is also the output of job \(outputs.firstIndex(of: dup.element)!)")
        }
        self.entries = entries
    }

    /// The entries of share `k` of `n` (1-based): contiguous, equal to within one job, together all of them once.
    public func shard(_ k: Int, of n: Int) -> [Entry] {
        let m = entries.count
        return Array(entries[(k - 1) * m / n ..< k * m / n])
    }
}

/// Reads one job's keys, remembering which were used so that a misspelt key is an error, not ignored.
private struct Keys {
    let dict: [String: Any]
    let index: Int
    let file: String
    let folder: String
    var used: Set<String> = ["kind"]

    init(dict: [String: Any], index: Int, file: String, folder: String) {
        self.dict = dict; self.index = index; self.file = file; self.folder = folder
    }

    func fail(_ key: String, _ what: String) -> MixWriteError { .input(file: file, "job \(index): '\(key)' \(what)") }

    mutating func has(_ key: String) -> Bool { used.insert(key); return dict[key] != nil }

    mutating func string(_ key: String) throws(MixWriteError) -> String? {
        used.insert(key)
        guard let v = dict[key] else { return nil }
        guard let s = v as? String else { throw fail(key, "must be a string") }
        return s
    }

    mutating func required(_ key: String) throws(MixWriteError) -> String {
        guard let s = try string(key) else { throw .input(file: file, "job \(index): '\(key)' is missing") }
        return s
    }

    mutating func path(_ key: String) throws(MixWriteError) -> String? { try string(key).map(resolve) }

    func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : folder + "/" + p }

    mutating func paths(_ key: String) throws(MixWriteError) -> [String]? {
        used.insert(key)
        guard let v = dict[key] else { return nil }
        if let s = v as? String { return [resolve(s)] }
        guard let a = v as? [Any], a.allSatisfy({ $0 is String }) else { throw fail(key, "must be a path or an array of paths") }
        return a.map { resolve($0 as! String) }
    }

    mutating func number(_ key: String) throws(MixWriteError) -> Double? {
        used.insert(key)
        guard let v = dict[key] else { return nil }
        guard let n = v as? NSNumber, !isJSONBool(v) else { throw fail(key, "must be a number") }
        return n.doubleValue
    }

    mutating func int(_ key: String) throws(MixWriteError) -> Int? {
        guard let d = try number(key) else { return nil }
        guard d == d.rounded() else { throw fail(key, "must be a whole number") }
        return Int(d)
    }

    mutating func bool(_ key: String) throws(MixWriteError) -> Bool? {
        used.insert(key)
        guard let v = dict[key] else { return nil }
        guard isJSONBool(v), let b = v as? Bool else { throw fail(key, "must be true or false") }
        return b
    }

    mutating func strings(_ key: String) throws(MixWriteError) -> [String]? {
        used.insert(key)
        guard let v = dict[key] else { return nil }
        if let s = v as? String { return [s] }
        guard let a = v as? [Any], a.allSatisfy({ $0 is String }) else { throw fail(key, "must be a string or an array of strings") }
        return a.map { $0 as! String }
    }

    mutating func table(_ key: String) throws(MixWriteError) -> [String: Double]? {
        used.insert(key)
        guard let v = dict[key] else { return nil }
        guard let d = v as? [String: Any] else { throw fail(key, "must be an object like {\"fx\": -6}") }
        var out: [String: Double] = [:]
        for (k, x) in d {
            guard let n = x as? NSNumber, !isJSONBool(x) else { throw fail(key, "value of '\(k)' must be a number") }
            out[k] = n.doubleValue
        }
        return out
    }

    mutating func choice<T: RawRepresentable>(_ key: String, _ type: T.Type) throws(MixWriteError) -> T? where T.RawValue == String {
        guard let s = try string(key) else { return nil }
        guard let v = T(rawValue: s) else { throw fail(key, "'\(s)' is not one of the allowed values") }
        return v
    }

    func finish() throws(MixWriteError) {
        if let unknown = dict.keys.sorted().first(where: { !used.contains($0) }) {
            throw fail(unknown, "is not an option of a \(dict["kind"] as? String ?? "") job")
        }
    }

    mutating func size() throws(MixWriteError) -> (Int, Int)? {
        guard let s = try string("size") else { return nil }
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { throw fail("size", "must be WIDTHxHEIGHT") }
        return (w, h)
    }

    mutating func fps() throws(MixWriteError) -> Rational? {
        used.insert("fps")
        guard let v = dict["fps"] else { return nil }
        let text = (v as? String) ?? (v as? NSNumber).map { "\($0)" } ?? ""
        guard let r = Rational(parsing: text) else { throw fail("fps", "must be a frame rate such as 30 or \"30000/1001\"") }
        return r
    }

    mutating func color(_ key: String) throws(MixWriteError) -> (Double, Double, Double)? {
        guard var s = try string(key) else { return nil }
        if s.hasPrefix("#") { s.removeFirst() }
        guard s.count == 6, let v = UInt32(s, radix: 16) else { throw fail(key, "must be RRGGBB") }
        return (Double(v >> 16 & 0xFF) / 255, Double(v >> 8 & 0xFF) / 255, Double(v & 0xFF) / 255)
    }

    /// The audio options every kind shares; `files` are the extra audio files (`audio`, except for still).
    mutating func audioOptions(files: [String]) throws(MixWriteError) -> AudioOptions {
        var a = AudioOptions()
        a.files = files
        if let t = try choice("audio-tracks", AudioOptions.Tracks.self) { a.tracks = t }
        if let m = try strings("mute") { a.mute = m }
        if let g = try table("gain") { a.gains = g }
        if let o = try table("offset") { a.offsets = o }
        if let m = try choice("mix", MixMode.self) { a.mode = m }
        a.channels = try int("channels")
        a.sampleRate = try int("sample-rate")
        used.insert("audio-bitrate")
        if let v = dict["audio-bitrate"] {
            var text = ((v as? String) ?? (v as? NSNumber).map { "\($0)" } ?? "").lowercased()
            var scale = 1
            if text.hasSuffix("k") { text.removeLast(); scale = 1000 }
            guard let n = Int(text) else { throw fail("audio-bitrate", "must be a bit rate such as \"192k\"") }
            a.bitRate = n * scale
        }
        return a
    }

    /// The picture options blend, concat and still share.
    struct VideoKeys {
        var size: (Int, Int)?
        var fps: Rational?
        var crf: Int?
        var preset: String?
        var fit: Fit?

        /// The keys that were given, set on the job; the others keep the job's defaults.
        func apply(to job: inout some EncodedPictureJob) {
            if let (w, h) = size { (job.width, job.height) = (w, h) }
            job.takeFrameRate(fps)
            if let crf { job.crf = crf }
            if let preset { job.preset = preset }
            if let fit { job.fit = fit }
        }
    }

    mutating func videoKeys() throws(MixWriteError) -> VideoKeys {
        VideoKeys(size: try size(), fps: try fps(), crf: try int("crf"), preset: try string("preset"),
                  fit: try choice("fit", Fit.self))
    }

    mutating func entry(threads: Int) throws(MixWriteError) -> JobFile.Entry {
        guard let kind = dict["kind"] as? String else { throw .input(file: file, "job \(index): 'kind' is missing (blend, concat, still or remix)") }
        let output = resolve(try required("output"))
        let overwrite = try bool("overwrite") ?? false
        let strict = try bool("strict") ?? false
        let job: any MixJob
        switch kind {
        case "blend":
            var j = BlendJob(fx: resolve(try required("fx")), base: resolve(try required("base")), output: output)
            j.audio = try audioOptions(files: try paths("audio") ?? [])
            try videoKeys().apply(to: &j)
            if let d = try choice("duration", DurationPolicy.self) { j.duration = d }
            if (dict["key-color"] as? String)?.lowercased() == "auto" { used.insert("key-color"); j.autoKeyColor = true }
            else if let k = try color("key-color") { j.key.keyColor = k }
            if let t = try number("threshold") { j.key.threshold = t }
            if let s = try number("smoothing") { j.key.smoothing = s }
            if let d = try bool("despill") { j.key.despill = d }
            j.overwrite = overwrite; j.strict = strict; j.threads = threads
            job = j
        case "concat":
            guard let clips = try paths("clips"), !clips.isEmpty else { throw .input(file: file, "job \(index): 'clips' is missing") }
            var j = ConcatJob(clips: clips, output: output)
            j.audio = try audioOptions(files: try paths("audio") ?? [])
            try videoKeys().apply(to: &j)
            if let e = try bool("event-chapters") { j.eventChapters = e }
            used.insert("events")
            if let e = dict["events"] {
                let data: Data?
                if let p = e as? String { data = FileManager.default.contents(atPath: resolve(p)) }
                else { data = try? JSONSerialization.data(withJSONObject: e) }
                guard let data, let events = try? JSONDecoder().decode([ClipEvent].self, from: data) else {
                    throw fail("events", "must be an array of {\"clip\", \"time\", \"name\"} or the path of one")
                }
                j.events = events
            }
            j.overwrite = overwrite; j.strict = strict; j.threads = threads
            job = j
        case "still":
            guard let sounds = try paths("audio"), !sounds.isEmpty else { throw .input(file: file, "job \(index): 'audio' is missing") }
            var j = StillJob(image: resolve(try required("image")), audioFiles: sounds, output: output)
            j.audio = try audioOptions(files: [])
            try videoKeys().apply(to: &j)
            if let b = try color("background") { j.background = [b.0, b.1, b.2] }
            j.overwrite = overwrite; j.strict = strict; j.threads = threads
            job = j
        case "remix":
            var j = RemixJob(movie: resolve(try required("movie")), output: output)
            j.audio = try audioOptions(files: try paths("audio") ?? [])
            j.overwrite = overwrite; j.strict = strict
            job = j
        default:
            throw fail("kind", "'\(kind)' is not blend, concat, still or remix")
        }
        return JobFile.Entry(index: index, kind: kind, output: output, job: job)
    }
}

/// JSONSerialization gives `true`/`false` and numbers both as NSNumber; a boolean is the Boolean subclass.
private func isJSONBool(_ v: Any) -> Bool {
    if String(describing: type(of: v)).contains("Boolean") { return true }
    if let n = v as? NSNumber { return String(cString: n.objCType) == "c" }
    return false
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
