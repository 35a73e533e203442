import FFmpegSupport

/// A concat, a still or a remix held open for its tuning page: the picture the render will encode at an output
/// time, from the job's own plan (the same readers, fit, size, rate and colour as `SequenceStage`), as JPEG.
/// A remix's picture is its movie's, upright at its own size (the render copies it untouched). Each piece keeps
/// its reader, so moving the slider within a clip decodes from the nearest keyframe only. Not thread-safe: one
/// owner (the page's actor) uses it.
@_spi(Tools) public final class SequencePreview {
    /// A piece of the output's timeline: a concat's clip, a still's picture, a remix's movie.
    public struct Piece: Sendable, Encodable {
        public var file: String
        public var start: Double
        public var duration: Double
    }

    public let width: Int
    public let height: Int
    /// The output's length in seconds.
    public let duration: Double
    public let frameRate: Rational
    public let pieces: [Piece]
    /// A concat's events where they land on the output.
    public let events: [Timeline.Event]
    /// Every track the mix takes, by its command-line name (`clip1:1`, `audio1:1`, `movie:2` …), before `mute`.
    public let tracks: [AudioSource]
    /// Each track's loudness (LUFS by track name, silent ones left out), measured when called: it decodes all the
    /// sound, so the page runs it off its actor.
    public let trackLoudness: @Sendable () throws(MixWriteError) -> [String: Double]

    private let plan: SequenceStage.Plan
    /// A timeline's layers over `plan` (a render with upper video tracks): each picture composited, by a compositor
    /// made at the first and sought to each time asked.
    private let layered: BlendStage.Plan?
    private var compositor: Compositor?
    /// Each piece's reader, kept open, and the crossings drawn from two.
    private let readers: PieceReaders
    /// An output picture drawn across a transition.
    private var crossed: Frame?
    /// nil: no picture (a sound-only remix).
    private let pictures: JPEGPictures?
    /// The JPEGs of the last frames shown, by output frame (or a piece's own frame) and quality: a slider dragged
    /// back over them (a reader cannot step back without seeking to a keyframe and decoding on) shows them at once.
    private var recent: [Shown: [UInt8]] = [:]
    private var recentOrder: [Shown] = []
    /// The caption files drawn into the output's pictures (`--burn-captions`; a piece's own picture has none).
    private let captions: PreviewCaptions

    /// What a JPEG shows: output frame n, or piece k's own frame n (which a crossing does not change).
    private enum Shown: Hashable { case output(Int, quality: Int), piece(Int, Int, quality: Int) }
    static let recentFrames = 120
    /// How a preview's job runs: its output replaced, the whole movie, one piece (no parts), nothing copied (a preview
    /// draws its pictures: reading every clip's packets for what to copy is not its work), as strict as the job.
    static func previewRun(_ run: RunSettings) -> RunSettings {
        var r = RunSettings()
        (r.overwrite, r.strict, r.threads, r.smart) = (true, run.strict, run.threads, .off)
        return r
    }


    public convenience init(job: ConcatJob) throws(MixWriteError) {
        var j = job
        (j.run, j.audio.mute, j.audio.duck) = (Self.previewRun(job.run), [], [:])
        j.hdr = .sdr        // a JPEG is SDR: the picture as `--hdr sdr` makes it
        try self.init(j.prepare())
    }

    public convenience init(job: StillJob) throws(MixWriteError) {
        var j = job
        (j.run, j.audio.mute, j.audio.duck) = (Self.previewRun(job.run), [], [:])
        try self.init(j.prepare())
    }

    /// The movie's own picture: upright, at its display size, its frame rate; none for a sound-only file (its
    /// `width` and `height` 0, `pieces` empty).
    public convenience init(job: RemixJob) throws(MixWriteError) {
        var j = job
        (j.run, j.audio.mute, j.audio.duck) = (Self.previewRun(job.run), [], [:])
        let prepared = try j.prepare()
        let file = try MediaFile(path: job.movie)
        guard file.mainVideo != nil else {
            let none = PictureSettings(fit: .fit).videoPlan(width: 0, height: 0, frameRate: Rational(25, 1),
                                                            color: ColorDescription(matrix: .bt709, fullRange: false),
                                                            frameCount: 0, strict: false, threads: 0)
            try self.init(PreparedJob(output: prepared.output, duration: prepared.duration, frameRate: nil,
                                      video: SequenceStage(plan: .init(pieces: [], video: none)), audio: prepared.audio, key: nil))
            return
        }
        // The render copies the picture: the movie's own, at its own size and rate.
        let video = try PictureSettings(fit: .fit).videoPlan(reference: file, length: prepared.duration, strict: false,
                                          threads: 0)
        let plan = SequenceStage.Plan(pieces: [.init(file: file, frames: video.frameCount)], video: video)
        try self.init(PreparedJob(output: prepared.output, duration: prepared.duration, frameRate: video.frameRate,
                                  video: SequenceStage(plan: plan), audio: prepared.audio, key: nil))
    }

    /// A timeline's picture: its bottom track's pieces (the timeline the page shows), and with upper tracks each time's
    /// composite of them all.
    public convenience init(job: RenderJob) throws(MixWriteError) {
        var j = job
        (j.run, j.audio.mute, j.audio.duck) = (Self.previewRun(job.run), [], [:])
        let prepared = try j.prepare()
        guard var layered = (prepared.video as? BlendStage)?.plan, let under = layered.under else {
            try self.init(prepared)
            return
        }
        layered.video.strict = false
        try self.init(PreparedJob(output: prepared.output, duration: prepared.duration, frameRate: prepared.frameRate,
                                  video: SequenceStage(plan: under), audio: prepared.audio, key: nil, timeline: prepared.timeline),
                      layered: layered)
    }

    init(_ prepared: PreparedJob, layered: BlendStage.Plan? = nil) throws(MixWriteError) {
        self.layered = layered
        guard var p = (prepared.video as? SequenceStage)?.plan else { throw .usage("this job has no picture to show") }
        p.video.strict = false   // a preview shows what can be decoded
        plan = p
        (width, height, frameRate) = (p.video.width, p.video.height, p.video.frameRate)
        duration = prepared.duration.seconds
        tracks = prepared.audio?.sources ?? []
        let audio = prepared.audio
        trackLoudness = { () throws(MixWriteError) in try audio?.trackLoudness() ?? [:] }
        readers = PieceReaders(plan: p, keepsOpen: true)
        pieces = zip(p.pieces, p.starts).map { piece, first in
            Piece(file: piece.file.path, start: MediaTime(frames: Int64(first), rate: p.video.frameRate).seconds,
                  duration: min(prepared.duration.seconds, MediaTime(frames: Int64(piece.frames), rate: p.video.frameRate).seconds))
        }
        events = prepared.timeline?.events ?? []
        pictures = p.pieces.isEmpty ? nil : try JPEGPictures(width: p.video.width, height: p.video.height, color: p.video.color)
        captions = PreviewCaptions((layered?.video ?? p.video).burned, rate: p.video.frameRate)
    }

    /// The picture at output time `seconds` (0 ≤ t < duration), as JPEG bytes.
    public func picture(at seconds: Double, quality: Int = 3) throws(MixWriteError) -> [UInt8] {
        guard !pieces.isEmpty else { throw .usage("there is no picture: the file is sound only") }
        guard seconds.isFinite, seconds >= 0, seconds < duration else {
            throw .usage("time \(seconds) is outside the output (0 to \(duration) s)")
        }
        let frame = min(plan.wholeFrameCount - 1, Int((MediaTime(seconds: seconds) ?? .zero).ticks(in: plan.video.frameRate.inverted)))
        return try jpeg(.output(frame, quality: quality)) { () throws(MixWriteError) in
            try captions.drawn(on: try shown(frame: frame), frame: frame)
        }
    }

    /// The output's picture `frame` as `picture(at:quality:)` shows it: one of the preview's own frames, valid until the
    /// next call. With upper tracks, their layers' steadied mattes keyed after the frame before (the compositor's seek),
    /// as a render keys them.
    func shown(frame: Int) throws(MixWriteError) -> Frame {
        if let layered {
            let c: Compositor
            if let made = compositor { c = made } else { c = try Compositor(layered, steady: true) }
            compositor = c
            let t = plan.video.time(ofFrame: frame)
            try c.seek(to: t)
            return try c.compose(at: t)
        }
        let (k, shared) = plan.sources(ofFrame: frame)
        guard shared != nil else { return try readers.picture(piece: k, frame: frame - plan.starts[k]) }
        let out: Frame
        do { out = try crossed ?? Frame(width: width, height: height, pixelFormat: plan.pixelFormat) } catch {
            throw .processing(error, file: nil)
        }
        crossed = out
        try readers.picture(ofFrame: frame, into: out)
        return out
    }

    /// Piece `k`'s picture `seconds` into it (clamped to its last frame), as the output shows it there.
    public func picture(piece k: Int, at seconds: Double, quality: Int = 3) throws(MixWriteError) -> [UInt8] {
        guard pieces.indices.contains(k) else { throw .usage("there is no piece \(k)") }
        guard seconds.isFinite, seconds >= 0 else { throw .usage("time \(seconds) is not a time in the clip") }
        let frames = plan.pieces[k].frames
        let n = min(frames - 1, Int((MediaTime(seconds: seconds) ?? .zero).ticks(in: plan.video.frameRate.inverted)))
        return try jpeg(.piece(k, n, quality: quality)) { () throws(MixWriteError) in try readers.picture(piece: k, frame: n) }
    }

    /// A picture as JPEG: one of the recent ones, or drawn and kept among them.
    private func jpeg(_ key: Shown, _ draw: () throws(MixWriteError) -> Frame) throws(MixWriteError) -> [UInt8] {
        if let bytes = recent[key] { return bytes }
        guard let pictures else { throw .usage("there is no picture: the file is sound only") }
        let quality: Int
        switch key { case .output(_, let q), .piece(_, _, let q): quality = min(max(q, 0), 31) }
        let bytes = try pictures.jpeg(try draw(), quality: quality)
        recent[key] = bytes
        recentOrder.append(key)
        if recentOrder.count > Self.recentFrames { recent[recentOrder.removeFirst()] = nil }
        return bytes
    }
}
