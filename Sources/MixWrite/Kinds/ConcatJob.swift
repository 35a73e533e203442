import Foundation
import FFmpegSupport

/// `concat`: clips end to end, video and every audio track of each; one chapter a clip.
public struct ConcatJob: Sendable {
    public var clips: [String]
    public var output: String
    /// How it runs: `-y`, `--strict`, threads, an excerpt, parts, smart rendering (`RunSettings`).
    public var run = RunSettings()
    /// The picture: size (nil: the first clip's, upright) and rate (nil: the first clip's), fit (letterboxed),
    /// codec and quality.
    public var picture = PictureSettings(fit: .fit)
    public var audio = AudioOptions()
    public var events: [ClipEvent] = []
    /// Also mark each event as a chapter (the clip's chapter is split at the event), so players show it.
    public var eventChapters = false
    /// How each clip gives way to the next (`--transition`): a cut, or a transition over which the two overlap.
    public var transition = Transition.cut
    /// The transition between clips K and K+1 (K from 1), instead of `transition` (`--transition-at K=KIND[:S]`).
    public var transitionsAt: [Int: Transition] = [:]
    /// The sound's cross-fade over a transition (`--transition-curve`).
    public var transitionCurve = FadeCurve.qsin
    /// `--hdr`: `sdr` tone-maps an HDR input to SDR BT.709; `keep` keeps the HDR clips HDR (HEVC Main 10, BT.2020).
    public var hdr = HDRMode.sdr
    /// Caption files added as tracks or drawn into the picture (`--captions`, `--burn-captions`).
    public var captions = CaptionSettings()
    /// The movie's title and start timecode (`--title`, `--timecode`).
    public var tags = MovieTags()
    /// How retimed clips fill frames between their media's and what sounds under a freeze (`--interpolate`, `--freeze-audio`).
    public var retiming = RetimeSettings()

    public init(clips: [String], output: String) {
        self.clips = clips
        self.output = output
    }
}

extension ConcatJob: DescribedJob, CommonJob, PartedJob, ExcerptedJob, SmartJob, CaptionedJob, TaggedJob {
    static let kind = "concat"
    static let command = ["mixwrite", "concat"]
    static let abstract = "Put clips end to end, video and every audio track of each; one chapter a clip."
    static let example = "mixwrite concat intro.mov talk.mp4 outro.mov -o show.mp4 --events events.json"
    static var blank: Self { ConcatJob(clips: [], output: "") }

    /// `mixwrite concat CLIP… -o OUT` and every option of a concat. Events given in a job file have no
    /// command-line form but a file (`--events PATH`), so the command leaves them out.
    static var options: [JobOption<Self>] {
        let inputs: [JobOption<Self>] = [
            .paths("clips", \.clips, form: .positional, required: true, valueName: "CLIP",
                   help: "The clips, in order; each may change its time after colons: CLIP:speed=X (0.01 to 100) or a ramp "
                    + "speed=X@T,… (speeds at its own output seconds, linear between), :reverse, :freeze=S (its last frame held S "
                    + "seconds more), :pitch=follow (its sound's pitch with the speed; kept by default)."),
            .path("output", \.output, form: .short("-o"), help: "The movie to write (.mov, .mp4, .m4v, .mkv or .webm)."),
        ]
        let own: [JobOption<Self>] = [
            .flag("event-chapters", \.eventChapters, help: "Also mark each event as a chapter (its clip's chapter is split there)."),
            eventsOption,
            .choice("hdr", \.hdr, default: .sdr, help: "sdr: an HDR clip tone-mapped to SDR BT.709; keep: HDR clips kept (HEVC Main 10, the first HDR clip's HLG or PQ),"
                 + " an SDR clip placed at 203 cd/m², one of the other transfer converted by zscale."),
        ]
        return inputs + PictureSettings.options(blank.picture).map { $0.lifted(\.picture) } + own + transitionOptions
            + RetimeSettings.options.map { $0.lifted(\.retiming) }
            + smartOptions + excerptOptions
            + [AudioOptions.filesOption.lifted(\.audio)] + AudioOptions.options.map { $0.lifted(\.audio) }
            + captionOptions + tagOptions + partOptions + commonOptions
    }

    /// `events`: an array of `{"clip", "time", "name"}`, or the path of a file holding one.
    static var eventsOption: JobOption<Self> {
        JobOption(OptionDeclaration("events", .events, valueName: "FILE",
                                    help: "A JSON array of {\"clip\": K, \"time\": SECONDS, \"name\": TEXT} (K from 0) to re-time onto the output."),
                  read: { (job, input) throws(JobProblem) in
            let what = "must be an array of {\"clip\", \"time\", \"name\"} or the path of one"
            switch try input.either([ClipEvent].self, String.self, what) {
            case .first(let events): job.events = events
            case .second(let path):
                let file = input.resolve(path)
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw JobProblem(index: input.index, key: input.name, what: "cannot be read", file: file)
                }
                do { job.events = try JSONDecoder().decode([ClipEvent].self, from: data) } catch {
                    throw JobProblem(index: input.index, key: input.name,
                                     what: "is not a JSON array of {\"clip\", \"time\", \"name\"} events", file: file)
                }
            }
        }, write: { $0.events.isEmpty ? nil : .events($0.events) })
    }

    /// `transition`, `transition-at` and `transition-curve`.
    static var transitionOptions: [JobOption<Self>] {
        [JobOption(OptionDeclaration("transition", .text(pattern: Transition.pattern, orNumber: false), valueName: "KIND[:S]",
                                     default: .text(blank.transition.description),
                                     help: "How each clip gives way to the next: cut, or an xfade transition over S seconds (1 if not given), the clips"
                                        + " overlapping by S, the sound cross-faded: " + Transition.Kind.allCases.dropFirst().map(\.rawValue).joined(separator: ", ") + "."),
                   read: { (job, input) throws(JobProblem) in
                       let text: String = try input.value("must be a string like fade:1")
                       switch Transition.parse(text) {
                       case .success(let t): job.transition = t
                       case .failure(let problem): throw input.problem("(every boundary): \(problem)")
                       }
                   }, write: { $0.transition == blank.transition ? nil : .text($0.transition.description) }),
         JobOption(OptionDeclaration("transition-at", .texts, valueName: "K=KIND[:S]",
                                     help: "The transition between clips K and K+1 (K from 1) instead of --transition's; repeatable."),
                   read: { (job, input) throws(JobProblem) in
                       for text in try input.texts() {
                           let (k, t) = try Self.boundaryTransition(text, input)
                           job.transitionsAt[k] = t
                       }
                   }, write: { job in
                       job.transitionsAt.isEmpty ? nil : .texts(job.transitionsAt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                   }),
         .choice("transition-curve", \.transitionCurve, default: blank.transitionCurve,
                 help: "The sound's cross-fade over a transition, by afade's curves: qsin (equal power), tri (linear) …")]
    }

    /// `K=KIND[:S]`: boundary K's transition.
    static func boundaryTransition(_ text: String, _ input: OptionInput) throws(JobProblem) -> (Int, Transition) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let k = Int(parts[0]) else {
            throw input.problem("'\(text)' must be K=KIND[:SECONDS], K the boundary's number (1: between clips 1 and 2)")
        }
        switch Transition.parse(parts[1]) {
        case .success(let t): return (k, t)
        case .failure(let problem): throw input.problem("\(text): between clips \(k) and \(k + 1), \(problem)")
        }
    }

    /// The transition between clips `k` and `k + 1` (from 1).
    public func transition(at k: Int) -> Transition { transitionsAt[k] ?? transition }

    public init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    /// Checks the options (ranges, names), without opening a file.
    public func validate() throws(MixWriteError) {
        guard !clips.isEmpty else { throw .usage("concat needs at least one clip") }
        _ = try clipSpecs()
        try picture.validate()
        if let k = transitionsAt.keys.sorted().first(where: { !(1..<clips.count).contains($0) }) {
            let has = clips.count < 2 ? "one clip has none" : "\(clips.count) clips have boundaries 1 to \(clips.count - 1)"
            throw .usage("--transition-at \(k)=\(transition(at: k)): there is no boundary \(k) (\(has))")
        }
        try validateExcerpt()
        try validateParts()
        try audio.validate()
        try captions.validate()
    }

    public var inputPaths: [String] { clips.map { (try? ConcatClip($0))?.path ?? $0 } + audio.files }

    /// The clips with their own time (`b.mov:speed=2`), read from their words.
    func clipSpecs() throws(MixWriteError) -> [ConcatClip] {
        try clips.map { (word: String) throws(MixWriteError) -> ConcatClip in try ConcatClip(word) }
    }

    /// A clip's word split into its file and its own time (`speed=2:reverse`; "" when it plays as it is), and put
    /// together again (the tuning page changes the time, never the file). A malformed time is refused naming the clip.
    @_spi(Tools) public static func clipTime(_ word: String) throws(MixWriteError) -> (path: String, time: String) {
        let path = try ConcatClip(word).path
        return (path, word.count > path.count ? String(word.dropFirst(path.count + 1)) : "")
    }

    @_spi(Tools) public static func clipWord(path: String, time: String) throws(MixWriteError) -> String {
        let word = time.isEmpty ? path : path + ":" + time
        guard try clipTime(word) == (path, time) else {
            throw .usage("concat clip \(path): '\(time)' is not its own time (speed=X, speed=X@T,…, reverse, freeze=S, pitch=follow, after colons)")
        }
        return word
    }

    /// Each clip's file, opened; one without a picture refused.
    func clipFiles(_ specs: [ConcatClip]) throws(MixWriteError) -> [MediaFile] {
        try specs.map { (c: ConcatClip) throws(MixWriteError) -> MediaFile in
            let f = try MediaFile(path: c.path)
            guard f.mainVideo != nil else { throw .input(file: c.path, "has no video stream; a concat clip must be a movie") }
            return f
        }
    }

    func prepare() throws(MixWriteError) -> PreparedJob {
        try validate()
        let specs = try clipSpecs()
        let files = try clipFiles(specs)
        let extra = try audio.extraFiles()
        var output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths)
        let videoCodec = try picture.codec(keepingHDR: hdr == .keep)
        let kept = try keptHDR(files)
        let codecs = try output.container.codecs(video: videoCodec, audio: audio.codec)
        var settings = picture
        let rateNote = Self.outputRate(files, settings: &settings)
        var video = try settings.videoPlan(reference: files[0], length: nil, strict: run.strict, threads: run.threads)
        video.encoding.codec = codecs.video
        if kept != nil { video.color = ColorDescription(matrix: .bt2020, fullRange: false) }
        let (pieces, starts, spans) = try pieces(files, specs, rate: video.frameRate)
        let sounding = Self.moving(pieces, rate: video.frameRate)
        var plan = SequenceStage.Plan(pieces: pieces, video: video)
        plan.interpolation = retiming.interpolation
        (plan.hdr, plan.light) = (kept, kept.flatMap { t in files.first { $0.mainVideo?.hdr == t }?.firstPictureLight() })
        if let selection {
            _ = try selection.frames(of: plan.wholeFrameCount)   // refused before the part's folder is made
            output = try partOutput(selection, final: output, video: codecs.video, audio: codecs.audio, inputs: inputPaths)
        }

        let conversions = kept.map { Self.conversions(of: files, into: $0) } ?? ColorManagement.conversions(of: files)
        var warnings = conversions + (rateNote.map { [$0] } ?? [])
        let sources = try clipSounds(files, specs, extra: extra, pieces: pieces, starts: starts, spans: spans, rate: video.frameRate,
                                     warnings: &warnings)
        var audioPlan = try audio.plan(sources: sources, duration: plan.video.wholeLength, codec: codecs.audio)
        audioPlan?.strict = run.strict
        audioPlan?.crossfadeCurve = transitionCurve
        let timeline = try self.timeline(files, specs: specs, starts: starts, spans: spans, sounding: sounding, crossings: pieces.map(\.crossing),
                                         rate: video.frameRate)
        let chapters = chapters(files: files, specs: specs, marks: Self.fullyIn(pieces: pieces, starts: starts, rate: video.frameRate),
                                starts: starts, spans: spans, sounding: sounding, total: plan.video.wholeLength)
        if let excerpt { try excerpt.cut(video: &plan.video, audio: &audioPlan) }
        // A part's chapters are the joined movie's, in its record.
        var part = try selection.map { (s: PartSelection) throws(MixWriteError) in
            try cutToPart(s, video: &plan.video, audio: &audioPlan, chapters: chapters)
        }
        let subtitles = try subtitles(files.indices.map {
            var p = SubtitlePlacement(file: files[$0], label: "clip\($0 + 1)", start: starts[$0], length: spans[$0], group: "clips")
            // A clip with its own time: its cues at its speed, over its moving part.
            if let r = specs[$0].soundRetime { (p.retime, p.length) = (r, sounding[$0]) }
            return p
        }, output: output, video: &plan.video, part: &part)
        if run.smart != .off { plan.smart = try insisted(Self.smartPlan(plan, converted: kept != nil ? Set(files.indices)
            : Set(files.indices.filter { !ColorManagement.conversions(of: [files[$0]]).isEmpty }), checked: !run.trustCopies)) }
        var prepared = PreparedJob(output: output, duration: plan.video.length, frameRate: plan.video.frameRate,
                                   video: SequenceStage(plan: plan), audio: audioPlan, key: nil, warnings: warnings,
                                   conversions: conversions, chapters: excerpt == nil && part == nil ? chapters : [],
                                   timeline: excerpt == nil ? timeline : nil)
        (prepared.part, prepared.subtitles) = (part, subtitles)
        prepared.metadata = try tags.metadata(of: files[0], firstFrame: part == nil ? plan.video.firstFrame : 0, rate: plan.video.frameRate)
        return prepared
    }

    /// Every track of every clip at its clip's place, for its span, faded over its transitions (a clip with its own
    /// time: at its speed, for its moving part, its held end silent or, with `--freeze-audio hold`, sustained), then
    /// the `--audio` files'.
    func clipSounds(_ files: [MediaFile], _ specs: [ConcatClip], extra: [(String, MediaFile)], pieces: [SequenceStage.Piece],
                    starts: [MediaTime], spans: [MediaTime], rate: Rational, warnings: inout [String]) throws(MixWriteError) -> [AudioSource] {
        let labelled = files.enumerated().map { ("clip\($0.offset + 1)", $0.element) }
        var sources = try audio.sources(from: labelled + extra, strict: run.strict, warnings: &warnings)
        let sounding = Self.moving(pieces, rate: rate)
        // The clips come first among the inputs, so a source's input index below their count is its clip's.
        for i in sources.indices where sources[i].inputIndex < files.count {
            let c = sources[i].inputIndex
            (sources[i].timelineStart, sources[i].span) = (starts[c], spans[c])
            sources[i].fades = Self.fades(clip: c, pieces: pieces, starts: starts, rate: rate)
            guard pieces[c].retime != nil else { continue }
            (sources[i].retime, sources[i].span) = (specs[c].soundRetime, sounding[c])
            if retiming.freezeAudio == .hold && specs[c].freeze > 0 {
                // Its held end sounds too: the moment its last frame shows, sustained.
                var held = specs[c].soundRetime ?? Retime(speed: Rational(1, 1))
                (held.holdsSound, held.heldSound) = (true, spans[c] - sounding[c])
                (sources[i].retime, sources[i].span) = (held, spans[c])
            }
        }
        return sources
    }

    /// Smart rendering's plan for the frames this render writes: each clip's GOPs that no transition touches, at its
    /// place on the output (`converted`: the pieces whose picture is changed on its way, never copied). A timeline's
    /// gap is black (touched, no file read); the clips are named `clip N` in order, gaps not counted. `laidOver`: the
    /// frames something is laid over (a timeline's upper tracks' clips), touched too.
    static func smartPlan(_ plan: SequenceStage.Plan, converted: Set<Int>, checked: Bool, laidOver: [Range<Int>] = []) -> SmartPlan {
        guard plan.ticksPerFrame == 1, plan.lastFrameTicks == nil, plan.background == nil, plan.hdr == nil else {
            return .encodeAll(plan.video.frames, "the clips are drawn into the output (a still, HDR kept)")
        }
        let clips = plan.pieces.indices.filter { !plan.pieces[$0].isGap }
        let sources = clips.enumerated().map { n, i in
            SmartPlan.Source(file: plan.pieces[i].file, offset: plan.starts[i] - Int(plan.pieces[i].inPoint.ticks(in: plan.video.frameRate.inverted)),
                             shown: plan.starts[i]..<(plan.starts[i] + plan.pieces[i].frames), name: "clip \(n + 1)")
        }
        // A transition's frames, a gap's, and a clip's whose time is changed (its frames are not its file's in order).
        var touched = plan.pieces.indices.compactMap { i in plan.pieces[i].crossing.map { _ in plan.starts[i + 1]..<(plan.starts[i] + plan.pieces[i].frames) } }
        touched += plan.pieces.indices.filter { plan.pieces[$0].isGap || plan.pieces[$0].retime != nil }
            .map { plan.starts[$0]..<(plan.starts[$0] + plan.pieces[$0].frames) } + laidOver
        return SmartPlan.make(sources: sources, video: plan.video, touched: touched,
                              converted: Set(clips.indices.filter { converted.contains(clips[$0]) }), checked: checked)
    }

    /// The highest frame rate of the clips, up to 60, unless `--fps` sets one: a slow or variable-rate clip (a phone's
    /// 10.5 fps on average) first would drop the frames of a faster one after it. Said when the clips' rates differ.
    static func outputRate(_ files: [MediaFile], settings: inout PictureSettings) -> String? {
        guard settings.frameRate == nil else { return nil }
        let rates = files.map { settings.rate(of: $0.mainVideo) }
        let highest = rates.max { $0.doubleValue < $1.doubleValue } ?? Rational(30, 1)
        let rate = highest.doubleValue > 60 ? Rational(60, 1) : highest
        settings.frameRate = rate
        guard Set(rates.map { ($0.doubleValue * 100).rounded() }).count > 1 else { return nil }
        let fps = { (r: Rational) in JobText.number(((r.doubleValue * 100).rounded()) / 100) }
        let each = zip(files, rates).map { "\(($0.path as NSString).lastPathComponent) \(fps($1))" }.joined(separator: ", ")
        return "the clips' frame rates differ (\(each) fps): the output is \(fps(rate)) fps, the highest\(highest.doubleValue > 60 ? " up to 60" : ""); --fps sets another"
    }

    /// `--hdr keep`'s transfer: the first HDR clip's. Refused when no clip is HDR.
    func keptHDR(_ files: [MediaFile]) throws(MixWriteError) -> HDRTransfer? {
        guard hdr == .keep else { return nil }
        guard let transfer = files.lazy.compactMap({ $0.mainVideo?.hdr }).first else {
            throw .usage("--hdr keep: no clip is HDR (HLG or PQ), so there is nothing to keep")
        }
        return transfer
    }

    /// What `--hdr keep` does to each clip not already in `transfer`, for the report.
    static func conversions(of files: [MediaFile], into transfer: HDRTransfer) -> [String] {
        files.compactMap { f in
            switch f.mainVideo?.hdr {
            case transfer?: nil
            case nil: "\(f.path): SDR placed in HDR (\(transfer.rawValue), bt2020) at 203 cd/m²"
            case let other?: "\(f.path): HDR (\(other.rawValue)) converted to \(transfer.rawValue) by zscale (1000 cd/m² peak)"
            }
        }
    }

    /// Each clip as whole output frames, so the boundaries fall on frame times and never drift, each overlapping the
    /// next by its transition's frames: the pieces, and where each starts and how long it lasts on the output. A clip
    /// with its own time lasts its length over its speed, and its `freeze` more.
    func pieces(_ files: [MediaFile], _ specs: [ConcatClip], rate: Rational) throws(MixWriteError)
        -> (pieces: [SequenceStage.Piece], starts: [MediaTime], spans: [MediaTime]) {
        var pieces: [SequenceStage.Piece] = [], starts: [MediaTime] = [], spans: [MediaTime] = []
        var frameIndex = 0
        for (f, spec) in zip(files, specs) {
            guard let length = f.videoDuration, length > .zero else { throw .input(file: f.path, "has no known duration") }
            guard var retime = spec.retime else {
                pieces.append(.init(file: f, frames: max(1, Int(length.ticks(in: rate.inverted)))))
                continue
            }
            let moving = max(1, Int(retime.output(length).ticks(in: rate.inverted)))
            retime.held = Int((spec.freeze * rate.doubleValue).rounded())
            var piece = SequenceStage.Piece(file: f, frames: moving + retime.held)
            piece.retime = retime
            pieces.append(piece)
        }
        for k in 1..<max(1, files.count) {
            pieces[k - 1].crossing = try crossing(at: k, pieces: pieces, rate: rate)
        }
        for piece in pieces {
            starts.append(MediaTime(frames: Int64(frameIndex), rate: rate))
            spans.append(MediaTime(frames: Int64(piece.frames), rate: rate))
            frameIndex += piece.ownFrames
        }
        return (pieces, starts, spans)
    }

    /// Boundary `k`'s crossing (between pieces k − 1 and k, from 0): its frames at `rate` (at least one), refused when
    /// it is longer than either clip, or than what the clip before leaves after its own transition in.
    func crossing(at k: Int, pieces: [SequenceStage.Piece], rate: Rational) throws(MixWriteError) -> Crossing? {
        let t = transition(at: k)
        guard t.kind != .cut else { return nil }
        let frames = max(1, Int((t.seconds * rate.doubleValue).rounded()))
        let given = transitionsAt[k] == nil ? "--transition \(t)" : "--transition-at \(k)=\(t)"
        func seconds(_ n: Int) -> String { NumberText.milliseconds(MediaTime(frames: Int64(n), rate: rate).seconds) }
        for (i, piece) in [(k - 1, pieces[k - 1]), (k, pieces[k])] where frames > piece.frames {
            throw .usage("\(given): between clips \(k) and \(k + 1), it is longer than clip \(i + 1) (\(piece.file.path): \(seconds(piece.frames)) s)")
        }
        // The transition into clip k (pieces[k − 2]'s, made before this one) shares its first frames.
        let before = k >= 2 ? (pieces[k - 2].crossing?.frames ?? 0) : 0
        if before + frames > pieces[k - 1].frames {
            throw .usage("\(given): between clips \(k) and \(k + 1), it overlaps the transition into clip \(k) (\(pieces[k - 1].file.path):"
                         + " \(seconds(pieces[k - 1].frames)) s, \(seconds(before)) s of it already shared with clip \(k - 1))")
        }
        return Crossing(kind: t.kind, frames: frames)
    }

    /// How long each clip's moving part lasts on the output: a retimed one's but its held end; the others', all of it.
    static func moving(_ pieces: [SequenceStage.Piece], rate: Rational) -> [MediaTime] {
        pieces.map { MediaTime(frames: Int64($0.frames - ($0.retime?.held ?? 0)), rate: rate) }
    }

    /// Clip `c`'s sound: faded in over the transition from the clip before, out over the one to the next.
    static func fades(clip c: Int, pieces: [SequenceStage.Piece], starts: [MediaTime], rate: Rational) -> [SourceFade] {
        var fades: [SourceFade] = []
        if c > 0, let into = pieces[c - 1].crossing {
            fades.append(SourceFade(fadesIn: true, start: starts[c], length: MediaTime(frames: Int64(into.frames), rate: rate)))
        }
        if c + 1 < pieces.count, let out = pieces[c].crossing {
            fades.append(SourceFade(fadesIn: false, start: starts[c + 1], length: MediaTime(frames: Int64(out.frames), rate: rate)))
        }
        return fades
    }

    /// Where each clip is fully in: its start, after the transition into it.
    static func fullyIn(pieces: [SequenceStage.Piece], starts: [MediaTime], rate: Rational) -> [MediaTime] {
        starts.indices.map { c in
            starts[c] + MediaTime(frames: Int64(c > 0 ? pieces[c - 1].crossing?.frames ?? 0 : 0), rate: rate)
        }
    }

    /// Where the clips and events land on the output (an event's clip must exist, its time not be negative).
    /// A clip's transition is said as it is made: its whole frames, to the millisecond (`fade:0.52` for 0.5 s at 25 fps).
    func timeline(_ files: [MediaFile], specs: [ConcatClip], starts: [MediaTime], spans: [MediaTime], sounding: [MediaTime],
                  crossings: [Crossing?], rate: Rational) throws(MixWriteError) -> Timeline {
        for e in events {
            guard files.indices.contains(e.clip) else {
                throw .usage("event '\(e.name)': clip \(e.clip) does not exist (clips are numbered from 0 to \(files.count - 1))")
            }
            guard e.time >= 0 else { throw .usage("event '\(e.name)': time \(e.time) is negative") }
        }
        return Timeline(
            clips: files.enumerated().map { (c, f) in
                let into = c > 0 ? crossings[c - 1] : nil
                var clip = Timeline.Clip(file: f.path, start: starts[c].seconds, duration: spans[c].seconds, transition: into.map {
                    "\($0.kind.rawValue):\(NumberText.milliseconds(MediaTime(frames: Int64($0.frames), rate: rate).seconds))"
                })
                if specs[c].retime != nil {
                    clip.speed = specs[c].speed * (specs[c].reverse ? -1 : 1)
                    clip.media = [0, f.videoDuration?.seconds ?? 0]
                }
                return clip
            },
            events: events.map { e in
                let own = MediaTime(seconds: String(e.time)) ?? .zero
                return .init(name: e.name, time: starts[e.clip].seconds + min(specs[e.clip].onOutput(own, moving: sounding[e.clip]).seconds, spans[e.clip].seconds))
            })
    }
}

extension ConcatJob {
    /// A chapter a clip (by its file name) from `marks` (where it is fully in, after the transition into it), and
    /// one an event with `eventChapters`; each lasts until the next mark (an event splits its clip's chapter).
    func chapters(files: [MediaFile], specs: [ConcatClip], marks clipMarks: [MediaTime], starts: [MediaTime], spans: [MediaTime],
                  sounding: [MediaTime], total: MediaTime) -> [(title: String, start: MediaTime, end: MediaTime)] {
        var marks: [(title: String, start: MediaTime)] = []
        for (i, f) in files.enumerated() {
            let name = String(f.path.split(separator: "/").last ?? Substring(f.path))
            // The clip's own chapters split its chapter where they start inside it (at its speed), each named with the clip.
            let own = f.chapters.enumerated().map { (n, c) in
                (title: c.title.isEmpty ? "Chapter \(n + 1)" : c.title, at: specs[i].onOutput(c.start - f.origin, moving: sounding[i]))
            }.filter { $0.at < spans[i] }.sorted { $0.at < $1.at }
            let inset = clipMarks[i] - starts[i]
            let current = own.last { $0.at <= inset }
            marks.append((current.map { "\(name): \($0.title)" } ?? name, clipMarks[i]))
            for c in own where c.at > inset { marks.append(("\(name): \(c.title)", starts[i] + c.at)) }
        }
        if eventChapters {
            for e in events {
                let own = specs[e.clip].onOutput(MediaTime(seconds: String(e.time)) ?? .zero, moving: sounding[e.clip])
                marks.append((e.name, starts[e.clip] + min(own, spans[e.clip])))
            }
        }
        marks = marks.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        return marks.enumerated().map { (i, m) in
            (title: m.title, start: m.start, end: i + 1 < marks.count ? marks[i + 1].start : total)
        }.filter { $0.start < $0.end }
    }
}
