import Foundation
@_spi(Tools) import MixWrite

/// The one owner of the preview (decoded pictures, the keyer) and of the render: requests come in at once,
/// the actor takes them one at a time, so 50 requests at once queue and never share a picture.
actor TuneSession {
    private let preview: BlendPreview
    let job: BlendJob
    let initial: TuneSettings
    /// Every track the mix knows, with its source: `fx:1` of `fx` …
    let tracks: [TuneSettings.Track]
    /// Each track's loudness, measured once, off the actor (it decodes all the sound; pictures go on meanwhile).
    private var loudness: Task<[String: Double], any Error>?
    private var render = RenderState()
    private var renderTask: Task<Void, Never>?
    /// The audition being made: one at a time (each is a short render on every core).
    private var auditionTask: Task<[UInt8], any Error>?
    /// Loudness measurements of the mix (`--loudness`, `--level-match`), kept from one audition or render to the
    /// next while the mix stays the same.
    private let measurements = MeasurementCache()

    struct RenderState: Codable, Sendable {
        var state = "idle"
        var progress = 0.0
        var error: String?
        var output: String?
    }

    init(job: BlendJob) throws(MixWriteError) {
        try MixWriter.refuseOutputAmongInputs(job)
        MixWriter.removeStaleTemporaryFiles(for: job.output)
        let p = try BlendPreview(job: job)
        preview = p
        self.job = job
        tracks = p.tracks.map { TuneSettings.Track(source: $0.label, name: $0.name) }
        initial = TuneSettings(job: job, key: p.initialKey, tracks: tracks)
    }

    /// What the page needs to draw its controls.
    struct Info: Encodable, Sendable {
        struct Track: Encodable, Sendable {
            var name: String
            var source: String
            var codec: String
            var channels: Int
        }
        var fx, base, output: String
        var duration: Double
        /// Where fx can be seen: the page opens in the middle of it.
        var fxDuration: Double
        var width, height: Int
        var frameRate: Double
        var settings: TuneSettings
        var tracks: [Track]
    }

    func info() -> Info {
        Info(fx: job.fx, base: job.base, output: job.output, duration: preview.duration, fxDuration: preview.fxDuration, width: preview.width,
             height: preview.height, frameRate: preview.frameRate.doubleValue, settings: initial,
             tracks: preview.tracks.map { Info.Track(name: $0.name, source: $0.label, codec: $0.codec, channels: $0.channels) })
    }

    func picture(at t: Double, settings: TuneSettings, view: BlendPreview.View) throws(RequestError) -> [UInt8] {
        guard t.isFinite, t >= 0, t < preview.duration else {
            throw .bad("t must be between 0 and \(preview.duration) s")
        }
        do { return try preview.picture(at: t, key: settings.key, view: view) } catch { throw .failed(error.description) }
    }

    /// fx's colour at (x, y); the coordinates are checked as numbers before they become integers.
    func pick(at t: Double, x: Double, y: Double) throws(RequestError) -> String {
        guard t.isFinite, t >= 0, t < preview.duration else { throw .bad("t must be between 0 and \(preview.duration) s") }
        guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Double(preview.width), y < Double(preview.height) else {
            throw .bad("(x, y) must be inside the \(preview.width)×\(preview.height) picture")
        }
        do { return OptionValue.hex(try preview.fxColor(at: t, x: Int(x), y: Int(y))) } catch { throw .bad(error.description) }
    }

    /// Each track's loudness (LUFS by track name; silent tracks left out).
    func trackLoudness() async throws(RequestError) -> [String: Double] {
        let job = self.job
        let task = loudness ?? Task.detached { try job.trackLoudness() }
        loudness = task
        do { return try await task.value } catch { throw .failed((error as? MixWriteError)?.description ?? "\(error)") }
    }

    /// How long an audition is, and how much of it comes before T.
    static let auditionSeconds = 3.0
    static let auditionLead = 1.0
    static let auditionPreset = "ultrafast"

    /// A few seconds around `t` with `settings`, picture and mixed sound, as an MP4 for the page's `<video>`:
    /// the job itself cut to an excerpt (`BlendJob.start`, `length`), written to a temporary file that is read and removed.
    func audition(at t: Double, settings: TuneSettings) async throws(RequestError) -> [UInt8] {
        guard t.isFinite, t >= 0, t < preview.duration else { throw .bad("t must be between 0 and \(preview.duration) s") }
        if auditionTask != nil { throw .conflict("an audition is being made") }
        let length = min(Self.auditionSeconds, preview.duration)
        let start = max(0, min(t - Self.auditionLead, preview.duration - length))
        var j = settings.applied(to: job, tracks: tracks)
        (j.start, j.length) = (start, length)
        j.output = FileManager.default.temporaryDirectory.appendingPathComponent("mixwrite-audition-\(UUID().uuidString).mp4").path
        j.overwrite = false
        // The same blend and mix; x264's fastest preset, since it is heard and seen once (the file is larger).
        j.preset = Self.auditionPreset
        j.keepHDR = false   // the browser plays H.264: the audition is the SDR picture
        let (finalJob, measurements) = (j, self.measurements)
        let task = Task<[UInt8], any Error> {
            defer { try? FileManager.default.removeItem(atPath: finalJob.output) }
            _ = try await MixWriter(finalJob, measurements: measurements).run()
            guard let data = FileManager.default.contents(atPath: finalJob.output) else {
                throw MixWriteError.processing(file: finalJob.output, "the audition could not be read back")
            }
            return [UInt8](data)
        }
        auditionTask = task
        defer { auditionTask = nil }
        do { return try await task.value } catch let e as MixWriteError {
            if case .usage(let m) = e { throw .bad(m) }
            throw .failed(e.description)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Starts writing the whole movie with `settings`; an existing output only with `overwrite` (the page asks).
    func startRender(_ settings: TuneSettings, overwrite: Bool) throws(RequestError) -> RenderState {
        if render.state == "running" { throw .conflict("a render is running") }
        var j = settings.applied(to: job, tracks: tracks)
        if FileManager.default.fileExists(atPath: j.output) && !overwrite {
            throw .conflict("\(j.output) exists; confirm to replace it")
        }
        j.overwrite = overwrite
        render = RenderState(state: "running", progress: 0, error: nil, output: j.output)
        let (finalJob, measurements) = (j, self.measurements)
        renderTask = Task {
            do {
                _ = try await MixWriter(finalJob, measurements: measurements).run { update in Task { await self.progressed(update.progress) } }
                finished(nil)
            } catch {
                finished((error as? MixWriteError)?.description ?? "\(error)")
            }
        }
        return render
    }

    func renderState() -> RenderState { render }

    /// Stops a render or an audition in progress (their partial files are removed by the pipeline) and waits for them.
    func stop() async {
        renderTask?.cancel()
        auditionTask?.cancel()
        loudness?.cancel()
        await renderTask?.value
        _ = try? await auditionTask?.value
    }

    private func progressed(_ p: Double) { if render.state == "running" { render.progress = max(render.progress, p) } }

    private func finished(_ error: String?) {
        render.state = error == nil ? "done" : "failed"
        render.error = error
        if error == nil { render.progress = 1 }
    }
}
