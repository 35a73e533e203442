import Foundation
@_spi(Tools) import MixWrite

/// A job the page tunes: written where the page says, checked by the job's own rules.
protocol TunedJob: MixJob {
    var output: String { get set }
    var overwrite: Bool { get set }
    func validate() throws(MixWriteError)
}

extension BlendJob: TunedJob {}
extension ConcatJob: TunedJob {}
extension StillJob: TunedJob {}
extension RemixJob: TunedJob {}

extension TunedJob {
    /// The job's own checks, a 400 naming the option.
    func checked() throws(RequestError) -> Self {
        do { try validate() } catch { throw .bad(error.description) }
        return self
    }
}

/// One kind of job as the page tunes it: its preview (the library's), what the page is told of it, and the page's
/// settings put on the job. The server, the session, the audition and the render are the same for every kind.
/// Owned by `TuneSession` (an actor), one request at a time: not thread-safe.
protocol Composition: AnyObject {
    /// `blend`, `concat`, `still`, `remix`: which parts of the page show.
    var kind: String { get }
    var job: any TunedJob { get }
    /// Every track the mix knows, by the job's names (`fx:1`, `clip2:1`, `movie:3`, `audio1:1`).
    var tracks: [TuneSettings.Track] { get }
    var initial: TuneSettings { get }
    /// Each track's loudness, measured off the actor (it decodes all the sound).
    var loudness: @Sendable () throws(MixWriteError) -> [String: Double] { get }
    /// The page's layout for these settings: size, length, timeline.
    func info(_ settings: TuneSettings) throws(RequestError) -> TuneInfo
    /// The output's picture at `t`; `query` may ask for another view (a blend's matte, a concat clip's own picture).
    func picture(at t: Double, settings: TuneSettings, query: [String: String]) throws(RequestError) -> [UInt8]
    /// The job with `settings` (checked: a bad value is a 400 naming it).
    func job(with settings: TuneSettings) throws(RequestError) -> any TunedJob
    /// That job cut to `length` seconds from `start`, encoded fast: the audition.
    func audition(with settings: TuneSettings, start: Double, length: Double) throws(RequestError) -> any TunedJob
    /// The audition's file type: `mp4`, or `m4a` when it is sound only (a remix's video is copied, not rendered).
    var auditionType: String { get }
}

extension Composition {
    var auditionType: String { "mp4" }

    /// The settings a request sent, checked: numbers, track names, then the job's own checks.
    func validated(_ settings: TuneSettings) throws(RequestError) -> TuneSettings {
        let s = try settings.checkedMix(tracks: tracks)
        _ = try job(with: s)
        return s
    }
}

/// What the page draws its controls from (`/api/info`).
struct TuneInfo: Encodable, Sendable {
    struct Track: Encodable, Sendable {
        var name: String
        var source: String
        var codec: String
        var channels: Int
        /// The file it comes from, by its name (the page shows it beside the track).
        var file: String
    }
    /// A concat's clip: its place on the command line, its file, its length on the output.
    struct Clip: Encodable, Sendable {
        var index: Int
        var file: String
        var name: String
        var duration: Double
    }
    var kind: String
    var output: String
    var duration: Double
    var width, height: Int
    var frameRate: Double
    var settings: TuneSettings
    var tracks: [Track]
    /// A blend's inputs, and how long fx shows (the page opens in its middle).
    var fx, base: String?
    var fxDuration: Double?
    /// A blend's layers, the FX first: each one's file, its sound's name and how long its fx lasts.
    struct Layer: Encodable, Sendable {
        var file: String
        var name: String
        var fxDuration: Double
    }
    var layers: [Layer]?
    /// A concat's clips (every one given), and the output's timeline for the settings asked (the clips kept, in
    /// their order, and the events).
    var clips: [Clip]?
    /// A concat's kinds of transition, `cut` first, for each boundary's choice.
    var transitionKinds: [String]?
    var pieces: [SequencePreview.Piece]?
    var events: [Timeline.Event]?
    /// A still's picture, a remix's movie.
    var image, movie: String?

    init(kind: String, output: String, duration: Double, width: Int, height: Int, frameRate: Double, settings: TuneSettings,
         tracks: [AudioSource]) {
        (self.kind, self.output, self.duration, self.width, self.height) = (kind, output, duration, width, height)
        (self.frameRate, self.settings) = (frameRate, settings)
        self.tracks = tracks.map { Track(name: $0.name, source: $0.label, codec: $0.codec, channels: $0.channels,
                                         file: ($0.path as NSString).lastPathComponent) }
    }
}

/// A request's time `t`: inside the output (0 ≤ t < `duration`), else a 400 saying so.
func checkTime(_ t: Double, within duration: Double) throws(RequestError) {
    guard t.isFinite, t >= 0, t < duration else { throw .bad("t must be between 0 and \(duration) s") }
}

/// Runs a library call, its error a 400 (the job refused what was asked) or a 500.
func requesting<T>(_ body: () throws(MixWriteError) -> T) throws(RequestError) -> T {
    do { return try body() } catch {
        if case .usage(let m) = error { throw .bad(m) }
        throw .failed(error.description)
    }
}

// MARK: - blend

/// `mixwrite tune FX BASE`: the key and the mix over `BlendPreview`.
final class BlendComposition: Composition {
    let kind = "blend"
    private let blend: BlendJob
    /// The preview of the layers as last asked (made again when a layer moves; the key and the mix change without).
    private var preview: BlendPreview
    private let layerFiles: [TuneInfo.Layer]
    let tracks: [TuneSettings.Track]
    let initial: TuneSettings
    let loudness: @Sendable () throws(MixWriteError) -> [String: Double]

    init(_ job: BlendJob) throws(MixWriteError) {
        blend = job
        preview = try BlendPreview(job: job)
        tracks = preview.tracks.map { TuneSettings.Track(source: $0.label, name: $0.name) }
        initial = TuneSettings(job: job, key: preview.initialKey, layerKeys: preview.initialLayerKeys, tracks: tracks)
        loudness = { () throws(MixWriteError) in try job.trackLoudness() }
        layerFiles = zip(job.allLayers.enumerated(), preview.layerLengths).map { layer, length in
            TuneInfo.Layer(file: layer.element.fx, name: job.layerLabel(layer.offset), fxDuration: length)
        }
    }

    var job: any TunedJob { blend }

    func info(_ settings: TuneSettings) -> TuneInfo {
        var info = TuneInfo(kind: kind, output: blend.output, duration: preview.duration, width: preview.width, height: preview.height,
                            frameRate: preview.frameRate.doubleValue, settings: initial, tracks: preview.tracks)
        (info.fx, info.base, info.fxDuration, info.layers) = (blend.fx, blend.base, preview.fxDuration, layerFiles)
        return info
    }

    /// The preview of the layers `settings` place: the one held while they stay.
    private func preview(for settings: TuneSettings) throws(RequestError) -> BlendPreview {
        let j = try blendJob(settings)
        if j.allLayers.map(\.placement) != preview.job.allLayers.map(\.placement) {
            preview = try requesting { () throws(MixWriteError) in try BlendPreview(job: j) }
        }
        return preview
    }

    func picture(at t: Double, settings: TuneSettings, query: [String: String]) throws(RequestError) -> [UInt8] {
        guard let view = BlendPreview.View(rawValue: query["view"] ?? "composite") else {
            throw .bad("view must be one of \(BlendPreview.View.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let preview = try preview(for: settings)
        try checkTime(t, within: preview.duration)
        do { return try preview.picture(at: t, key: settings.key, layerKeys: settings.layerKeys ?? [], view: view) } catch {
            throw .failed(error.description)
        }
    }

    /// fx's colour at (x, y); the coordinates are checked as numbers before they become integers.
    func pick(at t: Double, x: Double, y: Double) throws(RequestError) -> String {
        try checkTime(t, within: preview.duration)
        guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Double(preview.width), y < Double(preview.height) else {
            throw .bad("(x, y) must be inside the \(preview.width)×\(preview.height) picture")
        }
        do { return OptionValue.hex(try preview.fxColor(at: t, x: Int(x), y: Int(y))) } catch { throw .bad(error.description) }
    }

    func job(with settings: TuneSettings) throws(RequestError) -> any TunedJob { try blendJob(settings) }

    private func blendJob(_ settings: TuneSettings) throws(RequestError) -> BlendJob {
        let j = try settings.applied(to: blend, tracks: tracks).checked()
        for key in [settings.key] + (settings.layerKeys ?? []) where key.cleanPlate != nil { try checkPlate(key) }
        return j
    }

    /// The clean plates found good, by path and key colour (a plate is read once, not at each slider's move).
    private var goodPlates: Set<String> = []

    private func checkPlate(_ key: KeySettings) throws(RequestError) {
        let id = "\(key.keyColorHex) \(key.cleanPlate ?? "")"
        guard !goodPlates.contains(id) else { return }
        do { try key.checkCleanPlate() } catch { throw .bad(error.description) }
        goodPlates.insert(id)
    }

    /// fx's picture at `t` written beside the output (`NAME-plate-T.jpg`) to key by as the clean plate; its path.
    func plate(at t: Double) throws(RequestError) -> String {
        try checkTime(t, within: preview.duration)
        let url = URL(fileURLWithPath: blend.output)
        let path = url.deletingPathExtension().path + "-plate-" + String(format: "%.3f", t) + ".jpg"
        let jpeg: [UInt8]
        do { jpeg = try preview.fxPicture(at: t) } catch { throw .bad(error.description) }
        do { try Data(jpeg).write(to: URL(fileURLWithPath: path)) } catch { throw .failed("cannot write \(path): \(error.localizedDescription)") }
        return path
    }

    func audition(with settings: TuneSettings, start: Double, length: Double) throws(RequestError) -> any TunedJob {
        var j = try blendJob(settings)
        (j.start, j.length) = (start, length)
        // The same blend and mix; x264's fastest preset, since it is heard and seen once (the file is larger).
        j.picture.preset = TuneSession.auditionPreset
        j.keepHDR = false   // the browser plays H.264: the audition is the SDR picture
        return j
    }
}

// MARK: - concat, still, remix

/// A concat, a still or a remix over `SequencePreview`: the preview is made again when the settings change the
/// picture (a concat's order, its fit, size or rate), and kept while only the mix changes.
final class SequenceComposition<Job: TunedJob>: Composition {
    let kind: String
    private let given: Job
    /// The job with the page's settings of the picture and the mix (checked by the job's own `validate`).
    private let tune: (Job, TuneSettings, [TuneSettings.Track]) throws(RequestError) -> Job
    /// The job cut to an excerpt, for the audition.
    private let cut: (inout Job, Double, Double) -> Void
    private let makePreview: (Job) throws(MixWriteError) -> SequencePreview
    /// What of the job the picture depends on: a new preview when it changes.
    private let pictureKey: (Job) -> String
    /// The kind's own part of the page's info: the settings asked, the preview for them, the job's pieces as given.
    private let describe: (inout TuneInfo, TuneSettings, SequencePreview, [SequencePreview.Piece]) -> Void
    /// The pieces of the job as given (a concat clip's length while it is removed).
    private let givenPieces: [SequencePreview.Piece]
    let auditionType: String
    private var preview: SequencePreview
    private var previewKey: String
    /// Every track of the job as given.
    private let sources: [AudioSource]
    let tracks: [TuneSettings.Track]
    let initial: TuneSettings
    let loudness: @Sendable () throws(MixWriteError) -> [String: Double]

    init(kind: String, job: Job, initial: (Job, [TuneSettings.Track]) -> TuneSettings, auditionType: String = "mp4",
         tune: @escaping (Job, TuneSettings, [TuneSettings.Track]) throws(RequestError) -> Job,
         cut: @escaping (inout Job, Double, Double) -> Void,
         preview: @escaping (Job) throws(MixWriteError) -> SequencePreview, pictureKey: @escaping (Job) -> String,
         describe: @escaping (inout TuneInfo, TuneSettings, SequencePreview, [SequencePreview.Piece]) -> Void) throws(MixWriteError) {
        (self.kind, given, self.tune, self.cut, makePreview, self.pictureKey) = (kind, job, tune, cut, preview, pictureKey)
        (self.describe, self.auditionType) = (describe, auditionType)
        self.preview = try preview(job)
        previewKey = pictureKey(job)
        sources = self.preview.tracks
        givenPieces = self.preview.pieces
        tracks = self.preview.tracks.map { TuneSettings.Track(source: $0.label, name: $0.name) }
        self.initial = initial(job, tracks)
        loudness = self.preview.trackLoudness
    }

    var job: any TunedJob { given }

    func job(with settings: TuneSettings) throws(RequestError) -> any TunedJob { try tune(given, settings, tracks).checked() }

    /// The preview of the job with `settings`, made again if its picture differs from the one held.
    private func preview(for settings: TuneSettings) throws(RequestError) -> SequencePreview {
        let j = try tune(given, settings, tracks).checked()
        let key = pictureKey(j)
        if key != previewKey {
            preview = try requesting { () throws(MixWriteError) in try makePreview(j) }
            previewKey = key
        }
        return preview
    }

    func info(_ settings: TuneSettings) throws(RequestError) -> TuneInfo {
        let p = try preview(for: settings)
        var info = TuneInfo(kind: kind, output: given.output, duration: p.duration, width: p.width, height: p.height,
                            frameRate: p.frameRate.doubleValue, settings: initial, tracks: sources)
        describe(&info, settings, p, givenPieces)
        return info
    }

    /// The output's picture at `t`; with `clip=K` (a concat), clip K's own picture `t` seconds into it, as the
    /// output shows it (upright, fitted).
    func picture(at t: Double, settings: TuneSettings, query: [String: String]) throws(RequestError) -> [UInt8] {
        let p = try preview(for: settings)
        if let clip = query["clip"] {
            guard let k = Int(clip), let place = (settings.clips ?? Array(p.pieces.indices)).firstIndex(of: k), p.pieces.indices.contains(place) else {
                throw .bad("clip \(clip) is not in the movie")
            }
            return try requesting { () throws(MixWriteError) in try p.picture(piece: place, at: t) }
        }
        try checkTime(t, within: p.duration)
        return try requesting { () throws(MixWriteError) in try p.picture(at: t) }
    }

    func audition(with settings: TuneSettings, start: Double, length: Double) throws(RequestError) -> any TunedJob {
        var j = try tune(given, settings, tracks).checked()
        cut(&j, start, length)
        return j
    }
}

extension SequenceComposition where Job == ConcatJob {
    /// A concat: clips reordered and removed, `--fit`, `--size`, `--fps`, the mix. A clip's tracks keep the name the
    /// command line gave them (`clip2:1`) on the page; the job gets the names of their new places.
    convenience init(concat job: ConcatJob) throws(MixWriteError) {
        try self.init(kind: "concat", job: job, initial: { job, tracks in
            var s = TuneSettings(audio: job.audio, tracks: tracks)
            (s.clips, s.fit) = (Array(job.clips.indices), job.picture.fit.rawValue)
            s.transitions = job.clips.indices.dropFirst().map { job.transition(at: $0).description }
            s.size = job.picture.width.flatMap { w in job.picture.height.map { "\(w)x\($0)" } } ?? ""
            s.fps = job.picture.frameRate?.description ?? ""
            return s
        }, tune: { (job, s, tracks) throws(RequestError) in
            var j = job
            let order = s.clips ?? Array(job.clips.indices)
            guard !order.isEmpty else { throw .bad("a concat needs at least one clip") }
            guard Set(order).count == order.count, order.allSatisfy(job.clips.indices.contains) else {
                throw .bad("clips must name each of the clips 0 … \(job.clips.count - 1) at most once")
            }
            j.clips = order.map { job.clips[$0] }
            try Self.applyTransitions(s.transitions, to: &j, given: job)
            try s.applyPicture(to: &j.picture)
            // A clip's source clipN is its place on the command line; in the job, its new place.
            let place = Dictionary(uniqueKeysWithValues: order.enumerated().map { ("clip\($0.element + 1)", "clip\($0.offset + 1)") })
            let kept = tracks.filter { !$0.source.hasPrefix("clip") || place[$0.source] != nil }
            s.applyMix(to: &j.audio, tracks: kept, renamed: { place[$0] ?? $0 })
            j.events = job.events.compactMap { e in
                order.firstIndex(of: e.clip).map { ClipEvent(clip: $0, time: e.time, name: e.name) }
            }
            return j
        }, cut: { j, start, length in
            (j.start, j.length) = (start, length)
            j.picture.preset = TuneSession.auditionPreset
            j.keepHDR = false   // the browser plays H.264: the audition is the SDR picture
        }, preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           pictureKey: { j in "\(j.clips)|\(j.picture)|\(j.transition)|\(j.transitionsAt.sorted { $0.key < $1.key })" },
           describe: { info, settings, p, given in
            // Every clip given, its length as the output has it now (a removed one's as given).
            let order = settings.clips ?? Array(given.indices)
            info.clips = given.enumerated().map { i, piece in
                TuneInfo.Clip(index: i, file: piece.file, name: (piece.file as NSString).lastPathComponent,
                              duration: order.firstIndex(of: i).map { p.pieces[$0].duration } ?? piece.duration)
            }
            (info.pieces, info.events) = (p.pieces, p.events)
            info.transitionKinds = Transition.Kind.allCases.map(\.rawValue)
        })
    }

    /// The page's transition at each boundary of its order (a boundary it does not give keeps the command line's
    /// `--transition`): one `--transition` when they are all alike, else one `--transition-at` a boundary.
    static func applyTransitions(_ given: [String]?, to j: inout ConcatJob, given job: ConcatJob) throws(RequestError) {
        guard let given else { return }
        guard given.count < 4096 else { throw .bad("transitions: too many") }
        let boundaries = max(0, j.clips.count - 1)
        var list: [Transition] = []
        for k in 0..<boundaries {
            guard k < given.count else { list.append(job.transition); continue }
            do { list.append(try Transition(parsing: given[k])) } catch { throw .bad(error.description) }
        }
        (j.transition, j.transitionsAt) = (.cut, [:])
        if let first = list.first, list.allSatisfy({ $0 == first }) {
            j.transition = first
        } else {
            for (k, t) in list.enumerated() where t != .cut { j.transitionsAt[k + 1] = t }
        }
    }
}

extension SequenceComposition where Job == StillJob {
    /// A still: `--fit`, `--size`, `--background`, the mix.
    convenience init(still job: StillJob) throws(MixWriteError) {
        try self.init(kind: "still", job: job, initial: { job, tracks in
            var s = TuneSettings(audio: job.audio, tracks: tracks)
            s.fit = job.picture.fit.rawValue
            s.size = job.picture.width.flatMap { w in job.picture.height.map { "\(w)x\($0)" } } ?? ""
            s.background = job.background.count == 3 ? OptionValue.hex((job.background[0], job.background[1], job.background[2])) : "000000"
            return s
        }, tune: { (job, s, tracks) throws(RequestError) in
            var j = job
            try s.applyPicture(to: &j.picture)
            if let b = s.background {
                guard let c = OptionValue.color(b) else { throw .bad("background '\(b)' is not RRGGBB") }
                j.background = [c.r, c.g, c.b]
            }
            s.applyMix(to: &j.audio, tracks: tracks)
            return j
        }, cut: { j, start, length in (j.start, j.length) = (start, length); j.picture.preset = TuneSession.auditionPreset },
           preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           pictureKey: { j in "\(j.picture)|\(j.background)" },
           describe: { info, _, _, _ in info.image = job.image })
    }
}

extension SequenceComposition where Job == RemixJob {
    /// A remix: the movie's picture as it is (copied untouched by the render), the mix; the audition is sound only.
    convenience init(remix job: RemixJob) throws(MixWriteError) {
        try self.init(kind: "remix", job: job, initial: { job, tracks in TuneSettings(audio: job.audio, tracks: tracks) },
                      auditionType: "m4a",
                      tune: { (job, s, tracks) throws(RequestError) in
            var j = job
            s.applyMix(to: &j.audio, tracks: tracks)
            return j
        }, cut: { j, start, length in j.excerpt = (start, length) },
           preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           pictureKey: { _ in "" },
           describe: { info, _, _, _ in info.movie = job.movie })
    }
}
