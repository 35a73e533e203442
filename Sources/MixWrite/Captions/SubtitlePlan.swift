import Foundation
import FFmpegSupport

/// Where an input's picture lands on the output, which its subtitle tracks follow: from `start` on the output, its
/// own time `from` on (after its file's origin), for `length` (nil: to the output's end).
struct SubtitlePlacement: Sendable {
    var file: MediaFile
    /// Its name in messages and the report: `base`, `fx`, `clip2`.
    var label: String
    var start: MediaTime
    var from: MediaTime = .zero
    var length: MediaTime?
    /// Inputs of one group share the output's tracks, the K-th subtitle track of each in the K-th (a concat's clips,
    /// a timeline's): each input's cues from where it takes over to where the next does (a transition's middle).
    var group: String
    /// A caption file of the input's own time that stands for its subtitle tracks (a timeline clip's
    /// `metadata.mixwrite.captions`).
    var caption: Caption?
    /// Its time changed (a timeline clip's speed, reverse or freeze): its cues move with its pictures, `from` the
    /// start of the media it shows for `length`.
    var retime: Retime?

    init(file: MediaFile, label: String, start: MediaTime = .zero, from: MediaTime = .zero, length: MediaTime? = nil,
         group: String? = nil) {
        (self.file, self.label, self.start, self.from, self.length) = (file, label, start, from, length)
        self.group = group ?? label
    }

    var end: MediaTime? { length.map { start + $0 } }
}

/// One subtitle track of the output: its cues on the output's time, encoded by `codec`; or a picture track's packets,
/// copied as they are (Matroska).
struct SubtitleTrackPlan: Sendable {
    /// The encoder (`mov_text`, `webvtt`, `subrip`, `ass`); nil: `packets` copied.
    var codec: String?
    var header: String
    var language: String?
    var title: String?
    var cues: [SubtitleCue] = []
    var packets: [EncodedPacket] = []
    var copied: CodecParameters?
    /// Where it came from, for the report: `base`, `clip1, clip2`, a caption file.
    var source: String
    /// The codec it was read in.
    var sourceCodec: String

    var isEmpty: Bool { cues.isEmpty && packets.isEmpty }
}

/// Every subtitle track the output carries and the caption files drawn into its picture, decided before anything is
/// written: each input's tracks retimed to where its picture lands, each `--captions` file as one more.
struct SubtitlePlan: Sendable {
    var tracks: [SubtitleTrackPlan] = []
    /// The caption files drawn into the picture (`--burn-captions`), their times the output's.
    var burn: BurnedCaptions?
    var notes: [String] = []

    /// The encoder a container holds text in: mov_text (MOV, MP4), WebVTT (WebM); Matroska keeps a caption file's
    /// own format and an input track's, ASS for one it cannot (mov_text).
    static func encoder(for sourceCodec: String, muxer: String) -> String {
        switch muxer {
        case "mov", "mp4": "mov_text"
        case "webm": "webvtt"
        default:
            switch sourceCodec {
            case "subrip", "srt", "text": "subrip"
            case "webvtt", "vtt": "webvtt"
            default: "ass"
            }
        }
    }

    /// Plans the tracks of `placements`' inputs and the caption files of `captions` for an output of `duration` in the
    /// muxer named `muxer`, cut to `window` (an excerpt's or a part's span of the whole output) when given. A part
    /// (`inPart`) keeps a track the whole movie has cues in, even with none in its span: every part lists the same
    /// tracks for the join; a picture track is not carried through parts.
    static func make(placements: [SubtitlePlacement], captions: CaptionSettings, muxer: String, duration: MediaTime,
                     window: Range<MediaTime>? = nil, inPart: Bool = false) throws(MixWriteError) -> SubtitlePlan {
        var plan = SubtitlePlan()
        var groups: [String: [SubtitlePlacement]] = [:], order: [String] = []
        for p in placements {
            if groups[p.group] == nil { order.append(p.group) }
            groups[p.group, default: []].append(p)
        }
        // A file several placements show (a timeline's clips of one recording) is read once a stream.
        var read: [String: SubtitleTrackContents?] = [:]
        for g in order {
            let group = Self.takingOver(groups[g]!)
            if group.contains(where: { $0.caption != nil }) {
                plan.tracks.append(try Self.captionTrack(group, muxer: muxer, duration: duration))
            } else {
                plan.tracks += plan.inputTracks(group, muxer: muxer, duration: duration, read: &read)
            }
        }
        for caption in captions.files {
            let file = try CaptionFile(path: caption.file, encoding: caption.encoding.isEmpty ? nil : caption.encoding)
            let past = file.cues.filter { $0.end > duration }.count
            if past > 0 {
                plan.notes.append("\(caption.file): \(past) \(past == 1 ? "cue runs" : "cues run") past the movie's end "
                                  + "(\(NumberText.milliseconds(duration.seconds)) s), cut there")
            }
            if captions.burn {
                for (asked, given) in CaptionFile.substitutes(file.fonts) {
                    plan.notes.append("\(caption.file): the font '\(asked)' is not on this machine; fontconfig draws it in '\(given)'")
                }
                let spans = file.cues.map { $0.start..<max($0.start, min($0.end, duration)) }.filter { !$0.isEmpty }
                plan.burn = BurnedCaptions(files: (plan.burn?.files ?? []) + [caption], spans: (plan.burn?.spans ?? []) + spans)
                continue
            }
            plan.tracks.append(try Self.captionTrack(caption, file, muxer: muxer, duration: duration))
        }
        if inPart {
            for t in plan.tracks where t.copied != nil {
                plan.notes.append("\(t.source): its subtitle track (\(t.sourceCodec)) is pictures, which --parts does not carry; left out")
            }
            plan.tracks.removeAll { $0.copied != nil || $0.isEmpty }
        }
        if let window { plan.cut(to: window) }
        plan.tracks.removeAll { track in
            if track.isEmpty && !inPart { plan.notes.append("\(track.source): no subtitle within the output; its track is left out") }
            return track.isEmpty && !inPart
        }
        return plan
    }

    /// A group's inputs in output order, each cut where the next takes over: in the middle of their overlap.
    static func takingOver(_ group: [SubtitlePlacement]) -> [SubtitlePlacement] {
        var list = group.sorted { $0.start < $1.start }
        for i in list.indices.dropLast() {
            guard let end = list[i].end, end > list[i + 1].start else { continue }
            let middle = MediaTime(seconds: (list[i + 1].start.seconds + end.seconds) / 2) ?? list[i + 1].start
            list[i].length = middle - list[i].start
            // The media skipped: as much as the output, at its speed (a reversed input's is skipped at its end).
            let skipped = middle - list[i + 1].start
            if let r = list[i + 1].retime { if !r.reversed { list[i + 1].from = list[i + 1].from + r.media(skipped) } } else {
                list[i + 1].from = list[i + 1].from + skipped
            }
            if let l = list[i + 1].length { list[i + 1].length = l - (middle - list[i + 1].start) }
            list[i + 1].start = middle
        }
        return list
    }

    /// The K-th subtitle track of each input of a group as the output's K-th track of the group.
    /// `read`: the streams read so far, by file and index (nil: one that cannot be read, said once).
    mutating func inputTracks(_ group: [SubtitlePlacement], muxer: String, duration: MediaTime,
                              read: inout [String: SubtitleTrackContents?]) -> [SubtitleTrackPlan] {
        let count = group.map { $0.file.streams.filter { $0.kind == .subtitle }.count }.max() ?? 0
        var tracks: [SubtitleTrackPlan] = []
        for k in 0..<count {
            var track: SubtitleTrackPlan?
            for p in group {
                let streams = p.file.streams.filter { $0.kind == .subtitle }
                guard k < streams.count else { continue }
                let s = streams[k]
                let key = "\(s.index) \(p.file.path)"
                if read[key] == nil { read[key] = .some(contents(s, of: p)) }
                guard let contents = read[key]! else { continue }
                if track == nil {
                    guard let t = Self.newTrack(s, contents, label: p.label, muxer: muxer, notes: &notes) else { break }
                    track = t
                } else if contents.isPictures != (track!.copied != nil) {
                    notes.append("\(p.file.path): its subtitle stream #\(s.index) (\(s.codec)) is not of the kind of the tracks "
                                 + "before it in its place; left out")
                    continue
                } else {
                    track!.source += ", " + p.label
                }
                track!.cues += contents.cues.compactMap { Self.placed($0, p, origin: p.file.origin, duration: duration) }
                track!.packets += contents.packets.compactMap { Self.placed($0, p, timeBase: contents.timeBase, duration: duration) }
            }
            if let track { tracks.append(track) }
        }
        return tracks
    }

    /// A stream's cues, or nil with a note when it cannot be read.
    private mutating func contents(_ s: StreamInfo, of p: SubtitlePlacement) -> SubtitleTrackContents? {
        do { return try Demuxer(url: p.file.path).subtitles(of: s.index) } catch {
            notes.append("\(p.file.path): its subtitle stream #\(s.index) (\(s.codec)) cannot be read (\(error.message.lowercased())); left out")
            return nil
        }
    }

    /// The output track a stream starts: its codec in this container, its language and title.
    private static func newTrack(_ s: StreamInfo, _ contents: SubtitleTrackContents, label: String, muxer: String,
                                 notes: inout [String]) -> SubtitleTrackPlan? {
        if let parameters = contents.parameters {
            guard s.fits(format: muxer) else {
                notes.append("\(label)'s subtitle stream #\(s.index) is \(s.codec), pictures a .\(muxer == "matroska" ? "mkv" : muxer) cannot hold; "
                             + "left out (a .mkv keeps it)")
                return nil
            }
            return SubtitleTrackPlan(codec: nil, header: "", language: s.language, title: s.title, copied: parameters,
                                     source: label, sourceCodec: s.codec)
        }
        return SubtitleTrackPlan(codec: encoder(for: s.codec, muxer: muxer), header: contents.header, language: s.language,
                                 title: s.title, source: label, sourceCodec: s.codec)
    }

    /// A cue of `p`'s file on the output: moved with its picture and cut to where the picture shows.
    static func placed(_ cue: SubtitleCue, _ p: SubtitlePlacement, origin: MediaTime, duration: MediaTime) -> SubtitleCue? {
        let lower = p.start, upper = min(p.end ?? duration, duration)
        var out = cue
        if let r = p.retime, let length = p.length {
            // Its media offsets, shown at the speed: forwards from `from`, or backwards from the media's end; under a
            // freeze, a cue showing at the held frame shows throughout.
            let (a, b) = (cue.start - origin - p.from, cue.end - origin - p.from)
            if r.isFreeze {
                guard a <= .zero, b > .zero else { return nil }
                (out.start, out.end) = (lower, upper)
            } else if r.reversed {
                let top = r.media(length)
                (out.start, out.end) = (max(p.start + r.output(top - b), lower), min(p.start + r.output(top - a), upper))
            } else {
                (out.start, out.end) = (max(p.start + r.output(a), lower), min(p.start + r.output(b), upper))
            }
            return out.end > out.start ? out : nil
        }
        let shift = p.start - p.from - origin
        out.start = max(cue.start + shift, lower)
        out.end = min(cue.end + shift, upper)
        return out.end > out.start ? out : nil
    }

    /// A picture track's packet on the output, kept when it starts where the picture shows.
    static func placed(_ packet: EncodedPacket, _ p: SubtitlePlacement, timeBase: Rational, duration: MediaTime) -> EncodedPacket? {
        // A picture track of a retimed input: its packets' times are not remapped (its pictures would need redrawing).
        guard let pts = packet.pts, p.retime == nil else { return nil }
        let t = MediaTime(ticks: pts, timeBase: timeBase) - p.file.origin - p.from + p.start
        guard t >= p.start, t < min(p.end ?? duration, duration) else { return nil }
        var out = packet
        out.pts = t.ticks(in: timeBase)
        out.dts = out.pts
        return out
    }

    /// A group's caption files (each of its input's own time) as one track, each placed where its input is.
    static func captionTrack(_ group: [SubtitlePlacement], muxer: String, duration: MediaTime) throws(MixWriteError) -> SubtitleTrackPlan {
        var track: SubtitleTrackPlan?
        for p in group {
            guard let caption = p.caption else { continue }
            let file = try CaptionFile(path: caption.file, encoding: caption.encoding.isEmpty ? nil : caption.encoding)
            let own = try captionTrack(caption, file, muxer: muxer, duration: nil)
            if track == nil {
                track = own
                track!.cues = []
            } else {
                track!.source += ", " + caption.file
            }
            track!.cues += own.cues.compactMap { placed($0, p, origin: .zero, duration: duration) }
        }
        return track!
    }

    /// A `--captions` file as a track: read by FFmpeg's demuxer and decoder (its markup made ASS events), cut at
    /// `duration` (nil: not cut).
    static func captionTrack(_ caption: Caption, _ file: CaptionFile, muxer: String, duration: MediaTime?) throws(MixWriteError) -> SubtitleTrackPlan {
        let contents: SubtitleTrackContents
        do {
            let demuxer = try Demuxer(url: caption.file)
            guard let s = demuxer.streams.first(where: { $0.kind == .subtitle }) else {
                throw MixWriteError.input(file: caption.file, "FFmpeg finds no subtitles in it")
            }
            contents = try demuxer.subtitles(of: s.index, characterEncoding: caption.encoding.isEmpty ? nil : caption.encoding)
        } catch let e as MixWriteError { throw e } catch {
            throw .input(file: caption.file, "cannot be read by FFmpeg (\((error as? FFmpegError)?.message.lowercased() ?? "\(error)"))")
        }
        var track = SubtitleTrackPlan(codec: encoder(for: file.format.rawValue, muxer: muxer), header: contents.header,
                                      language: caption.language.isEmpty ? nil : caption.language,
                                      title: caption.title.isEmpty ? nil : caption.title,
                                      source: caption.file, sourceCodec: file.format.rawValue)
        track.cues = contents.cues.compactMap { cue in
            var c = cue
            if let duration { c.end = min(c.end, duration) }
            return c.end > c.start ? c : nil
        }
        return track
    }

    /// Every track cut to `window` of the whole output and moved to start at its start.
    mutating func cut(to window: Range<MediaTime>) {
        for i in tracks.indices {
            tracks[i].cues = tracks[i].cues.compactMap { cue in
                var c = cue
                (c.start, c.end) = (max(c.start, window.lowerBound) - window.lowerBound, min(c.end, window.upperBound) - window.lowerBound)
                return c.end > c.start ? c : nil
            }
            guard let tb = tracks[i].copied?.timeBase else { continue }
            tracks[i].packets = tracks[i].packets.compactMap { p in
                let t = MediaTime(ticks: p.pts ?? 0, timeBase: tb)
                guard window.contains(t) else { return nil }
                var out = p
                out.pts = (t - window.lowerBound).ticks(in: tb)
                out.dts = out.pts
                return out
            }
        }
    }
}
