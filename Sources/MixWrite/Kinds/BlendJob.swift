import FFmpegSupport

/// Which input decides how long the output is.
public enum DurationPolicy: String, Sendable, Codable, CaseIterable {
    case base, fx, shortest, longest
}

/// Chroma-key blend `fx` over `base` and mix every audio track of both (and of `audio.files`).
public struct BlendJob: Sendable {
    public var fx: String
    public var base: String
    public var output: String
    /// How it runs: `-y`, `--strict`, threads, an excerpt, parts, smart rendering (`RunSettings`).
    public var run = RunSettings()
    /// The picture: size and rate (nil: base's), fit (GPUImage stretches), codec and quality.
    public var picture = PictureSettings(fit: .stretch)
    public var key = KeySettings()
    /// Pick the key colour from fx's border (`--key-color auto`) instead of `key.keyColor`.
    public var autoKeyColor = false
    /// Chroma key, or fx's own alpha (`--key`): by default alpha when fx has an alpha channel.
    public var compositing: Compositing = .auto
    /// Where fx goes in time and space (`--at`, `--in`, `--out`, `--place`, `--opacity`); default: from 0, the whole
    /// frame, as GPUImage.
    public var placement = LayerPlacement()
    /// More fx over base, composited in order over fx (`--layer`, a job file's `layers`).
    public var layers: [Layer] = []
    /// `--hdr`: `sdr` tone-maps an HDR input to SDR BT.709; `keep` keeps an HDR base HDR (HEVC Main 10, BT.2020, its HLG or PQ), fx placed into it at 203 cd/m².
    public var hdr = HDRMode.sdr
    public var duration: DurationPolicy = .base
    public var audio = AudioOptions()
    /// Caption files added as tracks or drawn into the picture (`--captions`, `--burn-captions`).
    public var captions = CaptionSettings()
    /// The movie's title and start timecode (`--title`, `--timecode`).
    public var tags = MovieTags()

    public init(fx: String, base: String, output: String) {
        self.fx = fx
        self.base = base
        self.output = output
    }

    /// Checks the options (ranges, names of presets), without opening a file.
    public func validate() throws(MixWriteError) {
        try picture.validate()
        try validateKey()
        try validateLayers()
        try validateExcerpt()
        try validateParts()
        try audio.validate()
        try captions.validate()
    }
}

extension BlendJob: DescribedJob, CommonJob, KeyedJob, PartedJob, ExcerptedJob, SmartJob, CaptionedJob, TaggedJob {
    static let kind = "blend"
    static let command = ["mixwrite"]
    static let abstract = "Key FX's green screen over BASE and mix every audio track of both (the default command)."
    static let example = "mixwrite fx.mov base.mov -o out.mov"
    static var blank: Self { BlendJob(fx: "", base: "", output: "") }

    /// `mixwrite FX BASE -o OUT` and every option of a blend.
    static var options: [JobOption<Self>] {
        [.path("fx", \.fx, required: false, help: "The effect clip, shot on a green (or --key-color) screen (none when --layer gives every layer)."),
         .path("base", \.base, help: "The clip shown where FX is keyed out."),
         .path("output", \.output, form: .short("-o"), help: "The movie to write (.mov, .mp4, .m4v, .mkv or .webm).")]
            + PictureSettings.options(blank.picture).map { $0.lifted(\.picture) }
            + [.choice("duration", \.duration, default: blank.duration, help: "Which input sets the output length: base, fx, shortest or longest.")]
            + smartOptions
            + excerptOptions + [compositingOption, hdrOption] + keyOptions
            + LayerPlacement.options.map { $0.lifted(\.placement) } + [layersOption]
            + [AudioOptions.filesOption.lifted(\.audio)] + AudioOptions.options.map { $0.lifted(\.audio) }
            + captionOptions + tagOptions + partOptions + commonOptions
    }

    static var compositingOption: JobOption<Self> {
        .choice("key", \.compositing, default: blank.compositing,
                help: "How fx is laid over base: auto (by fx's own alpha when it has one, else the chroma key), chroma, alpha or none (as it is, opaque: a picture-in-picture).")
    }

    /// `hdr`: `sdr` or `keep`.
    static var hdrOption: JobOption<Self> {
        .choice("hdr", \.hdr, default: .sdr, help: "sdr: an HDR input tone-mapped to SDR BT.709; keep: an HDR base kept (HEVC Main 10, its HLG or PQ), fx placed at 203 cd/m².")
    }

    /// A job file's entry; one without `fx` whose `layers` give every layer takes the first of them as its fx.
    public init(from decoder: any Swift.Decoder) throws {
        try self.init(describedBy: decoder)
        guard fx.isEmpty else { return }
        let index = decoder.codingPath.last?.intValue
        guard !layers.isEmpty else { throw JobProblem(index: index, key: "fx", what: "is missing (or 'layers' gives every layer)") }
        let d = BlendJob.blank
        guard placement == d.placement, key == d.key, !autoKeyColor, compositing == d.compositing else {
            throw JobProblem(index: index, key: "fx", what: "is missing, and the fx's own options (at, place, key-color …) are given: "
                             + "with 'layers' alone each layer carries its own")
        }
        let first = layers.removeFirst()
        (fx, placement, key, autoKeyColor, compositing) = (first.fx, first.placement, first.key, first.autoKeyColor, first.compositing)
    }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    public var inputPaths: [String] { [fx, base] + layers.map(\.fx) + audio.files + ([key] + layers.map(\.key)).compactMap(\.cleanPlate) }

    func prepare() throws(MixWriteError) -> PreparedJob {
        var (baseFile, videoPlan) = try planVideo()
        let wholeLength = videoPlan.length
        let extra = try audio.extraFiles()
        var output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths)
        let codecs = try output.container.codecs(video: try picture.codec(keepingHDR: hdr == .keep), audio: audio.codec)
        if let selection {
            _ = try selection.frames(of: videoPlan.video.wholeFrameCount)   // refused before the part's folder is made
            output = try partOutput(selection, final: output, video: codecs.video, audio: codecs.audio, inputs: inputPaths)
        }
        videoPlan.video.encoding.codec = codecs.video
        let fxFiles = videoPlan.layers.map(\.fx)
        let conversions = videoPlan.hdr.map { h in
            ColorManagement.conversions(of: fxFiles) + fxFiles.map { "\($0.path): SDR placed in HDR (\(h.rawValue), bt2020) at 203 cd/m²" }
        } ?? ColorManagement.conversions(of: fxFiles + [baseFile])
        var warnings = conversions + videoPlan.layers.flatMap(\.notes) + offsetWarnings
        let sources = try audioSources(videoPlan, base: baseFile, extra: extra, audio: audio, strict: run.strict, warnings: &warnings)
        var audioPlan = try audio.plan(sources: sources, duration: wholeLength, codec: codecs.audio)
        audioPlan?.strict = run.strict
        if let excerpt { try excerpt.cut(video: &videoPlan.video, audio: &audioPlan) }
        let chapters = excerpt == nil ? Self.carriedChapters(of: baseFile, length: wholeLength) : []
        var part = try selection.map { (s: PartSelection) throws(MixWriteError) in
            try cutToPart(s, video: &videoPlan.video, audio: &audioPlan, chapters: chapters)
        }
        let placements = videoPlan.layers.enumerated().map { (i, l) in
            var p = SubtitlePlacement(file: l.fx, label: layerLabel(i), start: l.start, from: l.from, length: l.soundLength)
            p.retime = l.retime
            return p
        } + [SubtitlePlacement(file: baseFile, label: "base")]
        let subtitles = try subtitles(placements, output: output, video: &videoPlan.video, part: &part)
        try planSmart(&videoPlan, base: baseFile)
        var prepared = PreparedJob(output: output, duration: videoPlan.length, frameRate: videoPlan.video.frameRate,
                                   video: BlendStage(plan: videoPlan), audio: audioPlan,
                                   key: videoPlan.byAlpha ? nil : videoPlan.key, warnings: warnings, conversions: conversions)
        prepared.keyPicked = keyColorWasRead(videoPlan)
        (prepared.part, prepared.subtitles, prepared.chapters) = (part, subtitles, part == nil ? chapters : [])
        prepared.metadata = try tags.metadata(of: baseFile, firstFrame: part == nil ? videoPlan.video.firstFrame : 0, rate: videoPlan.video.frameRate)
        prepared.layers = laidLayers(videoPlan.layers, sources: audioPlan?.sources ?? [])
        return prepared
    }

    /// Smart rendering's plan (`--smart`) for the frames this render writes: base's GOPs under no layer.
    func planSmart(_ plan: inout BlendStage.Plan, base: MediaFile) throws(MixWriteError) {
        guard run.smart != .off else { return }
        let converted = plan.hdr != nil || !ColorManagement.conversions(of: [base]).isEmpty
        let source = SmartPlan.Source(file: base, shown: 0..<plan.video.wholeFrameCount, name: "base")
        plan.smart = try insisted(SmartPlan.make(sources: [source], video: plan.video, touched: SmartPlan.touched(by: plan.layers, video: plan.video),
                                                 converted: converted ? [0] : [], checked: !run.trustCopies))
    }

    /// Each layer as the report gives it: as asked, with the key it was laid by and its sound's tracks.
    func laidLayers(_ plans: [LayerPlan], sources: [AudioSource]) -> [Report.LaidLayer] {
        zip(allLayers, plans).enumerated().map { (i, pair) in
            let (layer, plan) = pair
            let label = layerLabel(i), p = layer.placement
            return Report.LaidLayer(name: label, fx: layer.fx, at: p.at, in: p.from, out: p.to, place: p.place, opacity: p.opacity,
                                    compositing: plan.opaque ? "as it is" : plan.byAlpha ? "alpha" : "chroma key", key: plan.byAlpha ? nil : plan.key,
                                    still: plan.isStill, tracks: sources.filter { $0.label == label }.map(\.name),
                                    speed: p.speed == 1 && !p.reverse ? nil : p.speed * (p.reverse ? -1 : 1), freeze: p.freeze > 0 ? p.freeze : nil)
        }
    }

    /// `--offset` on a whole fx moves its sound and not its picture: said, with what moves both.
    var offsetWarnings: [String] {
        allLayers.indices.compactMap { i in
            let label = layerLabel(i)
            guard let s = audio.offsets[label], s != 0 else { return nil }
            return "--offset \(label)=\(JobText.number(s)) delays \(label)'s sound only, not its picture; --at moves both together"
        }
    }

    /// The mix's sources: each layer's tracks (`fx`, or `fx1`, `fx2` … with layers) starting with its picture (at its
    /// `--at`, from its `--in`, cut at its `--out`), base's, then the extra files'.
    func audioSources(_ plan: BlendStage.Plan, base: MediaFile, extra: [(String, MediaFile)], audio: AudioOptions, strict: Bool,
                      warnings: inout [String]) throws(MixWriteError) -> [AudioSource] {
        let labels = plan.layers.indices.map(layerLabel)
        var sources = try audio.sources(from: Array(zip(labels, plan.layers.map(\.fx))) + [("base", base)] + extra,
                                        strict: strict, warnings: &warnings)
        for i in sources.indices {
            guard let n = labels.firstIndex(of: sources[i].label) else { continue }
            let layer = plan.layers[n]
            // A held end is silent: the sound lasts the moving span.
            (sources[i].timelineStart, sources[i].head, sources[i].span) = (layer.start, layer.from, layer.moving?.length ?? layer.length)
            if let r = layer.retime { (sources[i].retime, sources[i].span) = (r, layer.soundLength) }
        }
        return sources
    }

    /// Reads every fx and base and decides the picture: size, rate, length, colour, each layer's time, place and key.
    func planVideo() throws(MixWriteError) -> (MediaFile, BlendStage.Plan) {
        try validate()
        let baseFile = try MediaFile(path: base)
        guard baseFile.mainVideo != nil else { throw .input(file: base, "has no video stream; base must be a movie") }
        var files: [MediaFile] = []
        for layer in allLayers {
            let file = try MediaFile(path: layer.fx)
            guard file.mainVideo != nil else { throw .input(file: layer.fx, "has no video stream; fx must be a movie") }
            files.append(file)
        }
        // fx's end: where the last layer's picture ends (a still's at its --out, else with base).
        let baseLength = baseFile.videoDuration ?? .zero
        let fxLength = zip(allLayers, files).map { (layer, file) in
            let (start, _, length) = layer.placement.span
            return file.isStillImage ? length.map { start + $0 } ?? max(baseLength, start) : layer.placement.end(fxLength: file.videoDuration ?? .zero)
        }.max() ?? .zero
        let length: MediaTime
        switch duration {
        case .base: length = baseLength
        case .fx: length = fxLength
        case .shortest: length = min(fxLength, baseLength)
        case .longest: length = max(fxLength, baseLength)
        }
        guard length > .zero else { throw .input(file: base, "has no known duration") }
        var video = try picture.videoPlan(reference: baseFile, length: length, strict: run.strict, threads: run.threads)
        let kept = try keptHDR(base: baseFile)
        if kept != nil { video.color = ColorDescription(matrix: .bt2020, fullRange: false) }
        var layerPlans: [LayerPlan] = []
        for (i, (layer, file)) in zip(allLayers, files).enumerated() { layerPlans.append(try layerPlan(i, layer, file, video: video)) }
        let plan = BlendStage.Plan(layers: layerPlans, base: baseFile, video: video, hdr: kept,
                                   light: kept == nil ? nil : baseFile.firstPictureLight())
        return (baseFile, plan)
    }

    /// Layer `i` (`layer`, read from `file`) as the stage lays it: its key (picked from its border with `auto`), its span on the output, its
    /// rectangle and fx fitted into it. A layer that would never show is refused, naming it.
    /// `role`: what messages call it (a timeline's clip); nil: fx, or the layer by its label.
    func layerPlan(_ i: Int, _ layer: Layer, _ file: MediaFile, video: VideoPlan, role: String? = nil) throws(MixWriteError) -> LayerPlan {
        let name = messagePrefix(ofLayer: i, layer)
        let byAlpha = try compositesByAlpha(file, layer.compositing)
        let key = layer.key
        let (start, from, length) = layer.placement.span
        let (at, whole) = (JobText.number(layer.placement.at), JobText.number(video.wholeLength.seconds))
        guard start < video.wholeLength else { throw .usage("\(name)--at \(at) is past the output's end (\(whole) s)") }
        let isStill = file.isStillImage
        if isStill && from > .zero {
            throw .usage("\(name)--in \(JobText.number(layer.placement.from)): \(file.path) is a still picture, with no time of its own "
                         + "(--at and --out place it)")
        }
        if let fxLength = file.videoDuration, !isStill, from > .zero, from >= fxLength {
            throw .usage("\(name)--in \(JobText.number(layer.placement.from)) is past fx's end (\(JobText.number(fxLength.seconds)) s)")
        }
        let first = try VideoTrackReader.firstPicture(in: file, from: from, keepAlpha: byAlpha, as: role ?? (layers.isEmpty ? "fx" : "layer \(layerLabel(i))"))
        var plan = LayerPlan(fx: file, key: key, byAlpha: byAlpha, start: start, from: from, length: length)
        plan.isStill = isStill
        if let r = layer.placement.retime {
            if isStill { throw .usage("\(name)--speed \(JobText.number(layer.placement.speed)): \(file.path) is a still picture, with no time to change") }
            (plan.retime, plan.retimeShift) = (r, r.readTime(at: .zero, rate: video.frameRate))
        }
        try Self.holdOrReverse(&plan, layer.placement, file: file, name: name, rate: video.frameRate)
        plan.opaque = layer.compositing == .none
        if let idle = layer.idleKeyOptions(byAlpha: byAlpha, unkeyed: plan.opaque) { plan.notes.append(name + idle) }
        if byAlpha && layer.compositing == .auto && first.isOpaque {
            plan.notes.append("\(file.path): its alpha is opaque everywhere (its first picture), so it hides "
                              + "\(layers.isEmpty ? "base" : "what is under it") and nothing is keyed; if it is shot on a screen, --key chroma keys it")
        }
        if !byAlpha && !plan.opaque {
            let own = file.displaySize ?? (2, 2)
            let keyed = KeyColorPicker.Keyed(wholeFrame: layer.placement.isWholeFrame, output: video, own: own)
            plan.key = try layer.keyPicked(for: file, keyed: keyed, notes: &plan.notes)
        }
        if !byAlpha { try Self.checkPlate(plan.key, name: name) }
        plan.opacity = Int((layer.placement.opacity * 255).rounded())
        guard !layer.placement.isWholeFrame else { return plan }
        let r = layer.placement.place ?? [0, 0, video.width, video.height]
        let rect = Placement(x: r[0] & ~1, y: r[1] & ~1, width: max(2, r[2] & ~1), height: max(2, r[3] & ~1))
        guard rect.x < video.width, rect.y < video.height, rect.x + rect.width > 0, rect.y + rect.height > 0 else {
            throw .usage("\(name)--place \(r.map(String.init).joined(separator: ",")): the rectangle is wholly outside the "
                         + "\(video.width)x\(video.height) frame")
        }
        let own = file.displaySize ?? (2, 2)
        let fitted = Placement(fitting: Double(own.width), Double(own.height), into: rect.width, rect.height, fit: video.fit)
        (plan.ownSize, plan.rect) = (own, rect)
        plan.place = Placement(x: rect.x + fitted.x, y: rect.y + fitted.y, width: fitted.width, height: fitted.height)
        return plan
    }

    /// A reversed or held layer's moving span, which it must know (mirrored, or held after): `--out`'s, else to fx's
    /// end at its speed; its length on the output that and the hold.
    static func holdOrReverse(_ plan: inout LayerPlan, _ p: LayerPlacement, file: MediaFile, name: String, rate: Rational) throws(MixWriteError) {
        guard p.reverse || p.freeze > 0 else { return }
        let what = p.reverse ? "--reverse" : "--freeze \(JobText.number(p.freeze))"
        if plan.isStill { throw .usage("\(name)\(what): \(file.path) is a still picture, with no time to change") }
        guard let fxLength = file.videoDuration else { throw .input(file: file.path, "has no known duration (\(what) needs fx's length)") }
        let rest = p.shown(fxLength - plan.from)
        let frame = MediaTime(frames: 1, rate: rate)
        let moving = max(frame, min(plan.length ?? rest, rest))
        plan.moving = (moving, frame)
        plan.length = moving + (MediaTime(seconds: p.freeze) ?? .zero)
    }

    /// Whether fx's key colour was read from its border (`--key-color auto`, or the fine keyer given none): fx keyed
    /// (not laid by its alpha or as it is), and its border a screen.
    func keyColorWasRead(_ plan: BlendStage.Plan) -> Bool {
        !plan.byAlpha && !plan.layers[0].opaque && keyColorWasRead(plan.key)
    }

    /// `--hdr keep`'s transfer: base's HLG or PQ. Refused without an HDR base.
    func keptHDR(base: MediaFile) throws(MixWriteError) -> HDRTransfer? {
        guard hdr == .keep else { return nil }
        guard let transfer = base.mainVideo?.hdr else {
            throw .usage("--hdr keep: \(base.path) is not HDR (HLG or PQ); without an HDR base there is nothing to keep")
        }
        return transfer
    }

    /// Whether fx is laid over base by its own alpha: `--key alpha`, or `auto` and fx has one. `--key alpha` on an fx
    /// without alpha is refused.
    func compositesByAlpha(_ fx: MediaFile, _ compositing: Compositing) throws(MixWriteError) -> Bool {
        let has = fx.mainVideo?.hasAlpha ?? false
        switch compositing {
        case .chroma: return false
        case .none: return true
        case .auto: return has
        case .alpha:
            guard has else {
                throw .input(file: fx.path, "has no alpha channel, so --key alpha has nothing to composite by (use --key chroma)")
            }
            return true
        }
    }

    /// Each track's integrated loudness (LUFS) by its command-line name (`fx:1`), muted or not; silent tracks
    /// (or shorter than 0.4 s) are left out. Decodes all the sound, each track on its own.
    public func trackLoudness() throws(MixWriteError) -> [String: Double] {
        var j = self
        j.autoKeyColor = false
        (j.audio.mute, j.audio.duck) = ([], [:])
        let (baseFile, video) = try j.planVideo()
        var ignored: [String] = []
        let sources = try j.audioSources(video, base: baseFile, extra: j.audio.extraFiles(), audio: j.audio, strict: false, warnings: &ignored)
        return try j.audio.plan(sources: sources, duration: video.length)?.trackLoudness() ?? [:]
    }

    /// Writes the blended picture at output time `time` to `output` as PNG, without encoding a movie:
    /// for tuning the key by eye. Seeks both inputs, so it takes about as long as decoding one GOP.
    @_spi(Tools) public func renderFrame(at time: MediaTime) throws(MixWriteError) -> FrameReport {
        let started = ContinuousClock.now
        var sdr = self
        sdr.hdr = .sdr   // a PNG is SDR: the picture as `--hdr sdr` makes it
        let (_, plan) = try sdr.planVideo()
        let output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths, kind: .picture)
        let length = plan.length
        guard time >= .zero, time < length else {
            throw .usage("--frame \(time.seconds) is outside the output (0 to \(length.seconds) s)")
        }
        let picture = try BlendStage.picture(plan, at: time)
        let bytes: [UInt8]
        do { bytes = try Encoder.png(picture) } catch { throw .processing(error, file: output.path) }
        try output.write(bytes)
        return FrameReport(output: output.path, time: time.seconds, width: plan.video.width, height: plan.video.height,
                           key: plan.key, seconds: (ContinuousClock.now - started).seconds,
                           keyPicked: keyColorWasRead(plan),
                           warnings: plan.layers.flatMap(\.notes))
    }
}

/// What `renderFrame(at:)` wrote.
@_spi(Tools)
public struct FrameReport: Sendable, Codable {
    public var output: String
    public var time: Double
    public var width: Int
    public var height: Int
    public var key: KeySettings
    public var seconds: Double
    /// Whether `key`'s colour was read from fx's border (`--key-color auto`, or the fine keyer given none).
    public var keyPicked: Bool
    /// What the picture's user should know (an auto key colour moved off the screen's).
    public var warnings: [String] = []
}
