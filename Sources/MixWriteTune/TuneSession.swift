import Foundation
import MixWrite

/// The one owner of the preview (decoded pictures, the keyer) and of the render: requests come in at once,
/// the actor takes them one at a time, so 50 requests at once queue and never share a picture.
actor TuneSession {
    private let preview: BlendPreview
    let job: BlendJob
    let initial: TuneSettings
    /// Every source and track name the mix knows: `fx`, `fx:1`, `base`, `audio1` …
    let names: Set<String>
    private var loudness: [String: Double]?
    private var render = RenderState()
    private var renderTask: Task<Void, Never>?

    struct RenderState: Codable, Sendable {
        var state = "idle"
        var progress = 0.0
        var error: String?
        var output: String?
    }

    init(job: BlendJob) throws(MixWriteError) {
        let p = try BlendPreview(job: job)
        preview = p
        self.job = job
        initial = TuneSettings(job: job, key: p.initialKey)
        names = Set(p.tracks.flatMap { [$0.label, $0.name] })
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
        var width, height: Int
        var frameRate: Double
        var settings: TuneSettings
        var tracks: [Track]
    }

    func info() -> Info {
        Info(fx: job.fx, base: job.base, output: job.output, duration: preview.duration, width: preview.width,
             height: preview.height, frameRate: preview.frameRate.doubleValue, settings: initial,
             tracks: preview.tracks.map { Info.Track(name: $0.name, source: $0.label, codec: $0.codec, channels: $0.channels) })
    }

    func picture(at t: Double, settings: TuneSettings, view: BlendPreview.View) throws(RequestError) -> [UInt8] {
        guard t.isFinite, t >= 0, t < preview.duration else {
            throw .bad("t must be between 0 and \(preview.duration) s")
        }
        do { return try preview.picture(at: t, key: settings.key, view: view) } catch { throw .failed(error.description) }
    }

    func pick(at t: Double, x: Int, y: Int) throws(RequestError) -> String {
        guard t.isFinite, t >= 0, t < preview.duration else { throw .bad("t must be between 0 and \(preview.duration) s") }
        guard (0..<preview.width).contains(x), (0..<preview.height).contains(y) else {
            throw .bad("(x, y) must be inside the \(preview.width)×\(preview.height) picture")
        }
        do { return OptionValue.hex(try preview.fxColor(at: t, x: x, y: y)) } catch { throw .bad(error.description) }
    }

    /// Each track's loudness, measured once (it decodes all the sound).
    func trackLoudness() throws(RequestError) -> [String: Double] {
        if let loudness { return loudness }
        do { loudness = try preview.trackLoudness() } catch { throw .failed(error.description) }
        return loudness ?? [:]
    }

    /// Starts writing the whole movie with `settings`; an existing output only with `overwrite` (the page asks).
    func startRender(_ settings: TuneSettings, overwrite: Bool) throws(RequestError) -> RenderState {
        if render.state == "running" { throw .conflict("a render is running") }
        var j = settings.applied(to: job)
        if FileManager.default.fileExists(atPath: j.output) && !overwrite {
            throw .conflict("\(j.output) exists; confirm to replace it")
        }
        j.overwrite = overwrite
        render = RenderState(state: "running", progress: 0, error: nil, output: j.output)
        let finalJob = j
        renderTask = Task {
            do {
                _ = try await MixWriter(finalJob).run { update in Task { await self.progressed(update.progress) } }
                finished(nil)
            } catch {
                finished((error as? MixWriteError)?.description ?? "\(error)")
            }
        }
        return render
    }

    func renderState() -> RenderState { render }

    /// Stops a render in progress (its partial file is removed by the pipeline) and waits for it.
    func stop() async {
        renderTask?.cancel()
        await renderTask?.value
    }

    private func progressed(_ p: Double) { if render.state == "running" { render.progress = max(render.progress, p) } }

    private func finished(_ error: String?) {
        render.state = error == nil ? "done" : "failed"
        render.error = error
        if error == nil { render.progress = 1 }
    }
}
