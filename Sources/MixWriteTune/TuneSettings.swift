import Foundation
@_spi(Tools) import MixWrite

/// What the page can change: the key (a blend), the picture (a concat's clips, order and frame; a still's frame),
/// the command line's caption files (kept, tagged, burned), and the mix. Read and written as declared here (a field left out of a request is its blank value, as a job file
/// leaves out an option at its default: no gain, none muted, GPUImage's key). Everything else stays as the command line gave it. The mix is by the job's own track names (a
/// concat's `clip2:1` is the second clip the command line gave, wherever the page moves it).
struct TuneSettings: Codable, Sendable, Equatable {
    /// A blend's key, as a job file writes it (`{"key-color": "00FF00", "threshold": 0.4, …}`, read by the key's own
    /// options; every option with a default is written).
    @Omissible var key = KeySettings()
    /// A concat's clips in the page's order, by their place on the command line (0-based); a removed one left out.
    var clips: [Int]?
    /// A concat's transition at each boundary of the page's order (`KIND[:SECONDS]` or `cut`): the first between its
    /// first and second clip.
    var transitions: [String]?
    /// A concat's clips' own time, by their place on the command line, as a clip's word writes it after its file
    /// (`speed=0.5`, `reverse:freeze=1`, `speed=1@0,0.5@2`; "": as it is).
    var retimes: [String]?
    /// A concat's or still's `--fit`, `--size` (WIDTHxHEIGHT; "" for the job's own) and `--fps` ("" likewise);
    /// a still's `--background` (RRGGBB).
    var fit: String?
    var size: String?
    var fps: String?
    var background: String?
    /// dB by source or track name (`fx`, `fx:2`, `audio1`).
    @Omissible var gains: [String: Double] = [:]
    @Omissible var mute: [String] = []
    /// Seconds by source or track name, or `auto` (placed by its sound: `--offset NAME=auto`).
    @Omissible var offsets: [String: Offset] = [:]
    var loudness: Double?
    /// dB by source or track name: lowered that far while the others play (`--duck`).
    @Omissible var duck: [String: Double] = [:]
    @Omissible var levelMatch = false
    /// A blend's layers, the FX first: where each goes in time and space (`--at`, `--in`, `--out`, `--place`, `--opacity`).
    var layers: [LayerPlacement]?
    /// A blend's other layers' keys, in order (the FX's is `key`).
    var layerKeys: [KeySettings]?
    /// The command line's caption files the movie carries (`--captions`), in its order, each by its place on the
    /// command line (0-based) with the language and title its track gets; one left out is dropped. nil: as given.
    var captions: [CaptionChoice]?
    /// Whether those are drawn into the picture (`--burn-captions`) instead of added as tracks; nil: as given.
    var burnCaptions: Bool?

    /// A caption file of the command line kept: which, and its track's tags.
    struct CaptionChoice: Codable, Sendable, Equatable {
        var index: Int
        var lang: String
        var title: String
    }

    /// A track's offset as the page and the job file write it: seconds, or "auto".
    enum Offset: Codable, Sendable, Hashable {
        case seconds(Double)
        case auto

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let x = try? c.decode(Double.self) { self = .seconds(x); return }
            guard try c.decode(String.self) == "auto" else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "an offset is seconds or \"auto\"")
            }
            self = .auto
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .seconds(let x): try c.encode(x)
            case .auto: try c.encode("auto")
            }
        }

        /// As the job file's reader takes it.
        var entry: Any { if case .seconds(let x) = self { x } else { "auto" } }
        var isZero: Bool { self == .seconds(0) }
    }

    /// A track of the mix: its source (`fx`, `audio1`) and its own name (`fx:2`).
    struct Track: Sendable, Equatable {
        var source: String
        var name: String
    }

    /// The job's mix, track by track: the page has a fader a track, so a whole source's gain, offset, mute or duck
    /// is shown on each of its tracks (`expanded`).
    init(audio: AudioOptions, tracks: [Track]) {
        gains = audio.gains
        mute = audio.mute
        offsets = audio.offsets.mapValues(Offset.seconds).merging(audio.autoOffsets.map { ($0, .auto) }) { $1 }
        loudness = audio.loudness
        duck = audio.duck
        levelMatch = audio.levelMatch
        self = expanded(tracks)
    }

    /// A blend's: its key, and the mix.
    init(job: BlendJob, key: KeySettings, layerKeys: [KeySettings], tracks: [Track]) {
        self.init(audio: job.audio, tracks: tracks)
        self.key = key
        layers = job.allLayers.map(\.placement)
        self.layerKeys = layerKeys
        showCaptions(of: job)
    }

    /// The job file's names where the job file has the option (`gain`, `offset`, `level-match`, `key`'s own); the
    /// page's own for what it alone says (a concat's clips by place, its transitions by boundary, the layers' keys).
    enum CodingKeys: String, CodingKey {
        case key, clips, transitions, retimes, fit, size, fps, background, gains = "gain", mute, offsets = "offset", loudness, duck
        case levelMatch = "level-match", layers, layerKeys, captions, burnCaptions = "burn-captions"
    }

    /// The mix's values are numbers and name tracks the job has: a request's checks before the job's own.
    func checkedMix(tracks: [Track]) throws(RequestError) -> TuneSettings {
        for (name, v) in gains.map({ ("gain of \($0.key)", $0.value) })
            + offsets.compactMap({ o in if case .seconds(let x) = o.value { ("offset of \(o.key)", x) } else { nil } })
            + duck.map({ ("duck depth of \($0.key)", $0.value) })
            + [("loudness", loudness ?? -16)] where !v.isFinite {
            throw .bad("\(name) must be a number")
        }
        let names = Set(tracks.flatMap { [$0.source, $0.name] })
        for name in Array(gains.keys) + mute + Array(offsets.keys) + Array(duck.keys) where !names.contains(name) {
            throw .bad("'\(name)' is not a source or track of this job")
        }
        // The ranges as the page shows them, track by track (a source's gain adds to its tracks' own).
        return expanded(tracks)
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
        (s.gains, s.offsets, s.duck) = (s.gains.filter { $0.value != 0 }, s.offsets.filter { !$0.value.isZero }, s.duck.filter { $0.value != 0 })
        return s
    }

    /// The mix put on `job`, written as briefly as it renders the same: a source whose tracks all have one value gets
    /// it by the source's name (`--gain audio1=-9`), else each track its own. `tracks` are those still in the job;
    /// `renamed` gives a source's name in the job as it is now (a concat's clip moved). The values are read by the job
    /// file's own readers (`gain`, `offset`, `duck`, `mute`, `loudness`, `level-match`): a value out of an option's
    /// range is a 400 in that option's words.
    func applyMix<J: MixJob>(to job: J, _ audio: WritableKeyPath<J, AudioOptions>, tracks: [Track],
                             renamed: (String) -> String = { $0 }) throws(RequestError) -> J {
        let s = expanded(tracks)
        let sources = tracks.map(\.source).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        func name(_ n: String) -> String {
            let parts = n.split(separator: ":", maxSplits: 1)
            return renamed(String(parts[0])) + (parts.count > 1 ? ":" + parts[1] : "")
        }
        func collapsed<V: Hashable>(_ values: [String: V]) -> [String: V] {
            var result: [String: V] = [:]
            for source in sources {
                let own = tracks.filter { $0.source == source }.map(\.name)
                let given = Set(own.map { values[$0] })
                if given.count == 1, let v = given.first {
                    if let v { result[name(source)] = v }
                } else {
                    for n in own { result[name(n)] = values[n] }
                }
            }
            return result
        }
        // What the page leaves out is none: the job's mix cleared, then the page's read over it (depth 0 is the
        // page's "not ducked", left out by `expanded`).
        var j = job
        (j[keyPath: audio].gains, j[keyPath: audio].offsets, j[keyPath: audio].duck, j[keyPath: audio].mute) = ([:], [:], [:], [])
        j[keyPath: audio].autoOffsets = []
        (j[keyPath: audio].loudness, j[keyPath: audio].levelMatch) = (nil, false)
        if loudness == nil { j[keyPath: audio].truePeak = nil }
        var entry: [String: Any] = [:]
        for (option, values) in [("gain", collapsed(s.gains)), ("duck", collapsed(s.duck))] where !values.isEmpty {
            entry[option] = values
        }
        // Seconds, or "auto": a source placed by its sound (`--offset audio1=auto`).
        let offsets = collapsed(s.offsets)
        if !offsets.isEmpty { entry["offset"] = offsets.mapValues(\.entry) }
        let mute = collapsed(Dictionary(uniqueKeysWithValues: s.mute.map { ($0, 1) })).keys.sorted()
        if !mute.isEmpty { entry["mute"] = mute }
        if let loudness { entry["loudness"] = loudness }
        if levelMatch { entry["level-match"] = true }
        do { return try j.applying(entry) } catch { throw .bad(error.description) }
    }

    /// A blend with these settings: the key, where each layer goes, and the mix.
    func applied(to job: BlendJob, tracks: [Track]) throws(RequestError) -> BlendJob {
        var j = job
        j.key = key
        j.autoKeyColor = false
        if let layers {
            guard layers.count == job.allLayers.count else { throw .bad("layers must give each of the \(job.allLayers.count) layers") }
            j.placement = layers[0]
            for i in j.layers.indices { j.layers[i].placement = layers[i + 1] }
        }
        if let layerKeys {
            guard layerKeys.count == job.layers.count else { throw .bad("layerKeys must give each of the \(job.layers.count) layers' keys") }
            for i in j.layers.indices { (j.layers[i].key, j.layers[i].autoKeyColor) = (layerKeys[i], false) }
        }
        return try applyMix(to: try applyCaptions(to: j), \.audio, tracks: tracks)
    }

    /// The command line's caption files of `job`, each kept with its tags, and whether they are burned: the page's
    /// starting captions.
    mutating func showCaptions(of job: some TunedJob) {
        captions = job.captions.files.indices.map { i in
            CaptionChoice(index: i, lang: job.captions.files[i].language, title: job.captions.files[i].title)
        }
        burnCaptions = job.captions.burn
    }

    /// The caption files kept, in the page's order, with its tags, and burned or not: `job`'s own files (the page
    /// never names a path, only the command line's by place), checked by the job's own rules afterwards (a language
    /// that is no ISO 639-2 code, burning with no file: a 400 in the option's words).
    func applyCaptions<J: TunedJob>(to job: J) throws(RequestError) -> J {
        var j = job
        if let captions {
            let given = job.captions.files
            guard Set(captions.map(\.index)).count == captions.count, captions.allSatisfy({ given.indices.contains($0.index) }) else {
                throw .bad("captions must name each of the command line's \(given.count) caption files at most once, by place (0 …)")
            }
            j.captions.files = captions.map { c in
                var file = given[c.index]
                (file.language, file.title) = (c.lang, c.title)
                return file
            }
        }
        if let burnCaptions { j.captions.burn = burnCaptions }
        return j
    }

    /// A job's `fit` and `size` as the page shows them (the size `WxH`, empty for the input's): what `applyPicture`
    /// puts back.
    mutating func showFrame(of picture: PictureSettings) {
        fit = picture.fit.rawValue
        size = picture.width.flatMap { w in picture.height.map { "\(w)x\($0)" } } ?? ""
    }

    /// `fit`, `size`, `fps` (and a still's `background`) put on a job, read by the job file's own reader (an empty
    /// size or rate: the job's inputs' again); a bad value is a 400 naming the option.
    func applyPicture<J: MixJob>(to job: J, _ picture: WritableKeyPath<J, PictureSettings>) throws(RequestError) -> J {
        var entry: [String: Any] = [:]
        for (name, value) in [("fit", fit), ("size", size), ("fps", fps), ("background", background)] {
            if let value, !value.isEmpty { entry[name] = value }
        }
        var j = job
        if size == "" { (j[keyPath: picture].width, j[keyPath: picture].height) = (nil, nil) }
        if fps == "" { j[keyPath: picture].frameRate = nil }
        do { return try j.applying(entry) } catch { throw .bad(error.description) }
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

/// A field a request may leave out: its blank value then.
@propertyWrapper
struct Omissible<Value: Codable & Sendable & Equatable & Blank>: Codable, Sendable, Equatable {
    var wrappedValue: Value

    init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    init(from decoder: any Decoder) throws { wrappedValue = try decoder.singleValueContainer().decode(Value.self) }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue)
    }
}

/// What a field left out of a request is.
protocol Blank { static var blank: Self { get } }
extension Dictionary: Blank { static var blank: Self { [:] } }
extension Array: Blank { static var blank: Self { [] } }
extension Bool: Blank { static var blank: Bool { false } }
extension KeySettings: Blank { static var blank: KeySettings { KeySettings() } }

extension KeyedDecodingContainer {
    func decode<V>(_ type: Omissible<V>.Type, forKey key: Key) throws -> Omissible<V> {
        try decodeIfPresent(type, forKey: key) ?? Omissible(wrappedValue: .blank)
    }
}
