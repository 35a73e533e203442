import Foundation
import FFmpegSupport

/// A job written as an OpenTimelineIO timeline (`--otio FILE`), which `mixwrite render` renders to the same movie and
/// OTIO's own library reads: the picture's clips on video tracks (base at the bottom, each layer on a track of its
/// own over it; a concat's clips on one track, their transitions over the handles the clips' own frames give), each
/// `--audio` file on an audio track of its own, media as absolute file URLs. A layer's key, place and opacity are its
/// clip's `metadata.mixwrite`; the job's picture and mix options (the gains under the render's names, `clip1` …) the
/// timeline's, which `render` reads as its own.
struct OTIOExport {
    var name: String
    var rate: Rational
    /// Bottom to top.
    var video: [[[String: Any]]] = []
    var audio: [[[String: Any]]] = []
    /// The render's options for the timeline's `metadata.mixwrite`.
    var settings: [String: Any] = [:]
    /// Markers of the bottom video track (a concat's chapter a clip), in the timeline's time.
    var chapterMarks: [[String: Any]] = []

    /// An item of a track or the stack (a Composable): its schema, name and the fields OTIO writes for every one.
    static func item(_ schema: String, _ name: String, metadata: [String: Any]? = nil, markers: [[String: Any]] = []) -> [String: Any] {
        var o: [String: Any] = [:]
        o["OTIO_SCHEMA"] = schema
        o["name"] = name
        o["metadata"] = metadata.map { ["mixwrite": $0] as [String: Any] } ?? [String: Any]()
        o["effects"] = [Any]()
        o["markers"] = markers
        o["enabled"] = true
        o["color"] = NSNull()
        o["source_range"] = NSNull()
        return o
    }

    /// The timeline as OTIO's JSON, keys sorted.
    func json() throws(MixWriteError) -> Data {
        func track(_ kind: String, _ n: Int, _ items: [[String: Any]]) -> [String: Any] {
            var o = Self.item("Track.1", "\(kind.prefix(1))\(n)", markers: kind == "Video" && n == 1 ? chapterMarks : [])
            o["kind"] = kind
            o["children"] = items
            return o
        }
        var tracks: [[String: Any]] = []
        for (i, items) in video.enumerated() { tracks.append(track("Video", i + 1, items)) }
        for (i, items) in audio.enumerated() { tracks.append(track("Audio", i + 1, items)) }
        var stack = Self.item("Stack.1", "tracks")
        stack["children"] = tracks
        var root: [String: Any] = [:]
        root["OTIO_SCHEMA"] = "Timeline.1"
        root["name"] = name
        root["tracks"] = stack
        root["global_start_time"] = NSNull()
        root["metadata"] = settings.isEmpty ? [String: Any]() : ["mixwrite": settings] as [String: Any]
        do { return try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) } catch {
            throw .processing(file: nil, "the timeline cannot be written as JSON: \(error)")
        }
    }

    static func time(_ t: MediaTime, rate: Rational) -> [String: Any] {
        ["OTIO_SCHEMA": "RationalTime.1", "rate": rate.doubleValue, "value": Double(t.ticks(in: rate.inverted))] as [String: Any]
    }

    static func range(_ start: MediaTime, _ duration: MediaTime, rate: Rational) -> [String: Any] {
        ["OTIO_SCHEMA": "TimeRange.1", "start_time": time(start, rate: rate), "duration": time(duration, rate: rate)] as [String: Any]
    }

    /// A clip of `file` from `start` for `duration`, in `rate`'s units (a video track's frames; 48000 for sound).
    static func clip(_ name: String, _ file: MediaFile, start: MediaTime, duration: MediaTime, rate: Rational,
                     settings: [String: Any]? = nil, markers: [[String: Any]] = []) -> [String: Any] {
        var reference: [String: Any] = [:]
        reference["OTIO_SCHEMA"] = "ExternalReference.1"
        reference["name"] = (file.path as NSString).lastPathComponent
        reference["target_url"] = URL(fileURLWithPath: file.path).absoluteString
        reference["metadata"] = [String: Any]()
        reference["available_image_bounds"] = NSNull()
        reference["available_range"] = NSNull()
        if let length = file.isStillImage ? nil : (file.mainVideo != nil ? file.videoDuration : file.totalDuration) {
            reference["available_range"] = range(.zero, length, rate: rate)
        }
        var o = item("Clip.2", name, metadata: settings, markers: markers)
        o["source_range"] = range(start, duration, rate: rate)
        o["media_references"] = ["DEFAULT_MEDIA": reference] as [String: Any]
        o["active_media_reference_key"] = "DEFAULT_MEDIA"
        return o
    }

    /// A LinearTimeWarp at `scalar` (media seconds a second of the track).
    static func timeWarp(_ scalar: Double) -> [String: Any] {
        ["OTIO_SCHEMA": "LinearTimeWarp.1", "name": "", "effect_name": "", "metadata": [String: Any](), "time_scalar": scalar]
    }

    static func gap(_ duration: MediaTime, rate: Rational) -> [String: Any] {
        var o = item("Gap.1", "")
        o["source_range"] = range(.zero, duration, rate: rate)
        return o
    }

    /// A dissolve for `fade`, else a Custom_Transition naming mixwrite's kind.
    static func transition(_ kind: Transition.Kind, in before: MediaTime, out after: MediaTime, rate: Rational) -> [String: Any] {
        var o: [String: Any] = [:]
        o["OTIO_SCHEMA"] = "Transition.1"
        o["name"] = ""
        o["transition_type"] = kind == .fade ? "SMPTE_Dissolve" : "Custom_Transition"
        o["in_offset"] = time(before, rate: rate)
        o["out_offset"] = time(after, rate: rate)
        o["metadata"] = kind == .fade ? [String: Any]() : ["mixwrite": ["transition": kind.rawValue] as [String: Any]] as [String: Any]
        return o
    }

    static func marker(_ name: String, at t: MediaTime, rate: Rational, chapter: Bool = true) -> [String: Any] {
        var o: [String: Any] = [:]
        o["OTIO_SCHEMA"] = "Marker.2"
        o["name"] = name
        o["marked_range"] = range(t, .zero, rate: rate)
        o["color"] = "RED"
        o["comment"] = ""
        o["metadata"] = chapter ? [String: Any]() : ["mixwrite": ["chapter": false] as [String: Any]] as [String: Any]
        return o
    }

    /// Each `--audio` file on an audio track of its own, from 0 for its whole length (cut at `total`), to the sample.
    mutating func addAudioFiles(_ files: [(String, MediaFile)], total: MediaTime) {
        let samples = Rational(48000, 1)
        for (label, file) in files {
            let length = min(file.totalDuration ?? total, total)
            audio.append([Self.clip(label, file, start: .zero, duration: length, rate: samples)])
        }
    }

    /// `job`'s job-file entry (every option not at its default, as the job file writes it) as a JSON object.
    static func entry(of job: some MixJob) throws(MixWriteError) -> [String: Any] {
        guard let entry = (try? JSONSerialization.jsonObject(with: Data(job.jobEntry.utf8))) as? [String: Any] else {
            throw .processing(file: nil, "the job's options cannot be written")
        }
        return entry
    }
}
