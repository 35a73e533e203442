import Foundation
@_spi(Tools) import MixWrite

extension BlendJob: TunableJob {
    func composition() throws(MixWriteError) -> any Composition { try BlendComposition(self) }
}

/// `mixwrite tune FX BASE`: the key and the mix over `BlendPreview`.
final class BlendComposition: Composition {
    let kind = "blend"
    let parts = ["key", "layers", "view"]
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
        var info = TuneInfo(kind: kind, parts: parts, output: blend.output, duration: preview.duration, width: preview.width, height: preview.height,
                            frameRate: preview.frameRate.doubleValue, settings: initial, tracks: preview.tracks)
        (info.fx, info.base, info.fxDuration, info.layers) = (blend.fx, blend.base, preview.fxDuration, layerFiles)
        info.describeCaptions(of: blend, burns: true)
        return info
    }

    /// The preview of the layers `settings` place and the captions it burns: the one held while they stay.
    private func preview(for settings: TuneSettings) throws(RequestError) -> BlendPreview {
        let j = try blendJob(settings)
        if j.allLayers.map(\.placement) != preview.job.allLayers.map(\.placement) || j.captions.drawn != preview.job.captions.drawn {
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

    /// Layer `layer`'s screen colour read from its border (0 the FX's; the fine keyer's given no colour), or from its
    /// key's garbage rectangles' in `settings`, with the layers where `settings` place them.
    func screenColor(layer: Int, settings: TuneSettings) throws(RequestError) -> String {
        let preview = try preview(for: settings)
        let key = layer == 0 ? settings.key : settings.layerKeys?.dropFirst(layer - 1).first
        do { return OptionValue.hex(try preview.fxScreenColor(layer: layer, garbage: key?.garbage ?? [])) } catch {
            throw .bad(error.description)
        }
    }

    func job(with settings: TuneSettings) throws(RequestError) -> any TunedJob { try blendJob(settings) }

    private func blendJob(_ settings: TuneSettings) throws(RequestError) -> BlendJob {
        let j = try settings.applied(to: blend, tracks: tracks).checked()
        for key in [settings.key] + (settings.layerKeys ?? []) where key.cleanPlate != nil { try checkPlate(key) }
        return j
    }

    /// The clean plates found good, by path and key colour (a plate is read once, not at each slider's move).
    private var goodPlates: Set<String> = []

    /// The plates the page took (`plate(at:)`), which it may key by besides the command line's.
    private var takenPlates: Set<String> = []

    /// The clean plates a page may name: the command line's and those it took. The page never names another file: a
    /// path of its choosing would have the server open any file and say how that went (`/etc/shadow`: not media).
    private var allowedPlates: Set<String> {
        Set(([blend.key.cleanPlate] + blend.layers.map(\.key.cleanPlate)).compactMap { $0 }).union(takenPlates)
    }

    private func checkPlate(_ key: KeySettings) throws(RequestError) {
        let id = "\(key.keyColorHex) \(key.cleanPlate ?? "")"
        guard !goodPlates.contains(id) else { return }
        if let plate = key.cleanPlate, !allowedPlates.contains(plate) {
            throw .bad("clean-plate: not a plate the command line named or this page took")
        }
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
        takenPlates.insert(path)
        return path
    }

    func audition(with settings: TuneSettings, start: Double, length: Double) throws(RequestError) -> any TunedJob {
        var j = try blendJob(settings)
        (j.run.start, j.run.length) = (start, length)
        // The same blend and mix; x264's fastest preset, since it is heard and seen once (the file is larger).
        j.picture.preset = TuneSession.auditionPreset
        j.hdr = .sdr   // the browser plays H.264: the audition is the SDR picture
        return j
    }
}
