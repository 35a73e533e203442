import Foundation
import FFmpegSupport

@_spi(Tools)
extension SyncReport {
    /// The synced recordings as an OpenTimelineIO timeline (`sync --otio`), the multicam an editor opens: the reference
    /// from 0 on the first tracks (its picture on V1, its sound on A1), each placed file on tracks of its own, at its
    /// place (a gap before it, or its head trimmed where it began before the reference), its picture on a video track
    /// when it has one (to the frame) and its sound on an audio track (to the 48 kHz sample). Each clip's
    /// `metadata.mixwrite_sync` keeps `offsetSeconds`, `driftPPM` and `confidence` (a namespace of its own: `render`
    /// reads `metadata.mixwrite` as the clip's settings). A file with no place is left out.
    /// Written as every output is: not replacing a file without `overwrite`.
    public func writeTimeline(to path: String, overwrite: Bool) throws(MixWriteError) {
        let ref = try MediaFile(path: reference)
        let rate = ref.mainVideo?.frameRate ?? Rational(25, 1)
        var export = OTIOExport(name: (reference as NSString).lastPathComponent, rate: rate)
        let placed = [(reference, SoundSync.Match(file: reference, offsetSeconds: 0, driftPPM: 0, confidence: 1))]
            + sources.filter { $0.offsetSeconds != nil }.map { ($0.file, $0) }
        for (path, match) in placed {
            let file = try MediaFile(path: path)
            let offset = MediaTime(seconds: match.offsetSeconds ?? 0) ?? .zero
            let meta: [String: Any] = ["mixwrite_sync": ["offsetSeconds": match.offsetSeconds ?? 0, "driftPPM": match.driftPPM ?? 0,
                                                         "confidence": match.confidence] as [String: Any]]
            if file.mainVideo != nil, let length = file.videoDuration {
                export.video.append(Self.placed(file, at: offset, length: length, rate: rate, meta: meta))
            }
            if !file.audioStreams.isEmpty, let length = file.totalDuration {
                export.audio.append(Self.placed(file, at: offset, length: length, rate: Rational(48000, 1), meta: meta))
            }
        }
        let output = try OutputFile(path: path, overwrite: overwrite, inputs: [reference] + sources.map(\.file), kind: .timeline)
        try output.write([UInt8](try export.json()))
    }

    /// One track's items: a gap to `at` (or the clip's head trimmed where `at` is negative), then the clip to its end.
    private static func placed(_ file: MediaFile, at: MediaTime, length: MediaTime, rate: Rational, meta: [String: Any]) -> [[String: Any]] {
        let name = (file.path as NSString).lastPathComponent
        let gap = at.ticks(in: rate.inverted), head = max(0, -gap)
        let frames = length.ticks(in: rate.inverted) - head
        guard frames > 0 else { return [] }
        var clip = OTIOExport.clip(name, file, start: MediaTime(frames: head, rate: rate), duration: MediaTime(frames: frames, rate: rate),
                                   rate: rate)
        clip["metadata"] = meta
        return gap > 0 ? [OTIOExport.gap(MediaTime(frames: gap, rate: rate), rate: rate), clip] : [clip]
    }
}
