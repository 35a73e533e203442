import Foundation
@_spi(Tools) import MixWrite

/// A concat, a still or a remix over `SequencePreview`: the preview is made again when the settings change the
/// picture (a concat's order, its fit, size or rate), and kept while only the mix changes.
final class SequenceComposition<Job: TunedJob>: Composition {
    let kind: String
    let parts: [String]
    private let given: Job
    /// The job with the page's settings of the picture and the mix (checked by the job's own `validate`).
    private let tune: (Job, TuneSettings, [TuneSettings.Track]) throws(RequestError) -> Job
    /// The job cut to an excerpt, for the audition.
    private let cut: (inout Job, Double, Double) -> Void
    private let makePreview: (Job) throws(MixWriteError) -> SequencePreview
    /// The kind's own part of the page's info: the settings asked, the preview for them, the job's pieces as given.
    private let describe: (inout TuneInfo, TuneSettings, SequencePreview, [SequencePreview.Piece]) -> Void
    /// The pieces of the job as given (a concat clip's length while it is removed).
    private let givenPieces: [SequencePreview.Piece]
    let auditionType: String
    /// Whether the kind draws its picture, so may burn captions into it (a remix copies its movie's).
    private let burns: Bool
    private var preview: SequencePreview
    private var previewKey: String
    /// Every track of the job as given.
    private let sources: [AudioSource]
    let tracks: [TuneSettings.Track]
    let initial: TuneSettings
    let loudness: @Sendable () throws(MixWriteError) -> [String: Double]

    init(kind: String, parts: [String], job: Job, initial: (Job, [TuneSettings.Track]) -> TuneSettings, auditionType: String = "mp4",
         burns: Bool = true,
         tune: @escaping (Job, TuneSettings, [TuneSettings.Track]) throws(RequestError) -> Job,
         cut: @escaping (inout Job, Double, Double) -> Void,
         preview: @escaping (Job) throws(MixWriteError) -> SequencePreview,
         describe: @escaping (inout TuneInfo, TuneSettings, SequencePreview, [SequencePreview.Piece]) -> Void) throws(MixWriteError) {
        (self.kind, self.parts, given, self.tune, self.cut, makePreview) = (kind, parts, job, tune, cut, preview)
        (self.describe, self.auditionType, self.burns) = (describe, auditionType, burns)
        self.preview = try preview(job)
        previewKey = Self.pictureKey(job)
        sources = self.preview.tracks
        givenPieces = self.preview.pieces
        tracks = self.preview.tracks.map { TuneSettings.Track(source: $0.label, name: $0.name) }
        var s = initial(job, tracks)
        s.showCaptions(of: job)
        self.initial = s
        loudness = self.preview.trackLoudness
    }

    /// What of the job the picture depends on: its entry without the mix and with only the caption files it draws
    /// (every option but those, so none can be left out of it); a new preview when it changes.
    static func pictureKey(_ job: Job) -> String {
        var j = job
        j.audio = AudioOptions()
        j.captions.files = j.captions.drawn
        return j.jobEntry
    }

    var job: any TunedJob { given }

    func job(with settings: TuneSettings) throws(RequestError) -> any TunedJob { try tuned(settings) }

    /// The job with `settings`: the kind's picture and mix, the captions; checked.
    private func tuned(_ settings: TuneSettings) throws(RequestError) -> Job {
        try settings.applyCaptions(to: try tune(given, settings, tracks)).checked()
    }

    /// The preview of the job with `settings`, made again if its picture differs from the one held.
    private func preview(for settings: TuneSettings) throws(RequestError) -> SequencePreview {
        let j = try tuned(settings)
        let key = Self.pictureKey(j)
        if key != previewKey {
            preview = try requesting { () throws(MixWriteError) in try makePreview(j) }
            previewKey = key
        }
        return preview
    }

    func info(_ settings: TuneSettings) throws(RequestError) -> TuneInfo {
        let p = try preview(for: settings)
        var info = TuneInfo(kind: kind, parts: parts, output: given.output, duration: p.duration, width: p.width, height: p.height,
                            frameRate: p.frameRate.doubleValue, settings: initial, tracks: sources)
        describe(&info, settings, p, givenPieces)
        info.describeCaptions(of: given, burns: burns)
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
        var j = try tuned(settings)
        cut(&j, start, length)
        return j
    }
}
