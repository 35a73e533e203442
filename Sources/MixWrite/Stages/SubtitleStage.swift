import FFmpegSupport

/// One subtitle track of the output: its planned cues encoded in the container's text codec (a picture track's
/// packets copied), appended to its input of the writer, then the track finished.
struct SubtitleStage: Sendable {
    let track: SubtitleTrackPlan

    func run(into input: AssetWriterInput) async throws -> StageOutcome {
        if let copied = track.copied {
            try await input.start(copied)
            for p in track.packets { try await input.append(p) }
        } else if let codec = track.codec {
            let encoder = try SubtitleEncoder(codec: codec, header: track.header)
            try await input.start(try encoder.codecParameters())
            // ASS keeps each event a block of its own and overlaps them; the others show one cue at a time.
            for cue in codec == "ass" ? track.cues : SubtitleStage.flattened(track.cues) {
                for p in try encoder.encode(cue) { try await input.append(p) }
            }
        }
        try await input.finish()
        return StageOutcome(damaged: 0)
    }

    /// `cues` as a run of cues that never overlap: where two show at once, one cue with both events, cut at every
    /// start and end (mov_text, WebVTT and SubRip show a sample at a time).
    static func flattened(_ cues: [SubtitleCue]) -> [SubtitleCue] {
        let sorted = cues.sorted { $0.start < $1.start }
        guard zip(sorted, sorted.dropFirst()).contains(where: { $0.end > $1.start }) else { return sorted }
        let bounds = Array(Set(sorted.flatMap { [$0.start, $0.end] })).sorted()
        var out: [SubtitleCue] = []
        for (a, b) in zip(bounds, bounds.dropFirst()) {
            let events = sorted.filter { $0.start <= a && $0.end >= b }.flatMap(\.events)
            guard !events.isEmpty else { continue }
            if var last = out.last, last.end == a, last.events == events {
                last.end = b
                out[out.count - 1] = last
            } else {
                out.append(SubtitleCue(start: a, end: b, events: events))
            }
        }
        return out
    }
}
