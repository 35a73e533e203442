import Foundation
import FFmpegSupport

/// `render`: an OpenTimelineIO timeline (`OTIOTimeline`) rendered as OTIO lays it out: the bottom video track's clips
/// and gaps (black) in order, dissolves over their handles; each clip of an upper video track laid over what is under
/// it as a layer (by its alpha, or as its `metadata.mixwrite` says: key, place, opacity); every audio track of every
/// clip's file mixed, each with its picture. Markers are chapters and the report's events. The output lasts what OTIO's
/// `timeline.duration()` says, in whole frames.
public struct RenderJob: Sendable {
    public var timeline: String
    /// Which timeline of a file holding several (a Final Cut Pro X library's projects); "": the only one.
    public var timelineName = ""
    public var output: String
    /// How it runs: `-y`, `--strict`, threads, an excerpt, parts, smart rendering (`RunSettings`).
    public var run = RunSettings()
    /// The picture: size (nil: the first video clip's, upright), rate (nil: the timeline's, else that clip's), fit
    /// (letterboxed), codec and quality.
    public var picture = PictureSettings(fit: .fit)
    public var audio = AudioOptions()
    /// The sound's cross-fade over a dissolve (`--transition-curve`): linear, as OTIO's dissolve, unless told.
    public var transitionCurve = FadeCurve.tri
    /// Caption files added as tracks or drawn into the picture (`--captions`, `--burn-captions`).
    public var captions = CaptionSettings()
    /// The movie's title and start timecode (`--title`, `--timecode`).
    public var tags = MovieTags()
    /// How retimed clips fill frames between their media's and what sounds under a freeze (`--interpolate`, `--freeze-audio`).
    public var retiming = RetimeSettings()

    public init(timeline: String, output: String) {
        self.timeline = timeline
        self.output = output
    }
}

extension RenderJob: DescribedJob, CommonJob, PartedJob, ExcerptedJob, SmartJob, CaptionedJob, TaggedJob {
    static let kind = "render"
    static let command = ["mixwrite", "render"]
    static let abstract = "Render an OpenTimelineIO timeline (.otio): every video track composited, every audio track of every clip mixed."
    static let example = "mixwrite render cut.otio -o cut.mp4"
    static var blank: Self { RenderJob(timeline: "", output: "") }

    /// `mixwrite render TIMELINE -o OUT` and every option of a render.
    static var options: [JobOption<Self>] {
        let inputs: [JobOption<Self>] = [
            .path("timeline", \.timeline,
                  help: "The OpenTimelineIO timeline (.otio JSON; an .edl, .xml, .fcpxml, .aaf, .kdenlive or .mlt through OTIO's adapters); its media paths relative to its folder. Each clip's sound is named clipN (N from 1: the video tracks' clips bottom to top, then the audio tracks')."),
            .path("output", \.output, form: .short("-o"), help: "The movie to write (.mov, .mp4, .m4v, .mkv or .webm)."),
            .text("timeline-name", \.timelineName, default: "",
                  help: "Which timeline to render of a file that holds several (a Final Cut Pro X library's projects), by its name."),
        ]
        let curve: JobOption<Self> = .choice("transition-curve", \.transitionCurve, default: blank.transitionCurve,
                                             help: "The sound's cross-fade over a dissolve, by afade's curves: tri (linear, as OTIO's dissolve), qsin (equal power) …")
        return inputs + PictureSettings.options(blank.picture).map { $0.lifted(\.picture) } + [curve]
            + RetimeSettings.options.map { $0.lifted(\.retiming) } + smartOptions + excerptOptions
            + [AudioOptions.filesOption.lifted(\.audio)] + AudioOptions.options.map { $0.lifted(\.audio) }
            + captionOptions + tagOptions + partOptions + commonOptions
    }

    /// The timeline's own settings (`metadata.mixwrite` of the Timeline, as `--otio` writes a job's) read over this
    /// job's options where they are at their default, by the job file's readers: the command line's win.
    func withSettings(of t: OTIOTimeline) throws(MixWriteError) -> RenderJob {
        guard let data = t.settings, let entry = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return self }
        let fixed = ["timeline", "timeline-name", "output", "parts", "part", "overwrite", "start", "length"]
        if let key = entry.keys.sorted().first(where: fixed.contains) {
            throw .usage("\(timeline): the timeline's metadata.mixwrite.\(key) is the command line's to say")
        }
        let atDefault = Set(Self.options.filter { $0.write(self) == nil }.map(\.name))
        do { return try applying(entry.filter { atDefault.contains($0.key) }) } catch {
            throw .usage("\(timeline): the timeline's metadata.mixwrite: \(error.description)")
        }
    }

    public init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    /// Checks the options (ranges, names), without opening a file.
    public func validate() throws(MixWriteError) {
        try picture.validate()
        try captions.validate()
        try validateExcerpt()
        try validateParts()
        try audio.validate()
    }

    public var inputPaths: [String] { [timeline] + audio.files }

    func prepare() throws(MixWriteError) -> PreparedJob {
        try validate()
        let t = try OTIOTimeline(path: timeline, editRate: picture.frameRate?.doubleValue, named: timelineName)
        return try withSettings(of: t).prepare(t)
    }

    func prepare(_ t: OTIOTimeline) throws(MixWriteError) -> PreparedJob {
        try validate()
        var laid: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])] = []
        for track in t.tracks {
            do throws(MixWriteError) { laid.append((track, try track.layout())) } catch { throw .usage("\(timeline): \(error.description)") }
        }
        // The longest track, checked before any frame count is taken of it (a hostile timeline's gaps sum past 64 bits).
        let longest = laid.compactMap { $0.1.last.map { $0.start + $0.duration } }.max() ?? .zero
        guard longest <= OTIOTimeline.longestTimeline else {
            throw .usage("\(timeline): the timeline lasts \(NumberText.shortest(longest.seconds.rounded())) s; mixwrite renders timelines of up to "
                         + "\(Int(OTIOTimeline.longestTimeline.seconds / 3600)) hours")
        }
        var media = RenderMedia(timeline: timeline)
        let videoTracks = laid.filter { $0.0.kind == .video }, audioTracks = laid.filter { $0.0.kind == .audio }
        guard let first = videoTracks.lazy.flatMap({ $0.1 }).compactMap(\.clip).first else {
            throw .usage("\(timeline): has no clip on a video track (mixwrite renders a timeline with a picture)")
        }
        let reference = try media.file(first)
        var settings = picture
        settings.frameRate = picture.frameRate ?? t.rate ?? settings.rate(of: reference.mainVideo)
        let rate = settings.frameRate!
        var video = try settings.videoPlan(reference: reference, length: nil, strict: run.strict, threads: run.threads)
        // The timeline's length: its longest track, in whole frames (OTIO's timeline.duration()).
        let total = laid.map { $0.1.last.map { Self.frame($0.start + $0.duration, rate) } ?? 0 }.max() ?? 0
        guard total > 0 else { throw .usage("\(timeline): the timeline lasts no time") }
        video.wholeFrameCount = total
        video.frames = 0..<total

        var output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths + RenderMedia.allPaths(t))
        let codecs = try output.container.codecs(video: try picture.codec(keepingHDR: false), audio: audio.codec)
        video.encoding.codec = codecs.video
        if let selection {
            _ = try selection.frames(of: total)   // refused before the part's folder is made
            output = try partOutput(selection, final: output, video: codecs.video, audio: codecs.audio, inputs: inputPaths)
        }

        let stage = try pictures(videoTracks, reference: reference, media: &media, video: video)
        let conversions = ColorManagement.conversions(of: media.opened)
        var warnings = conversions + ((stage as? BlendStage)?.plan.layers.flatMap(\.notes) ?? [])
        var audioPlan = try mixPlan(videoTracks + audioTracks, media: &media, video: video, codec: codecs.audio, warnings: &warnings)

        let marks = Self.markers(t, laid, rate: rate)
        let chapters = Self.chapters(marks.filter(\.chapter), name: t.name, total: video.wholeLength)
        var plan = video
        if let excerpt { try excerpt.cut(video: &plan, audio: &audioPlan) }
        var part = try selection.map { (s: PartSelection) throws(MixWriteError) in
            try cutToPart(s, video: &plan, audio: &audioPlan, chapters: chapters)
        }
        let subtitles = try timelineSubtitles(laid, media: &media, output: output, video: &plan, part: &part)
        let cut = try smartly(Self.cut(stage, to: plan), converted: Set(media.opened.filter { !ColorManagement.conversions(of: [$0]).isEmpty }.map(\.path)))
        var prepared = PreparedJob(output: output, duration: plan.length, frameRate: rate, video: cut, audio: audioPlan, key: nil,
                                   warnings: warnings, conversions: conversions, chapters: excerpt == nil && part == nil ? chapters : [],
                                   timeline: excerpt == nil ? Self.report(laid, marks: marks, rate: rate) : nil)
        prepared.part = part
        prepared.media = media.opened.map(\.path)
        prepared.subtitles = subtitles
        let start = t.globalStart.flatMap { Timecode.advanced("00:00:00:00", by: Int($0.ticks(in: rate.inverted)), rate: rate) }
        prepared.metadata = try tags.metadata(of: nil, firstFrame: part == nil ? plan.firstFrame : 0, rate: rate, timelineStart: start)
        return prepared
    }

    /// The timeline's subtitle tracks: its clips' (their media's tracks and caption files), the caption files of its
    /// tracks and of the command line, in the output's time.
    func timelineSubtitles(_ laid: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])], media: inout RenderMedia, output: OutputFile,
                           video: inout VideoPlan, part: inout PartPlan?) throws(MixWriteError) -> SubtitlePlan {
        var captioned = self
        for (track, _) in laid { captioned.captions.files += try captionFiles(track.settings, of: "track \(track.name)") }
        let placements = try subtitlePlacements(laid, media: &media, rate: video.frameRate)
        return try captioned.subtitles(placements, output: output, video: &video, part: &part)
    }

    /// Where each clip's subtitles land: at its place on its track from its in point, cut at its cuts (a transition's
    /// middle is the cut in OpenTimelineIO's model). A video clip's media's subtitle tracks, a track's clips sharing
    /// them; a clip's own caption files (`metadata.mixwrite.captions`, in its media's time), a track's in one more.
    func subtitlePlacements(_ tracks: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])], media: inout RenderMedia,
                            rate: Rational) throws(MixWriteError) -> [SubtitlePlacement] {
        var placements: [SubtitlePlacement] = []
        for (track, items) in tracks {
            for item in items {
                guard let clip = item.clip else { continue }
                let captions = try captionFiles(clip.settings, of: clip.label)
                guard track.kind == .video || !captions.isEmpty else { continue }
                let file = try media.file(clip)
                let start = Self.timed(item.start, rate)
                var p = SubtitlePlacement(file: file, label: MediaPath.shown(clip.path), start: start, from: clip.inPoint,
                                          length: Self.timed(item.start + item.duration, rate) - start, group: track.name)
                p.retime = clip.retime
                if track.kind == .video && file.streams.contains(where: { $0.kind == .subtitle }) { placements.append(p) }
                p.group = track.name + " captions"
                for c in captions {
                    p.caption = c
                    placements.append(p)
                }
            }
        }
        return placements
    }

    /// The caption files a clip's or a track's `metadata.mixwrite.captions` names (as `--captions` is written in a job
    /// file), read by the job file's readers, each path from the timeline's folder.
    func captionFiles(_ settings: Data?, of what: String) throws(MixWriteError) -> [Caption] {
        guard let data = settings, let all = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let value = all["captions"] else {
            return []
        }
        let folder = URL(fileURLWithPath: timeline).deletingLastPathComponent().path
        do throws(MixWriteError) {
            let read = try RenderJob(timeline: "", output: "").applying(["captions": value]).captions
            try read.validate()
            return read.files.map { c in
                var c = c
                if !c.file.hasPrefix("/") { c.file = folder + "/" + c.file }
                return c
            }
        } catch {
            throw .usage("\(timeline): \(what): metadata.mixwrite: \(error.description)")
        }
    }

    /// The picture's stage: the bottom video track as a sequence, alone or under the upper tracks' clips as layers.
    func pictures(_ tracks: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])], reference: MediaFile, media: inout RenderMedia,
                  video: VideoPlan) throws(MixWriteError) -> any VideoStage {
        let bottom = try sequence(tracks.first?.1 ?? [], media: &media, video: video, total: video.wholeFrameCount)
        var layers: [LayerPlan] = []
        for (track, items) in tracks.dropFirst() { layers += try upperLayers(track, items, media: &media, video: video) }
        return layers.isEmpty ? SequenceStage(plan: bottom)
            : BlendStage(plan: BlendStage.Plan(layers: layers, base: reference, under: bottom, video: video))
    }

    /// Every clip's sound and the `--audio` files, mixed over the timeline's length, cross-faded over dissolves by
    /// `transitionCurve`.
    func mixPlan(_ tracks: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])], media: inout RenderMedia, video: VideoPlan,
                 codec: AudioCodec, warnings: inout [String]) throws(MixWriteError) -> AudioMixPlan? {
        var mix = audio
        let (inputs, places) = try sounds(tracks, media: &media, rate: video.frameRate, mix: &mix, warnings: &warnings)
        var sources = try mix.sources(from: inputs + (try audio.extraFiles()), strict: run.strict, warnings: &warnings)
        for i in sources.indices where sources[i].inputIndex < places.count {
            let p = places[sources[i].inputIndex]
            // A clip that lasts to the timeline's end is cut there with the mix, not by its span.
            let span = p.span.flatMap { p.start + $0 >= video.wholeLength && p.retime == nil ? nil : $0 }
            (sources[i].timelineStart, sources[i].head, sources[i].span, sources[i].fades) = (p.start, p.head, span, p.fades)
            sources[i].retime = p.retime
            if retiming.freezeAudio == .hold && p.retime?.isFreeze == true { sources[i].retime?.holdsSound = true }
        }
        var plan = try mix.plan(sources: sources, duration: video.wholeLength, codec: codec)
        plan?.strict = run.strict
        plan?.crossfadeCurve = transitionCurve
        return plan
    }

    /// The stage with the frames an excerpt or a part writes.
    static func cut(_ stage: any VideoStage, to video: VideoPlan) -> any VideoStage {
        if var s = (stage as? SequenceStage)?.plan { s.video = video; return SequenceStage(plan: s) }
        if var b = (stage as? BlendStage)?.plan { b.video = video; return BlendStage(plan: b) }
        return stage
    }

    /// `stage` copying the bottom track's GOPs nothing touches (`--smart`), as a concat's clips; under upper tracks,
    /// those no upper clip is laid over either, as a blend copies base outside its layers' spans. `converted`: the
    /// files whose picture is changed on its way.
    func smartly(_ stage: any VideoStage, converted: Set<String>) throws(MixWriteError) -> any VideoStage {
        guard run.smart != .off else { return stage }
        func smart(_ bottom: SequenceStage.Plan, laidOver: [Range<Int>]) throws(MixWriteError) -> SmartPlan {
            try insisted(ConcatJob.smartPlan(bottom, converted: Set(bottom.pieces.indices.filter { converted.contains(bottom.pieces[$0].file.path) }),
                                             checked: !run.trustCopies, laidOver: laidOver))
        }
        if var plan = (stage as? SequenceStage)?.plan {
            plan.smart = try smart(plan, laidOver: [])
            return SequenceStage(plan: plan)
        }
        guard var blend = (stage as? BlendStage)?.plan, var bottom = blend.under else { return stage }
        bottom.video = blend.video
        blend.smart = try smart(bottom, laidOver: SmartPlan.touched(by: blend.layers, video: blend.video))
        return BlendStage(plan: blend)
    }

    /// `t` in whole frames of `rate`, rounded to the nearest.
    static func frame(_ t: MediaTime, _ rate: Rational) -> Int { Int(t.ticks(in: rate.inverted)) }

    /// The bottom video track as a sequence: each clip a piece from its in-point (less the handle its transition in
    /// uses), each gap black, dissolves where OTIO puts them; black to the timeline's end.
    func sequence(_ items: [OTIOTimeline.Track.Placed], media: inout RenderMedia, video: VideoPlan,
                  total: Int) throws(MixWriteError) -> SequenceStage.Plan {
        let rate = video.frameRate
        var pieces: [SequenceStage.Piece] = []
        var reached = 0
        for item in items {
            let (startFrame, endFrame) = (Self.frame(item.start, rate), Self.frame(item.start + item.duration, rate))
            let (head, tail) = (Self.frame(item.head, rate), Self.frame(item.tail, rate))
            guard endFrame > startFrame || head + tail > 0 else { continue }   // shorter than a frame, no transition
            var piece: SequenceStage.Piece
            if let clip = item.clip {
                let file = try media.file(clip)
                let frames = endFrame - startFrame + head + tail
                let used = Self.mediaSpan(clip, head: MediaTime(frames: Int64(head), rate: rate), tail: MediaTime(frames: Int64(tail), rate: rate),
                                          length: MediaTime(frames: Int64(frames), rate: rate), rate: rate)
                try media.check(clip, file, from: used.from, to: used.to, picture: true, rate: rate)
                piece = .init(file: file, frames: frames)
                (piece.inPoint, piece.retime) = (used.from, clip.retime)
            } else {
                piece = .init(file: media.opened[0], frames: endFrame - startFrame + head + tail)
                piece.isGap = true
            }
            if let t = item.outgoing, tail + Self.frame(t.inOffset, rate) > 0 {
                piece.crossing = Crossing(kind: t.kind, frames: tail + Self.frame(t.inOffset, rate))
            }
            pieces.append(piece)
            reached = endFrame
        }
        if reached < total || pieces.isEmpty {
            var gap = SequenceStage.Piece(file: media.opened[0], frames: total - reached)
            gap.isGap = true
            pieces.append(gap)
        }
        var plan = SequenceStage.Plan(pieces: pieces, video: video)
        plan.interpolation = retiming.interpolation
        return plan
    }

    /// The media a clip uses, shown with `head` before it and `tail` after it on the output (its transitions' handles),
    /// `length` in all: from its in-point less the head at its speed (a reversed clip's handle before it is media after
    /// its end, so less the tail), for `length` at its speed (a freeze: one frame).
    static func mediaSpan(_ clip: OTIOTimeline.Clip, head: MediaTime, tail: MediaTime, length: MediaTime,
                          rate: Rational) -> (from: MediaTime, to: MediaTime) {
        guard let r = clip.retime else { return (clip.inPoint - head, clip.inPoint - head + length) }
        let from = clip.inPoint - r.media(r.reversed ? tail : head)
        return (from, from + max(r.media(length), MediaTime(frames: 1, rate: rate)))
    }

    /// An upper video track's clips as layers over what is under them: each from its place on the track, from its
    /// in-point, for its duration; laid by its alpha (opaque without one) unless its `metadata.mixwrite` keys it.
    func upperLayers(_ track: OTIOTimeline.Track, _ items: [OTIOTimeline.Track.Placed], media: inout RenderMedia,
                video: VideoPlan) throws(MixWriteError) -> [LayerPlan] {
        if let t = track.items.lazy.compactMap(\.transition).first {
            throw .usage("\(timeline): \(t.label): a transition on an upper video track (\(track.name)) is not rendered yet; only the bottom track's")
        }
        var plans: [LayerPlan] = []
        for item in items {
            guard let clip = item.clip else { continue }
            let file = try media.file(clip)
            let used = Self.mediaSpan(clip, head: .zero, tail: .zero, length: clip.duration, rate: video.frameRate)
            try media.check(clip, file, from: used.from, to: used.to, picture: true, rate: video.frameRate)
            var layer = try Self.layer(clip, file: file, timeline: timeline)
            layer.placement.at = item.start.seconds
            layer.placement.from = used.from.seconds
            layer.placement.to = used.to.seconds
            // A freeze is laid as the one frame, held for the clip (below).
            if let r = clip.retime, !r.isFreeze { (layer.placement.speed, layer.placement.reverse) = (r.speed.doubleValue, r.reversed) }
            // A picture of another shape is fitted into the whole frame with nothing (not black bars) around it.
            if layer.placement.place == nil, let own = file.displaySize, own.width * video.height != own.height * video.width {
                layer.placement.place = [0, 0, video.width, video.height]
            }
            var blend = BlendJob(fx: clip.path, base: clip.path, output: output)
            (blend.placement, blend.key, blend.compositing) = (layer.placement, layer.key, layer.compositing)
            var plan: LayerPlan
            do { plan = try blend.layerPlan(0, blend.allLayers[0], file, video: video, role: clip.label) } catch {
                throw Self.naming(error, clip, timeline)
            }
            plan.notes = plan.notes.map { Self.clipsWords($0, clip, file: file) }
            // Exactly the clip's frames, whatever the seconds above rounded to.
            let rate = video.frameRate
            plan.start = MediaTime(frames: Int64(Self.frame(item.start, rate)), rate: rate)
            plan.length = MediaTime(frames: Int64(Self.frame(item.start + item.duration, rate) - Self.frame(item.start, rate)), rate: rate)
            plan.from = clip.inPoint
            if let r = clip.retime, r.isFreeze { (plan.retime, plan.retimeShift) = (r, .zero) }
            if plan.moving != nil { plan.moving?.length = plan.length ?? .zero }
            plans.append(plan)
        }
        return plans
    }

    /// A clip's layer settings from its `metadata.mixwrite` (a `--layer`'s options but its time, which the track
    /// gives): by the job file's reader, so a bad value is refused in its words, naming the clip.
    static func layer(_ clip: OTIOTimeline.Clip, file: MediaFile, timeline: String) throws(MixWriteError) -> Layer {
        var entry = clip.settings.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] ?? [:]
        for key in ["gain", "offset", "captions"] { entry[key] = nil }   // the sound's and the captions', read with them
        let timeKeys = ["fx", "at", "in", "out"]
        if let k = entry.keys.sorted().first(where: timeKeys.contains) {
            throw .usage("\(timeline): \(clip.label): metadata.mixwrite.\(k) is the timeline's to say (the clip's place and source_range)")
        }
        let keyKeys = Set(Layer.keyOptions.map(\.name)).subtracting(["key"])
        if entry["key"] == nil && !entry.keys.contains(where: keyKeys.contains) {
            entry["key"] = (file.mainVideo?.hasAlpha ?? false) ? "alpha" : "none"   // OTIO's own: composited by alpha
        }
        entry["fx"] = clip.path
        do throws(MixWriteError) {
            // Read and checked as a blend's second layer is (`validateLayers`); the messages' name for it dropped.
            let holder = try BlendJob(fx: "", base: "", output: "").applying(["layers": [entry]])
            try holder.validateLayers()
            return holder.layers[0]
        } catch {
            let what = error.description.replacingOccurrences(of: "layer fx2 (\(clip.path)): ", with: "")
                .replacingOccurrences(of: "layer fx2: ", with: "")
            throw .usage("\(timeline): \(clip.label): metadata.mixwrite: \(what)")
        }
    }

    /// A layer's note in a timeline's words: the clip named, not fx; its `metadata.mixwrite` keys, not options.
    static func clipsWords(_ note: String, _ clip: OTIOTimeline.Clip, file: MediaFile) -> String {
        if note.hasPrefix(file.path + ":") { return note.replacingOccurrences(of: "--key chroma", with: "metadata.mixwrite.key chroma") + " (\(clip.label))" }
        let words = note.replacingOccurrences(of: "fx is laid", with: "the clip is laid")
            .replacingOccurrences(of: #"--([a-z][a-z-]*)"#, with: "$1", options: .regularExpression)
        return "\(clip.label): metadata.mixwrite: " + words
    }

    static func naming(_ error: MixWriteError, _ clip: OTIOTimeline.Clip, _ timeline: String) -> MixWriteError {
        switch error {
        case .usage(let what): .usage("\(timeline): \(clip.label): \(what)")
        case .input(let file, let what): .input(file: file, "\(what) (\(clip.label) of \(timeline))")
        default: error
        }
    }
}

extension RenderJob {
    /// Where a clip's sound goes: its start on the output (less its handle), where in its file, for how long, and
    /// its fades over the transitions into and out of it.
    struct SoundPlace: Sendable {
        var start: MediaTime
        var head: MediaTime
        /// nil: to the media's end (the clip uses it to its end: what a file holds past its stated length, as an AAC
        /// track's last frame, is its own).
        var span: MediaTime?
        var fades: [SourceFade]
        /// Its clip's change of time: `head` is where the media it uses starts.
        var retime: Retime?
    }

    /// Every clip's sound, named `clipN` in order (the video tracks' clips bottom to top, then the audio tracks'): a
    /// video track's clip brings every audio track of its file unless an audio track holds a clip of the same file
    /// (an editor's linked sound, which then carries it). A video track's clip is timed in whole frames, as its
    /// picture; an audio track's exactly. A clip's `metadata.mixwrite` gain and offset apply unless the command line
    /// gives that clip's.
    func sounds(_ tracks: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])], media: inout RenderMedia, rate: Rational,
                mix: inout AudioOptions, warnings: inout [String]) throws(MixWriteError) -> ([(String, MediaFile)], [SoundPlace]) {
        let linked = Set(tracks.filter { $0.0.kind == .audio }.flatMap { $0.1.compactMap(\.clip?.path) })
        var inputs: [(String, MediaFile)] = [], places: [SoundPlace] = []
        var n = 0
        var heard: [SoundKey: String] = [:]
        for (track, items) in tracks {
            for item in items {
                guard let clip = item.clip else { continue }
                n += 1
                if track.kind == .video && linked.contains(clip.path) { continue }
                let file = try media.file(clip)
                guard !file.audioStreams.isEmpty else { continue }
                let label = "clip\(n)"
                if track.kind == .audio,
                   !Self.takes(clip, item, of: file, label: label, on: track.name, heard: &heard, mix: &mix, warnings: &warnings) { continue }
                let frames = track.kind == .video ? rate : nil
                let (start, duration) = (Self.timed(item.start, frames), Self.timed(item.start + item.duration, frames) - Self.timed(item.start, frames))
                let (head, tail) = (Self.timed(item.head, frames), Self.timed(item.tail, frames))
                let used = Self.mediaSpan(clip, head: head, tail: tail, length: head + duration + tail, rate: rate)
                if track.kind == .audio { try media.check(clip, file, from: used.from, to: used.to, picture: false, rate: rate) }
                var fades: [SourceFade] = []
                if let t = item.incoming { fades.append(SourceFade(fadesIn: true, start: start - head, length: head + Self.timed(t.outOffset, frames))) }
                if let t = item.outgoing {
                    let before = Self.timed(t.inOffset, frames)
                    fades.append(SourceFade(fadesIn: false, start: start + duration - before, length: before + tail))
                }
                try Self.readSound(clip, label: label, into: &mix, given: audio, timeline: timeline)
                inputs.append((label, file))
                // A retimed clip's sound is always cut to its span (its stretcher's output is made exactly that long).
                let toItsEnd = clip.retime == nil && (file.totalDuration.map { used.to >= $0 } ?? false)
                places.append(SoundPlace(start: start - head, head: used.from, span: toItsEnd ? nil : head + duration + tail, fades: fades,
                                         retime: clip.retime))
            }
        }
        return (inputs, places)
    }

    /// A clip's sound at its place on the timeline: the same on two audio tracks is one sound.
    struct SoundKey: Hashable {
        var path: String
        var inPoint, duration, start, head, tail: MediaTime
        var track: Int?
    }

    /// Whether an audio track's clip is heard: false when the same media at the same place already is, on a lower
    /// audio track (an EDL's `AA` pair, an export's one timeline track per source track: mixed once, not twice, said
    /// in `warnings`). A clip that names one of its file's several audio tracks (`sourceTrack`) takes that one alone.
    static func takes(_ clip: OTIOTimeline.Clip, _ item: OTIOTimeline.Track.Placed, of file: MediaFile, label: String, on track: String,
                      heard: inout [SoundKey: String], mix: inout AudioOptions, warnings: inout [String]) -> Bool {
        let count = file.audioStreams.count
        let one = clip.sourceTrack.flatMap { count > 1 && $0 <= count ? $0 : nil }
        let key = SoundKey(path: clip.path, inPoint: clip.inPoint, duration: clip.duration, start: item.start, head: item.head,
                           tail: item.tail, track: one)
        if let first = heard[key] {
            warnings.append("\(clip.label): the same sound at the same time as on \(first); mixed once")
            return false
        }
        heard[key] = track
        if let one { mix.mute += (1...count).filter { $0 != one }.map { "\(label):\($0)" } }
        return true
    }

    /// `t` in whole frames of `rate` (a video track's), or as it is (nil: an audio track's).
    static func timed(_ t: MediaTime, _ rate: Rational?) -> MediaTime {
        rate.map { MediaTime(frames: Int64(frame(t, $0)), rate: $0) } ?? t
    }

    /// A clip's `metadata.mixwrite` `gain` (dB) and `offset` (seconds) read by the job file's readers, unless the
    /// command line (`given`) sets that clip's own.
    static func readSound(_ clip: OTIOTimeline.Clip, label: String, into mix: inout AudioOptions, given: AudioOptions,
                          timeline: String) throws(MixWriteError) {
        guard let data = clip.settings, let all = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        var entry: [String: Any] = [:]
        if let g = all["gain"], given.gains[label] == nil { entry["gain"] = [label: g] }
        if let o = all["offset"], given.offsets[label] == nil && !given.autoOffsets.contains(label) { entry["offset"] = [label: o] }
        guard !entry.isEmpty else { return }
        do {
            let read = try RenderJob(timeline: "", output: "").applying(entry).audio
            try read.validate()   // the command line's ranges: a gain of 300 dB or an offset of 1e300 s is no clip's
            mix.gains.merge(read.gains) { $1 }
            mix.offsets.merge(read.offsets) { $1 }
            mix.autoOffsets += read.autoOffsets.filter { !mix.autoOffsets.contains($0) }
        } catch {
            throw .usage("\(timeline): \(clip.label): metadata.mixwrite: \(error.description)")
        }
    }

    /// The markers on the output's timeline, in order: the stack's and the tracks' where they are, a clip's where its
    /// media time shows (left out when that is outside the clip's range and its transitions' handles).
    static func markers(_ t: OTIOTimeline, _ laid: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])],
                        rate: Rational) -> [(name: String, time: MediaTime, chapter: Bool)] {
        var marks = t.markers + laid.flatMap(\.0.markers)
        for (_, items) in laid {
            for item in items {
                guard let clip = item.clip else { continue }
                // What of its media shows: its range and the handles its transitions use.
                for m in clip.markers where m.time >= clip.inPoint - item.head && m.time < clip.inPoint + clip.duration + item.tail {
                    var placed = m
                    placed.time = item.start + (m.time - clip.inPoint)
                    marks.append(placed)
                }
            }
        }
        return marks.filter { $0.time >= .zero }.sorted { $0.time < $1.time }.map { (name: $0.name, time: timed($0.time, rate), chapter: $0.chapter) }
    }

    /// A chapter a marker, each until the next (the first from 0, named by the timeline, when the first marker is
    /// later); none without markers.
    static func chapters(_ marks: [(name: String, time: MediaTime, chapter: Bool)], name: String,
                         total: MediaTime) -> [(title: String, start: MediaTime, end: MediaTime)] {
        var starts = marks.filter { $0.time < total }.map { (title: $0.name, start: $0.time) }
        guard let first = starts.first else { return [] }
        if first.start > .zero { starts.insert((name.isEmpty ? "Start" : name, .zero), at: 0) }
        return starts.enumerated().map { (i, m) in
            (title: m.title, start: m.start, end: i + 1 < starts.count ? starts[i + 1].start : total)
        }.filter { $0.start < $0.end }
    }

    /// The report's timeline: every clip where it shows (its track's order), each with the transition into it, and
    /// the markers.
    static func report(_ laid: [(OTIOTimeline.Track, [OTIOTimeline.Track.Placed])], marks: [(name: String, time: MediaTime, chapter: Bool)],
                       rate: Rational) -> Timeline {
        var clips: [Timeline.Clip] = []
        for (_, items) in laid {
            for item in items {
                guard let clip = item.clip else { continue }
                var c = Timeline.Clip(file: clip.path, start: item.start.seconds, duration: item.duration.seconds, transition: item.incoming.map {
                    "\($0.kind.rawValue):\(NumberText.milliseconds(($0.inOffset + $0.outOffset).seconds))"
                })
                if let r = clip.retime {
                    let used = mediaSpan(clip, head: .zero, tail: .zero, length: item.duration, rate: rate)
                    c.speed = r.speed.doubleValue * (r.reversed ? -1 : 1)
                    c.media = [used.from.seconds, used.to.seconds]
                }
                clips.append(c)
            }
        }
        return Timeline(clips: clips, events: marks.map { .init(name: $0.name, time: $0.time.seconds) })
    }
}

/// The timeline's media files, each opened once; a missing or unreadable one is named with the clip that uses it.
struct RenderMedia {
    let timeline: String
    private(set) var opened: [MediaFile] = []
    private var index: [String: Int] = [:]

    init(timeline: String) { self.timeline = timeline }

    mutating func file(_ clip: OTIOTimeline.Clip) throws(MixWriteError) -> MediaFile {
        if let i = index[clip.path] { return opened[i] }
        let file: MediaFile
        do { file = try MediaFile(path: clip.path) } catch { throw RenderJob.naming(error, clip, timeline) }
        index[clip.path] = opened.count
        opened.append(file)
        return file
    }

    /// The clip's media covers `from` to `to` (its source_range with its transitions' handles): its picture's
    /// length on a video track, its whole length on an audio track; half a frame of `rate` past the end is let go (an
    /// editor's rounding). A still picture has no end.
    func check(_ clip: OTIOTimeline.Clip, _ file: MediaFile, from: MediaTime, to: MediaTime, picture: Bool,
               rate: Rational) throws(MixWriteError) {
        let name = (file.path as NSString).lastPathComponent
        if picture && file.mainVideo == nil {
            throw .usage("\(timeline): \(clip.label): its media (\(name)) has no picture, and it is on a video track")
        }
        guard from >= .zero else {
            throw .usage("\(timeline): \(clip.label): its source_range\(from < clip.inPoint ? " with its transition's handle" : "") starts "
                         + "\(NumberText.milliseconds((MediaTime.zero - from).seconds)) s before its media (\(name)) does")
        }
        guard !(picture && file.isStillImage), let length = picture ? file.videoDuration : file.totalDuration else { return }
        let slack = MediaTime(value: Int64(rate.den), timescale: 2 * Int64(rate.num))
        if let r = clip.retime, to > length + slack {
            throw .usage("\(timeline): \(clip.label): at \(r.description) it uses its media (\(name)) from \(NumberText.milliseconds(from.seconds)) "
                         + "to \(NumberText.milliseconds(to.seconds)) s, \(NumberText.milliseconds((to - length).seconds)) s past its end "
                         + "(\(NumberText.milliseconds(length.seconds)) s)")
        }
        guard to <= length + slack else {
            throw .usage("\(timeline): \(clip.label): its source_range\(to > clip.inPoint + clip.duration ? " with its transition's handle" : "") ends at "
                         + "\(NumberText.milliseconds(to.seconds)) s, past its media's end (\(name): \(NumberText.milliseconds(length.seconds)) s)")
        }
    }

    /// Every clip's file of the timeline, whether opened or not (an output may not be one of them).
    static func allPaths(_ t: OTIOTimeline) -> [String] {
        t.tracks.flatMap { $0.items.compactMap { if case .clip(let c) = $0 { c.path } else { nil } } }
    }
}
