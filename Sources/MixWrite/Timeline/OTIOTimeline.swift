import Foundation
import FFmpegSupport

/// An OpenTimelineIO timeline (`.otio`, OTIO's JSON) as `render` reads it: the Timeline's Stack of Tracks, each a row
/// of Clips (an ExternalReference and a source_range), Gaps and Transitions, and Markers. Read with Foundation's JSON
/// reader (which refuses nesting past 512 levels) and walked by hand: OTIO's C++ core (its Swift bindings) would be a
/// second C++ library to build and ship for what is a few schema names, and OTIO's Python library is the oracle the
/// tests hold this reader to. Every object's `OTIO_SCHEMA` name and version is checked; what mixwrite cannot render
/// exactly (a nested stack, an effect but a change of time, an image sequence, an unknown transition) is refused naming
/// the item.
struct OTIOTimeline: Sendable {
    enum TrackKind: String, Sendable { case video = "Video", audio = "Audio" }

    /// A clip's media and the part of it used, in the media file's own time (its available_range's start taken off).
    struct Clip: Sendable {
        /// "clip 'a' (2 on V1)": how messages name it.
        var label: String
        var path: String
        /// Where the source_range starts in the file, and how long it lasts.
        var inPoint: MediaTime
        var duration: MediaTime
        /// The clip's markers, on the output's timeline once laid out (`Track.layout`): in the clip's range here.
        var markers: [Marker]
        /// `metadata.mixwrite`: mixwrite's own settings for the clip (a layer's key, place, opacity; its gain), as JSON.
        var settings: Data?
        /// The one audio track of its file the clip takes (from 1), where the timeline says: `metadata.mixwrite.track`,
        /// or the `sourcetrack` of Final Cut Pro 7's XML (OTIO's fcp_xml adapter keeps it in `metadata.fcp_xml`).
        var sourceTrack: Int?
        /// Its time changed by its effects (a LinearTimeWarp, a FreezeFrame): its `duration` on the track stays
        /// source_range's, as OTIO's `clip.duration()` has it; the media it uses is `duration` at its speed.
        var retime: Retime?
    }

    struct TransitionItem: Sendable {
        var label: String
        /// `fade` for SMPTE_Dissolve; one of mixwrite's (xfade's names) from `metadata.mixwrite.transition`.
        var kind: Transition.Kind
        /// How far it reaches before the cut (into the outgoing clip) and after it (into the incoming one).
        var inOffset: MediaTime
        var outOffset: MediaTime
    }

    enum Item: Sendable {
        case clip(Clip)
        case gap(MediaTime)
        case transition(TransitionItem)

        var transition: TransitionItem? {
            if case .transition(let t) = self { t } else { nil }
        }
    }

    struct Marker: Sendable {
        var name: String
        /// In its parent's time: the timeline's for the stack's and a track's, the media's for a clip's.
        var time: MediaTime
        /// A chapter as well as an event (`metadata.mixwrite.chapter: false`: an event only, as a concat's events
        /// without `--event-chapters`).
        var chapter = true
    }

    struct Track: Sendable {
        var name: String
        var kind: TrackKind
        /// `metadata.mixwrite`: mixwrite's own settings for the track (a caption file in the timeline's time), as JSON.
        var settings: Data? = nil
        var items: [Item]
        var markers: [Marker]
    }

    var name: String
    /// Bottom to top, as OTIO stacks them.
    var tracks: [Track]
    var markers: [Marker]
    /// The timeline's `metadata.mixwrite`: a render's options (job-file keys) for what the command line leaves at its
    /// default, as `--otio` writes them; JSON.
    var settings: Data?
    /// The rate of the first clip's source_range (snapped: 23.976 is 24000/1001), the timeline's own.
    var rate: FFmpegSupport.Rational?
    /// The timeline's `global_start_time` (an editor's 01:00:00:00), where its first frame's timecode starts.
    var globalStart: MediaTime?

    /// The farthest a RationalTime may lie from 0, in seconds (about 11.6 days: past any medium's timecode).
    static let longestTime = 1_000_000.0
    /// The largest timeline JSON read: 32 MB (tens of thousands of clips; Foundation's reader builds about ten times
    /// the text's size, so a 500 MB bomb in an .otioz would take gigabytes).
    static let largestJSON: UInt64 = 32 << 20
    /// The longest timeline `render` renders: 100 hours.
    static let longestTimeline = MediaTime(value: 100 * 3600, timescale: Int64(1))

    /// The schema versions this reader knows, by name.
    static let versions: [String: ClosedRange<Int>] = [
        "Timeline": 1...1, "Stack": 1...1, "Track": 1...1, "Clip": 1...2, "Gap": 1...1, "Transition": 1...1,
        "ExternalReference": 1...1, "MissingReference": 1...1, "ImageSequenceReference": 1...1, "GeneratorReference": 1...1,
        "Marker": 1...2, "RationalTime": 1...1, "TimeRange": 1...1, "LinearTimeWarp": 1...1, "FreezeFrame": 1...1,
        "Effect": 1...1, "TimeEffect": 1...1, "SerializableCollection": 1...1,
    ]

    /// Reads and checks `path`: not found or unreadable is an input error (exit 2); not an OTIO timeline, an unknown
    /// schema, or an item mixwrite cannot render is a usage error (exit 1) naming the item.
    /// `editRate`: the frame rate an EDL is read at (the file does not say it; OTIO's adapter takes 24 without).
    /// `named`: which timeline of a file that holds several (a Final Cut Pro X library's projects); "" takes the only one.
    init(path: String, editRate: Double? = nil, named: String = "") throws(MixWriteError) {
        let data: Data
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var bundle: OTIOBundle?
        switch (path as NSString).pathExtension.lowercased() {
        case "otioz":
            // A zip of the timeline and its media (OTIO's otioz adapter), read in place.
            let zip = try OTIOBundle(path: path)
            (bundle, data) = (zip, try zip.timeline())
        case "otiod":
            // A folder of the timeline and its media (OTIO's otiod adapter).
            guard FileManager.default.fileExists(atPath: path) else { throw .input(file: path, "no such file") }
            guard let read = FileManager.default.contents(atPath: (path as NSString).appendingPathComponent("content.otio")) else {
                throw .usage("\(path): is not an OTIO bundle folder: it has no readable content.otio")
            }
            data = read
            folder = URL(fileURLWithPath: path).path
        case _ where OTIOAdapters.converts(path):
            data = try OTIOAdapters.json(of: path, rate: editRate)
        default:
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
            guard size <= Self.largestJSON else {
                throw .usage("\(path): is \(size >> 20) MB, more than a timeline mixwrite reads (\(Self.largestJSON >> 20) MB)")
            }
            guard let read = FileManager.default.contents(atPath: path) else {
                throw .input(file: path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
            }
            data = read
        }
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: data) } catch {
            let why = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String).map { " (\($0))" } ?? ""
            throw .usage("\(path): is not an OpenTimelineIO timeline: not JSON\(why)")
        }
        var reader = Reader(folder: folder, bundle: bundle)
        do throws(Reader.Problem) {
            let root = try reader.timeline(try reader.object(json, "the file", schema: "Timeline", "SerializableCollection"), named: named)
            name = root["name"] as? String ?? ""
            if let g = root["global_start_time"], !(g is NSNull) { globalStart = try reader.time(g, "the timeline's global_start_time") }
            settings = ((root["metadata"] as? [String: Any])?["mixwrite"]).flatMap { try? JSONSerialization.data(withJSONObject: $0) }
            let stack = try reader.object(root["tracks"] as Any, "the timeline's tracks", schema: "Stack")
            try reader.refuseTrim(stack, "the timeline's stack")
            markers = try reader.markers(stack["markers"], of: "the timeline's stack")
            tracks = try reader.tracks(stack)
            rate = reader.rate
        } catch {
            throw .usage("\(path): \(Self.oneLine(error.message))")
        }
    }

    /// Text of the file (a name, a schema tag) fit for a one-line message: control characters shown as `?`, cut at `limit`.
    static func oneLine(_ text: String, limit: Int = 2000) -> String {
        let clean = String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? "?" : Character($0) })
        return clean.count > limit ? clean.prefix(limit) + "…" : clean
    }
}

extension OTIOTimeline.Track {
    /// An item as laid on the timeline: where it starts and how long it shows, with the handles its transitions use
    /// (`head` before its start, `tail` after its end), and the transitions into and out of it.
    struct Placed: Sendable {
        var item: OTIOTimeline.Item
        var start: MediaTime
        var duration: MediaTime
        var head: MediaTime = .zero
        var tail: MediaTime = .zero
        /// The transitions into it (whose in_offset is `head`) and out of it (whose out_offset is `tail`).
        var incoming: OTIOTimeline.TransitionItem?
        var outgoing: OTIOTimeline.TransitionItem?

        var clip: OTIOTimeline.Clip? {
            if case .clip(let c) = item { c } else { nil }
        }
    }

    /// Clips and gaps in order, each at its place (the sum of the durations before it: a transition takes no time, it
    /// overlaps its neighbours' handles); a transition at either end, beside another, or longer than a neighbour (or
    /// overlapping the one at the neighbour's other end) is refused, naming it.
    func layout() throws(MixWriteError) -> [Placed] {
        var placed: [Placed] = []
        var at = MediaTime.zero
        var pending: OTIOTimeline.TransitionItem?
        for item in items {
            switch item {
            case .transition(let t):
                guard pending == nil, let last = placed.last else {
                    throw .usage("\(t.label): a transition must sit between two clips or gaps")
                }
                // The transition into the item before covers its first out_offset: this one may not reach into it.
                let left = last.duration - (last.incoming?.outOffset ?? .zero)
                guard t.inOffset <= left else {
                    let has = last.incoming == nil ? "lasts" : "has left after the transition into it"
                    throw .usage("\(t.label): its in_offset (\(NumberText.milliseconds(t.inOffset.seconds)) s) is longer than what the item before it"
                                 + " (\(Self.name(last.item))) \(has) (\(NumberText.milliseconds(left.seconds)) s)")
                }
                (placed[placed.count - 1].tail, placed[placed.count - 1].outgoing) = (t.outOffset, t)
                pending = t
            case .clip(let c):
                placed.append(Placed(item: item, start: at, duration: c.duration))
            case .gap(let length):
                placed.append(Placed(item: item, start: at, duration: length))
            }
            if case .transition = item { continue }
            if let t = pending {
                let next = placed[placed.count - 1]
                guard t.outOffset <= next.duration else {
                    throw .usage("\(t.label): its out_offset (\(NumberText.milliseconds(t.outOffset.seconds)) s) is longer than the item after it"
                                 + " (\(Self.name(next.item)), \(NumberText.milliseconds(next.duration.seconds)) s)")
                }
                (placed[placed.count - 1].head, placed[placed.count - 1].incoming) = (t.inOffset, t)
                pending = nil
            }
            at = at + placed[placed.count - 1].duration
        }
        if let t = pending { throw .usage("\(t.label): a transition must sit between two clips or gaps (it ends the track)") }
        return placed
    }

    static func name(_ item: OTIOTimeline.Item) -> String {
        switch item {
        case .clip(let c): c.label
        case .gap: "a gap"
        case .transition(let t): t.label
        }
    }
}

/// The walk over the JSON, with what it learns on the way (the timeline's rate), relative paths read from `folder` (or
/// from `bundle`, when it holds them).
private struct Reader {
    struct Problem: Error { var message: String }

    let folder: String
    let bundle: OTIOBundle?
    var rate: FFmpegSupport.Rational?

    init(folder: String, bundle: OTIOBundle? = nil) { (self.folder, self.bundle) = (folder, bundle) }

    /// `value` as an object of `schema` (any version this reader knows), else a problem naming `what`.
    func object(_ value: Any, _ what: String, schema: String...) throws(Problem) -> [String: Any] {
        guard let object = value as? [String: Any], let tag = object["OTIO_SCHEMA"] as? String else {
            throw Problem(message: "\(what) is not an OpenTimelineIO object (no OTIO_SCHEMA)")
        }
        let (name, version) = Self.split(tag)
        guard let known = OTIOTimeline.versions[name] else {
            throw Problem(message: "\(what): unknown schema '\(tag)' (mixwrite reads \(schema.joined(separator: ", ")))")
        }
        guard let version, known.contains(version) else {
            throw Problem(message: "\(what): unknown schema version '\(tag)' (mixwrite reads \(name).\(known.lowerBound)"
                          + (known.count > 1 ? " to \(name).\(known.upperBound))" : ")"))
        }
        guard schema.contains(name) else {
            throw Problem(message: "\(what) is \(Self.a(name)), not \(Self.a(schema.joined(separator: " or ")))")
        }
        return object
    }

    /// The Timeline `root` is, or the one named `named` (or the only one) of a SerializableCollection (nested ones
    /// searched too), as OTIO's fcpx_xml adapter reads a library or an event: its projects in a collection.
    func timeline(_ root: [String: Any], named: String) throws(Problem) -> [String: Any] {
        func timelines(_ o: [String: Any]) -> [[String: Any]] {
            if Self.schemaName(o) == "Timeline" { return [o] }
            return (o["children"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }.flatMap(timelines)
        }
        let all = timelines(root)
        let names = all.map { "'" + OTIOTimeline.oneLine($0["name"] as? String ?? "", limit: 80) + "'" }.joined(separator: ", ")
        if !named.isEmpty {
            guard let chosen = all.first(where: { $0["name"] as? String == named }) else {
                throw Problem(message: "has no timeline named '\(OTIOTimeline.oneLine(named, limit: 80))' (it has \(all.isEmpty ? "none" : names))")
            }
            return try object(chosen, "timeline '\(named)'", schema: "Timeline")
        }
        switch all.count {
        case 0: throw Problem(message: "is a SerializableCollection that holds no Timeline")
        case 1: return try object(all[0], "its timeline", schema: "Timeline")
        default: throw Problem(message: "holds \(all.count) timelines (\(names)): choose one with --timeline-name NAME")
        }
    }

    /// A schema's name with its article: "an ImageSequenceReference", "a Timeline".
    static func a(_ name: String) -> String { ("AEIOU".contains(name.first ?? "x") ? "an " : "a ") + name }

    static func split(_ tag: String) -> (String, Int?) {
        guard let dot = tag.lastIndex(of: ".") else { return (tag, nil) }
        return (String(tag[..<dot]), Int(tag[tag.index(after: dot)...]))
    }

    static func schemaName(_ value: Any) -> String {
        split((value as? [String: Any])?["OTIO_SCHEMA"] as? String ?? "").0
    }

    /// A RationalTime as `MediaTime`: its value in frames of its rate (23.976 read as 24000/1001), exactly when the
    /// value is whole, else to the microsecond.
    func time(_ value: Any, _ what: String) throws(Problem) -> MediaTime {
        let o = try object(value, what, schema: "RationalTime")
        guard let v = (o["value"] as? NSNumber)?.doubleValue, let r = (o["rate"] as? NSNumber)?.doubleValue,
              v.isFinite, r.isFinite, r > 0, abs(v) < 1e12 else {
            throw Problem(message: "\(what): a RationalTime needs a finite value and a positive rate")
        }
        guard abs(v / r) <= OTIOTimeline.longestTime else {
            throw Problem(message: "\(what): \(NumberText.shortest(v / r)) s is past any media's time (\(Int(OTIOTimeline.longestTime)) s at most)")
        }
        // A whole rate as it is (48000: a sound's samples), else read as a frame rate (23.976 is 24000/1001).
        let whole = r == r.rounded() && r <= 1_000_000 ? FFmpegSupport.Rational(Int32(r), 1) : nil
        guard let rate = whole ?? FFmpegSupport.Rational(parsing: String(r)), rate.isValid else {
            throw Problem(message: "\(what): rate \(r) is not one mixwrite can use")
        }
        if v == v.rounded() { return MediaTime(frames: Int64(v), rate: rate) }
        return MediaTime(value: Int64((v * Double(rate.den) * 1_000_000 / Double(rate.num)).rounded()), timescale: Int64(1_000_000))
    }

    /// A TimeRange: start and duration (not negative).
    mutating func range(_ value: Any, _ what: String, keepRate: Bool = false) throws(Problem) -> (start: MediaTime, duration: MediaTime) {
        let o = try object(value, what, schema: "TimeRange")
        let start = try time(o["start_time"] as Any, "\(what)'s start_time")
        let duration = try time(o["duration"] as Any, "\(what)'s duration")
        guard duration >= .zero else { throw Problem(message: "\(what): its duration is negative") }
        if keepRate, rate == nil, let d = o["duration"] as? [String: Any], let r = (d["rate"] as? NSNumber)?.doubleValue {
            rate = FFmpegSupport.Rational(parsing: String(r))
        }
        return (start, duration)
    }

    /// A stack or track trimmed by its own source_range, or with effects, is refused: mixwrite renders them whole.
    func refuseTrim(_ o: [String: Any], _ what: String) throws(Problem) {
        if let r = o["source_range"], !(r is NSNull) { throw Problem(message: "\(what) has its own source_range (a trim), which mixwrite cannot render") }
        if let e = o["effects"] as? [Any], !e.isEmpty { throw Problem(message: "\(what) has effects, which mixwrite cannot render") }
    }

    /// Whether a track's `source_range` only says where its record timecode starts, as OTIO's cmx_3600 adapter writes
    /// every EDL's (an EDL from 01:00:00:00: start −01:00:00:00, the track's own length): the track is then rendered
    /// whole from the timeline's start, as OTIO's `duration()` and editors have it. A range that starts later or lasts
    /// another length is a trim.
    mutating func isRecordOffset(_ value: Any?, of items: [OTIOTimeline.Item], _ what: String) throws(Problem) -> Bool {
        guard let value, !(value is NSNull) else { return false }
        let r = try range(value, "\(what)'s source_range")
        let length = items.reduce(MediaTime.zero) { sum, item in
            switch item {
            case .clip(let c): sum + c.duration
            case .gap(let g): sum + g
            case .transition: sum
            }
        }
        let slack = MediaTime(value: 1, timescale: Int64(1000))
        return r.start <= .zero && r.duration <= length + slack && length <= r.duration + slack
    }

    mutating func markers(_ value: Any?, of what: String) throws(Problem) -> [OTIOTimeline.Marker] {
        guard let list = value as? [Any] else { return [] }
        var markers: [OTIOTimeline.Marker] = []
        for (i, m) in list.enumerated() {
            let o = try object(m, "\(what)'s marker \(i + 1)", schema: "Marker")
            let r = try range(o["marked_range"] as Any, "\(what)'s marker \(i + 1)")
            let own = (o["metadata"] as? [String: Any])?["mixwrite"] as? [String: Any]
            markers.append(.init(name: o["name"] as? String ?? "", time: r.start, chapter: own?["chapter"] as? Bool ?? true))
        }
        return markers
    }

    /// The stack's tracks, bottom to top: a disabled one is left out.
    mutating func tracks(_ stack: [String: Any]) throws(Problem) -> [OTIOTimeline.Track] {
        guard let children = stack["children"] as? [Any] else { throw Problem(message: "the timeline's stack has no children") }
        var tracks: [OTIOTimeline.Track] = []
        var counts: [OTIOTimeline.TrackKind: Int] = [:]
        for (i, child) in children.enumerated() {
            let o = try object(child, "the stack's child \(i + 1)", schema: "Track")
            guard let kind = OTIOTimeline.TrackKind(rawValue: o["kind"] as? String ?? "") else {
                throw Problem(message: "track \(i + 1) is of kind '\(o["kind"] as? String ?? "")' (mixwrite renders Video and Audio)")
            }
            counts[kind, default: 0] += 1
            let name = "\(kind == .video ? "V" : "A")\(counts[kind]!)"
            let title = (o["name"] as? String).map { OTIOTimeline.oneLine($0, limit: 80) }.flatMap { $0.isEmpty || $0 == name ? nil : $0 }.map { "\(name) '\($0)'" } ?? name
            guard o["enabled"] as? Bool ?? true else { continue }
            let items = try items(o["children"], track: title)
            let offsetOnly = try isRecordOffset(o["source_range"], of: items, "track \(title)")
            try refuseTrim(offsetOnly ? o.filter { $0.key != "source_range" } : o, "track \(title)")
            var track = OTIOTimeline.Track(name: title, kind: kind, items: items, markers: try markers(o["markers"], of: "track \(title)"))
            track.settings = ((o["metadata"] as? [String: Any])?["mixwrite"]).flatMap { try? JSONSerialization.data(withJSONObject: $0) }
            tracks.append(track)
        }
        return tracks
    }

    mutating func items(_ value: Any?, track: String) throws(Problem) -> [OTIOTimeline.Item] {
        guard let list = value as? [Any] else { return [] }
        var items: [OTIOTimeline.Item] = []
        for (i, child) in list.enumerated() {
            let where_ = "\(i + 1) on \(track)"
            let name = OTIOTimeline.oneLine((child as? [String: Any])?["name"] as? String ?? "", limit: 80)
            let label = name.isEmpty ? "item \(where_)" : "'\(name)' (\(where_))"
            switch Self.schemaName(child) {
            case "Clip": items.append(try clip(child, label: "clip " + label))
            case "Gap":
                let o = try object(child, "gap " + label, schema: "Gap")
                items.append(.gap(try range(o["source_range"] as Any, "gap \(label)'s source_range").duration))
            case "Transition": items.append(.transition(try transition(child, label: "transition " + label)))
            case "Stack", "Track":
                throw Problem(message: "item \(label) is a nested \(Self.schemaName(child)) (a compound clip), which mixwrite does not render;"
                              + " flatten it first (OTIO's otio.algorithms.flatten_stack)")
            default:
                _ = try object(child, "item \(label)", schema: "Clip", "Gap", "Transition")
            }
        }
        return items
    }

    mutating func clip(_ value: Any, label: String) throws(Problem) -> OTIOTimeline.Item {
        let o = try object(value, label, schema: "Clip")
        let reference = try mediaReference(o, label, name: o["name"] as? String ?? "")
        let available = try (reference["available_range"]).flatMap { r throws(Problem) in
            r is NSNull ? nil : try range(r, "\(label)'s media available_range")
        }
        let used: (start: MediaTime, duration: MediaTime)
        if let r = o["source_range"], !(r is NSNull) {
            used = try range(r, "\(label)'s source_range", keepRate: true)
        } else if let available {
            used = available
        } else {
            throw Problem(message: "\(label) has no source_range, and its media no available_range")
        }
        guard used.duration > .zero else { throw Problem(message: "\(label): its source_range lasts no time") }
        let retime = try effects(o["effects"], label)
        // Only mixwrite's own namespace is read; another tool's metadata is left alone.
        let settings = ((o["metadata"] as? [String: Any])?["mixwrite"]).flatMap { m -> Data? in
            try? JSONSerialization.data(withJSONObject: m)
        }
        let clipMarkers = try markers(o["markers"], of: label)
        let origin = available?.start ?? .zero
        guard o["enabled"] as? Bool ?? true else { return .gap(used.duration) }
        return .clip(.init(label: label, path: try path(reference, label),
                           inPoint: used.start - origin, duration: used.duration,
                           markers: clipMarkers.map { .init(name: $0.name, time: $0.time - origin, chapter: $0.chapter) }, settings: settings,
                           sourceTrack: Self.sourceTrack(o["metadata"] as? [String: Any] ?? [:]), retime: retime))
    }

    /// The audio track of its file a clip names (from 1): `metadata.mixwrite.track`, else FCP 7's `sourcetrack` of
    /// mediatype audio; nil when it names none (or not a positive whole number).
    static func sourceTrack(_ metadata: [String: Any]) -> Int? {
        func whole(_ v: Any?) -> Int? {
            let n = (v as? NSNumber)?.doubleValue ?? (v as? String).flatMap(Double.init)
            return n.flatMap { $0 >= 1 && $0 <= 10_000 && $0 == $0.rounded() ? Int($0) : nil }
        }
        if let own = metadata["mixwrite"] as? [String: Any], let n = whole(own["track"]) { return n }
        let fcp = (metadata["fcp_xml"] as? [String: Any])?["sourcetrack"] as? [String: Any]
        guard fcp?["mediatype"] as? String == "audio" else { return nil }
        return whole(fcp?["trackindex"])
    }

    /// Clip.2's active media reference (Clip.1's one): an ExternalReference; a missing one, an image sequence or a
    /// generator is refused.
    func mediaReference(_ clip: [String: Any], _ label: String, name: String) throws(Problem) -> [String: Any] {
        var reference: Any? = clip["media_reference"]
        if let all = clip["media_references"] as? [String: Any] {
            let key = clip["active_media_reference_key"] as? String ?? "DEFAULT_MEDIA"
            reference = all[key]
        }
        guard let reference, !(reference is NSNull) else { throw Problem(message: "\(label) has no media reference") }
        let kind = Self.schemaName(reference)
        switch kind {
        case "ExternalReference": return try object(reference, "\(label)'s media reference", schema: "ExternalReference")
        case "MissingReference":
            // An EDL names its clips' files (`* FROM CLIP NAME:`) without their place: a file of that name beside the
            // timeline is the clip's media.
            let beside = (folder as NSString).appendingPathComponent(name)
            if !name.isEmpty, !name.contains("/"), FileManager.default.fileExists(atPath: beside) {
                return ["OTIO_SCHEMA": "ExternalReference.1", "target_url": beside]
            }
            throw Problem(message: "\(label)'s media is missing (a MissingReference): relink it in the editor, or put a file named as the clip beside the timeline")
        case "ImageSequenceReference", "GeneratorReference":
            throw Problem(message: "\(label)'s media is \(Self.a(kind)), which mixwrite does not render (an ExternalReference to a file does)")
        default: return try object(reference, "\(label)'s media reference", schema: "ExternalReference")
        }
    }

    /// The reference's file: a `file:` URL or a path, relative to the timeline's folder.
    func path(_ reference: [String: Any], _ label: String) throws(Problem) -> String {
        guard let target = reference["target_url"] as? String, !target.isEmpty else {
            throw Problem(message: "\(label)'s media reference has no target_url")
        }
        var path = target
        if let url = URL(string: target), let scheme = url.scheme, scheme.count > 1 {
            guard scheme == "file" else { throw Problem(message: "\(label)'s media is at \(target): mixwrite reads files (file: URLs or paths)") }
            path = url.path
        }
        if path.hasPrefix("/") { return path }
        switch bundle?.medium(path) {
        case .success(let url)?: return url
        case .failure(let problem)?: throw Problem(message: "\(label): \(problem.message)")
        case nil: return (folder as NSString).appendingPathComponent(path)
        }
    }

    /// A clip's effects: its time changed by one LinearTimeWarp (its `time_scalar`: 2 twice as fast, 0.5 half, negative
    /// reversed, 0 a freeze; 1 changes nothing) or a FreezeFrame; any other effect, a second change of time, or a scalar
    /// outside ±0.01 … ±100 (but 0) is refused, named.
    func effects(_ value: Any?, _ label: String) throws(Problem) -> Retime? {
        var retime: Retime?, timed = false
        for (i, effect) in (value as? [Any] ?? []).enumerated() {
            let kind = Self.schemaName(effect)
            let o = try object(effect, "\(label)'s effect \(i + 1)", schema: "LinearTimeWarp", "FreezeFrame", "Effect", "TimeEffect")
            let name = (o["effect_name"] as? String).flatMap { $0.isEmpty ? nil : " '\($0)'" } ?? ""
            guard kind == "LinearTimeWarp" || kind == "FreezeFrame" else {
                throw Problem(message: "\(label) has an effect\(name) (\(kind)), which mixwrite cannot render exactly")
            }
            guard !timed else { throw Problem(message: "\(label) changes its time twice (effect \(i + 1), \(kind)): mixwrite renders one speed a clip") }
            timed = true
            let scalar = kind == "FreezeFrame" ? 0 : (o["time_scalar"] as? NSNumber)?.doubleValue ?? 1
            guard scalar != 1 else { continue }
            guard let r = Retime(scalar: scalar) else {
                throw Problem(message: "\(label): its LinearTimeWarp's time_scalar \(scalar) is outside ±\(Retime.slowest) … ±"
                              + "\(NumberText.shortest(Retime.fastest)) (0 freezes)")
            }
            retime = r
        }
        return retime
    }

    func transition(_ value: Any, label: String) throws(Problem) -> OTIOTimeline.TransitionItem {
        let o = try object(value, label, schema: "Transition")
        let type = o["transition_type"] as? String ?? ""
        let own = ((o["metadata"] as? [String: Any])?["mixwrite"] as? [String: Any])?["transition"] as? String
        let kind: Transition.Kind
        switch (type, own) {
        case ("SMPTE_Dissolve", nil): kind = .fade
        case (_, let name?):
            guard let k = Transition.Kind(rawValue: name), k != .cut else {
                throw Problem(message: "\(label): metadata.mixwrite.transition '\(name)' is not one of mixwrite's transitions ("
                              + Transition.Kind.allCases.dropFirst().map(\.rawValue).joined(separator: ", ") + ")")
            }
            kind = k
        default: throw Problem(message: "\(label) is a '\(type)' transition, which mixwrite cannot render (SMPTE_Dissolve, or metadata.mixwrite.transition)")
        }
        let i = try time(o["in_offset"] as Any, "\(label)'s in_offset"), out = try time(o["out_offset"] as Any, "\(label)'s out_offset")
        guard i >= .zero, out >= .zero, i + out > .zero else { throw Problem(message: "\(label): its in_offset and out_offset must not be negative, and not both 0") }
        return .init(label: label, kind: kind, inOffset: i, outOffset: out)
    }
}
