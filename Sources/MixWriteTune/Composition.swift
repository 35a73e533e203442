import Foundation
@_spi(Tools) import MixWrite

/// A job the page tunes: written where the page says, checked by the job's own rules.
protocol TunedJob: MixJob {
    var output: String { get set }
    var audio: AudioOptions { get set }
    var run: RunSettings { get set }
    var captions: CaptionSettings { get set }
    func validate() throws(MixWriteError)
}

/// A kind of job the page tunes: the composition it is tuned by. A kind joins the page by conforming, in its
/// composition's own file (a kind without one, the key layer, has no page).
protocol TunableJob: TunedJob {
    func composition() throws(MixWriteError) -> any Composition
}

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
    /// `blend`, `concat`, `still`, `remix`.
    var kind: String { get }
    /// The parts of the page this kind shows (`data-part` in index.html): `key`, `layers`, `view`, `timeline`, `clips`,
    /// `frame`, `fps`, `picture`, `background`; the picture, the mix, the audition, the command and the render always.
    var parts: [String] { get }
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
    var parts: [String]
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
    /// The command line's caption files (`--captions`), by place: what the page keeps, tags or burns.
    struct CaptionFile: Encodable, Sendable {
        var index: Int
        var file: String
    }
    var captionFiles: [CaptionFile]?

    init(kind: String, parts: [String], output: String, duration: Double, width: Int, height: Int, frameRate: Double,
         settings: TuneSettings, tracks: [AudioSource]) {
        (self.kind, self.parts, self.output, self.duration, self.width, self.height) = (kind, parts, output, duration, width, height)
        (self.frameRate, self.settings) = (frameRate, settings)
        self.tracks = tracks.map { Track(name: $0.name, source: $0.label, codec: $0.codec, channels: $0.channels,
                                         file: ($0.path as NSString).lastPathComponent) }
    }
}

extension TuneInfo {
    /// `job`'s caption files and the page's parts for them: `captions` when the command line gave any, and `burn`
    /// (drawing them into the picture) where the kind's picture is drawn (`burns`: a remix copies its own).
    mutating func describeCaptions(of job: some TunedJob, burns: Bool) {
        guard !job.captions.files.isEmpty else { return }
        captionFiles = job.captions.files.enumerated().map { CaptionFile(index: $0.offset, file: $0.element.file) }
        parts += burns ? ["captions", "burn"] : ["captions"]
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
