import Foundation
@_spi(Tools) import MixWrite

/// The one owner of the preview (decoded pictures, the keyer) and of the render: requests come in at once,
/// the actor takes them one at a time, so 50 requests at once queue and never share a picture. What differs by
/// kind of job is its `Composition`; the rest is this.
actor TuneSession {
    private let composition: any Composition
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

    /// The options of the job's kind as the job file's schema describes them (`/api/options`' `job`).
    nonisolated let optionSchema: String

    init(job: any TunableJob) throws(MixWriteError) {
        optionSchema = job.optionSchema
        try MixWriter.refuseOutputAmongInputs(job)
        MixWriter.removeStaleTemporaryFiles(for: job.output)
        composition = try job.composition()
    }

    /// What the page needs to draw its controls, for `settings` (a concat's order and frame change its timeline).
    func info(_ settings: TuneSettings) throws(RequestError) -> TuneInfo { try composition.info(settings) }

    /// The job's settings as the command line gave them (a request's settings start from these).
    var initial: TuneSettings { composition.initial }

    func validated(_ settings: TuneSettings) throws(RequestError) -> TuneSettings { try composition.validated(settings) }

    func picture(at t: Double, settings: TuneSettings, query: [String: String]) throws(RequestError) -> [UInt8] {
        try composition.picture(at: t, settings: settings, query: query)
    }

    func pick(at t: Double, x: Double, y: Double) throws(RequestError) -> String {
        guard let blend = composition as? BlendComposition else { throw .bad("only a blend has a key colour to pick") }
        return try blend.pick(at: t, x: x, y: y)
    }

    /// Layer `layer`'s screen colour read from its border (0 the FX's), as the fine keyer reads it given no key colour.
    func screenColor(layer: Int, settings: TuneSettings) throws(RequestError) -> String {
        guard let blend = composition as? BlendComposition else { throw .bad("only a blend has a key colour to read") }
        return try blend.screenColor(layer: layer, settings: settings)
    }

    /// fx's picture at `t` saved as a clean plate (beside the output); its path.
    func plate(at t: Double) throws(RequestError) -> String {
        guard let blend = composition as? BlendComposition else { throw .bad("only a blend has a screen to take a plate of") }
        return try blend.plate(at: t)
    }

    /// The command and the job-file entry for `settings`.
    func command(_ settings: TuneSettings) throws(RequestError) -> (command: String, job: String) {
        let j = try composition.job(with: settings)
        return (j.commandLine, j.jobEntry)
    }

    /// Each track's loudness (LUFS by track name; silent tracks left out).
    func trackLoudness() async throws(RequestError) -> [String: Double] {
        let measure = composition.loudness
        let task = loudness ?? Task.detached { try measure() }
        loudness = task
        do { return try await task.value } catch { throw .failed((error as? MixWriteError)?.description ?? "\(error)") }
    }

    /// How long an audition is, and how much of it comes before T.
    static let auditionSeconds = 3.0
    static let auditionLead = 1.0
    static let auditionPreset = "ultrafast"

    /// A few seconds around `t` with `settings`, picture and mixed sound, as an MP4 for the page's `<video>` (a
    /// remix's: its sound, as M4A): the job itself cut to an excerpt, written to a temporary file that is read and
    /// removed. Returns the bytes and their MIME type.
    func audition(at t: Double, settings: TuneSettings) async throws(RequestError) -> (bytes: [UInt8], type: String) {
        let duration = try composition.info(settings).duration
        try checkTime(t, within: duration)
        if auditionTask != nil { throw .conflict("an audition is being made") }
        let length = min(Self.auditionSeconds, duration)
        let start = max(0, min(t - Self.auditionLead, duration - length))
        var j = try composition.audition(with: settings, start: start, length: length)
        let type = composition.auditionType
        j.output = FileManager.default.temporaryDirectory.appendingPathComponent("mixwrite-audition-\(UUID().uuidString).\(type)").path
        j.run.overwrite = false
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
        do { return (try await task.value, type == "m4a" ? "audio/mp4" : "video/mp4") } catch let e as MixWriteError {
            if case .usage(let m) = e { throw .bad(m) }
            throw .failed(e.description)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Starts writing the whole movie with `settings`; an existing output only with `overwrite` (the page asks).
    func startRender(_ settings: TuneSettings, overwrite: Bool) throws(RequestError) -> RenderState {
        if render.state == "running" { throw .conflict("a render is running") }
        var j = try composition.job(with: settings)
        if FileManager.default.fileExists(atPath: j.output) && !overwrite {
            throw .conflict("\(j.output) exists; confirm to replace it")
        }
        j.run.overwrite = overwrite
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
