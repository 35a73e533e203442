import Foundation
import FFmpegSupport

extension MixJob {
    /// Writes the job as an OpenTimelineIO timeline to `path` (.otio), not replacing a file without the job's `-y`.
    @_spi(Tools) public func writeTimeline(to path: String) throws(MixWriteError) {
        let overwrite = (self as? any CommonJob)?.run.overwrite ?? false
        let file = try OutputFile(path: path, overwrite: overwrite, inputs: inputPaths, kind: .timeline)
        try file.write([UInt8](try otioTimeline()))
    }

    /// The job as an OpenTimelineIO timeline (`--otio FILE`), JSON; a kind or a job a timeline cannot hold is refused
    /// saying why.
    @_spi(Tools) public func otioTimeline() throws(MixWriteError) -> Data {
        switch self {
        case let job as BlendJob: return try job.exported().json()
        case let job as ConcatJob: return try job.exported().json()
        case let job as StillJob: return try job.exported().json()
        case let job as RemixJob: return try job.exported().json()
        case let job as RenderJob:
            guard let data = FileManager.default.contents(atPath: job.timeline) else { throw .input(file: job.timeline, "cannot be read") }
            return data
        default: throw .usage("--otio: a \(kind) job has no timeline form (its output is a layer, not a movie)")
        }
    }
}

extension BlendJob {
    /// Base on V1 for the output's length; each layer on a track of its own above, at its place and span, its key
    /// (the one it was laid by: an `auto` colour as picked), place and opacity its clip's settings.
    func exported() throws(MixWriteError) -> OTIOExport {
        guard hdr != .keep else { throw .usage("--otio: --hdr keep has no timeline form yet") }
        let (baseFile, plan) = try planVideo()
        let (rate, total) = (plan.video.frameRate, plan.video.wholeLength)
        guard let baseLength = baseFile.videoDuration, baseLength.ticks(in: rate.inverted) >= plan.video.wholeFrameCount else {
            throw .usage("--otio: base ends before the output does (--duration \(duration.rawValue)), and a timeline cannot hold its last picture")
        }
        var export = OTIOExport(name: (output as NSString).lastPathComponent, rate: rate)
        export.video = [[OTIOExport.clip("base", baseFile, start: .zero, duration: total, rate: rate)]]
        var names = ["base": "clip1"]
        for (i, (layer, laid)) in zip(allLayers, plan.layers).enumerated() {
            if layer.placement.freeze > 0 || layer.placement.pitchFollows {
                throw .usage("--otio: layer \(layerLabel(i))'s \(layer.placement.freeze > 0 ? "freeze" : "pitch=follow") has no timeline form yet (speed and reverse have)")
            }
            // It shows for its --in to --out, while fx has pictures (a still: for its span), and within the output.
            var end = min(total, laid.length.map { laid.start + $0 } ?? total)
            if !laid.isStill, let fxLength = laid.fx.videoDuration { end = min(end, laid.start + laid.shown(fxLength - laid.from)) }
            let span = end - laid.start
            guard span > .zero else { continue }
            var items: [[String: Any]] = laid.start > .zero ? [OTIOExport.gap(laid.start, rate: rate)] : []
            var clip = OTIOExport.clip(layerLabel(i), laid.fx, start: laid.isStill ? .zero : laid.from, duration: span, rate: rate,
                                       settings: try Self.layerSettings(layer, laid))
            // Its speed as OTIO says it: the clip lasts its span on the track, its media that at the speed.
            if let r = laid.retime { clip["effects"] = [OTIOExport.timeWarp(r.speed.doubleValue * (r.reversed ? -1 : 1))] }
            items.append(clip)
            export.video.append(items)
            names[layerLabel(i)] = "clip\(export.video.count)"
        }
        let extra = try audio.extraFiles()
        for (k, (label, _)) in extra.enumerated() { names[label] = "clip\(export.video.count + k + 1)" }
        export.addAudioFiles(extra, total: total)
        try export.setOptions(picture: picture, audio: audio, names: names)
        return export
    }

    /// A layer's `metadata.mixwrite`: its options as a job file writes them but its time (the track's), with the key
    /// it was laid by and how (`key`: chroma, alpha or none) said outright.
    static func layerSettings(_ layer: Layer, _ laid: LayerPlan) throws(MixWriteError) -> [String: Any] {
        var written = layer
        (written.key, written.autoKeyColor) = (laid.key, false)
        written.compositing = laid.opaque ? .none : laid.byAlpha ? .alpha : .chroma
        var holder = BlendJob(fx: "", base: "", output: "")
        holder.layers = [written]
        guard var settings = (try OTIOExport.entry(of: holder)["layers"] as? [[String: Any]])?.first else {
            throw .processing(file: nil, "the layer's options cannot be written")
        }
        for key in ["fx", "at", "in", "out", "speed", "reverse", "freeze", "pitch"] { settings[key] = nil }
        return settings
    }
}

extension ConcatJob {
    /// The clips on V1, each transition a dissolve (or mixwrite's kind) over its crossing, split as evenly as whole
    /// frames allow between the two clips' handles; a chapter marker where each clip is fully in, the events on their
    /// clips (chapters too with `--event-chapters`).
    func exported() throws(MixWriteError) -> OTIOExport {
        guard hdr != .keep else { throw .usage("--otio: --hdr keep has no timeline form yet") }
        try validate()
        let specs = try clipSpecs()
        if let held = specs.first(where: { $0.freeze > 0 }) {
            throw .usage("--otio: \(held.path):freeze=\(NumberText.shortest(held.freeze)) has no timeline form yet (speed and reverse have)")
        }
        if let ramped = specs.first(where: { $0.ramp != nil }) {
            throw .usage("--otio: \(ramped.path)'s speed ramp has no timeline form (OTIO has no ramp; speed and reverse have one)")
        }
        let files = try specs.map { (c: ConcatClip) throws(MixWriteError) -> MediaFile in try MediaFile(path: c.path) }
        var settings = picture
        _ = Self.outputRate(files, settings: &settings)
        let rate = settings.frameRate!
        let (pieces, starts, _) = try pieces(files, specs, rate: rate)
        func t(_ n: Int) -> MediaTime { MediaTime(frames: Int64(n), rate: rate) }
        var export = OTIOExport(name: (output as NSString).lastPathComponent, rate: rate)
        var items: [[String: Any]] = [], marks: [[String: Any]] = []
        let fullyIn = Self.fullyIn(pieces: pieces, starts: starts, rate: rate)
        for (c, piece) in pieces.enumerated() {
            let inPrev = c > 0 ? (pieces[c - 1].crossing?.frames ?? 0) / 2 : 0
            let outNext = piece.crossing.map { $0.frames - $0.frames / 2 } ?? 0
            var clipMarks: [[String: Any]] = []
            for e in events where e.clip == c {
                clipMarks.append(OTIOExport.marker(e.name, at: MediaTime(seconds: String(e.time)) ?? .zero, rate: rate, chapter: eventChapters))
            }
            var clip = OTIOExport.clip("clip\(c + 1)", piece.file, start: t(inPrev), duration: t(piece.frames - inPrev - outNext), rate: rate,
                                       markers: clipMarks)
            if let r = piece.retime {
                // Its in-point is where the media it shows starts, its handle before it media at the speed (reversed: the
                // handle after it, which is media before what it shows); a LinearTimeWarp says the speed.
                clip["source_range"] = OTIOExport.range(r.media(t(r.reversed ? outNext : inPrev)), t(piece.frames - inPrev - outNext), rate: rate)
                clip["effects"] = [OTIOExport.timeWarp(r.speed.doubleValue * (r.reversed ? -1 : 1))]
            }
            items.append(clip)
            if let crossing = piece.crossing {
                items.append(OTIOExport.transition(crossing.kind, in: t(crossing.frames / 2), out: t(crossing.frames - crossing.frames / 2), rate: rate))
            }
            marks.append(OTIOExport.marker((piece.file.path as NSString).lastPathComponent, at: fullyIn[c], rate: rate))
        }
        export.video = [items]
        let total = t(pieces.enumerated().reduce(0) { $0 + ($1.offset + 1 < pieces.count ? $1.element.ownFrames : $1.element.frames) })
        let extra = try audio.extraFiles()
        var names: [String: String] = [:]
        for (k, (label, _)) in extra.enumerated() { names[label] = "clip\(files.count + k + 1)" }
        export.addAudioFiles(extra, total: total)
        try export.setOptions(picture: settings, audio: audio, names: names, curve: transitionCurve, smart: run.smart, trust: run.trustCopies)
        export.chapterMarks = marks
        return export
    }
}

extension StillJob {
    /// The picture on V1 for the sound's length; each sound file on an audio track of its own.
    func exported() throws(MixWriteError) -> OTIOExport {
        try validate()
        guard background.allSatisfy({ $0 == 0 }) else { throw .usage("--otio: --background has no timeline form yet (a timeline's bars are black)") }
        let image = try MediaFile(path: self.image)
        let sounds = try audioFiles.enumerated().map { (i, path) throws(MixWriteError) in ("audio\(i + 1)", try MediaFile(path: path)) }
        let length = sounds.compactMap { $0.1.totalDuration }.max() ?? .zero
        guard length > .zero else { throw .input(file: audioFiles.first ?? self.image, "has no known duration") }
        let rate = picture.frameRate ?? Self.defaultFrameRate
        var export = OTIOExport(name: (output as NSString).lastPathComponent, rate: rate)
        export.video = [[OTIOExport.clip("image", image, start: .zero, duration: length, rate: rate)]]
        var names: [String: String] = [:]
        for (k, (label, _)) in sounds.enumerated() { names[label] = "clip\(k + 2)" }
        export.addAudioFiles(sounds, total: length)
        var settings = picture
        settings.frameRate = rate
        try export.setOptions(picture: settings, audio: audio, names: names)
        return export
    }
}

extension RemixJob {
    /// The movie on V1, whole, every track of its sound with it; each `--audio` file on an audio track of its own.
    func exported() throws(MixWriteError) -> OTIOExport {
        try validate()
        let file = try MediaFile(path: movie)
        guard let video = file.mainVideo, let length = file.videoDuration else {
            throw .usage("--otio: \(movie) has no picture, and a timeline of sound alone is not rendered yet")
        }
        var settings = PictureSettings(fit: .fit)
        settings.frameRate = settings.rate(of: video)
        let rate = settings.frameRate!
        var export = OTIOExport(name: (output as NSString).lastPathComponent, rate: rate)
        export.video = [[OTIOExport.clip("movie", file, start: .zero, duration: length, rate: rate)]]
        let extra = try audio.extraFiles()
        var names = ["movie": "clip1"]
        for (k, (label, _)) in extra.enumerated() { names[label] = "clip\(k + 2)" }
        export.addAudioFiles(extra, total: length)
        try export.setOptions(picture: settings, audio: audio, names: names)
        return export
    }
}

extension OTIOExport {
    /// The render's options for the timeline: the job's picture and mix, its sources renamed (`names`: a job's source
    /// name to the render's `clipN`), `--audio` files left out (they are clips), as a job file's entry has them; a
    /// concat's `--smart` (the render copies the same GOPs).
    mutating func setOptions(picture: PictureSettings, audio: AudioOptions, names: [String: String],
                             curve: FadeCurve = .tri, smart: SmartMode = .auto, trust: Bool = false) throws(MixWriteError) {
        var render = RenderJob(timeline: "", output: "")
        func renamed(_ name: String) -> String {
            let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
            return (names[parts[0]] ?? parts[0]) + (parts.count > 1 ? ":" + parts[1] : "")
        }
        var mix = audio
        mix.files = []
        mix.gains = Dictionary(audio.gains.map { (renamed($0.key), $0.value) }) { $1 }
        mix.offsets = Dictionary(audio.offsets.map { (renamed($0.key), $0.value) }) { $1 }
        mix.duck = Dictionary(audio.duck.map { (renamed($0.key), $0.value) }) { $1 }
        mix.mute = audio.mute.map(renamed)
        (render.picture, render.audio, render.transitionCurve, render.run.smart, render.run.trustCopies) = (picture, mix, curve, smart, trust)
        let entry = try Self.entry(of: render)
        settings = entry.filter { !["kind", "timeline", "output"].contains($0.key) }
    }
}
