import Foundation

extension AudioOptions {
    /// The source the others' sound is placed against: `--sync-to`, else base, else the first input.
    func syncReference(_ labels: [String]) -> String? { syncTo ?? (labels.contains("base") ? "base" : labels.first) }

    /// The sources placed by their sound given their offsets: where each one's time 0 falls on the output, so that its
    /// sound is heard with the reference's there, wherever each is laid (a layer's `--at` and `--in`, a timeline's clip
    /// and its in-point), the reference's own offset included; negative where it began before the reference.
    func placed(_ sources: [AudioSource]) -> [AudioSource] {
        sources.map { s in
            guard let (offset, reference) = s.sync else { return s }
            var s = s
            let laid = { (x: AudioSource) -> Double in x.timelineStart.seconds - x.head.seconds }
            let ref = sources.first { $0.label == reference }
            s.offsetSeconds = (offsets[reference] ?? 0) + (ref.map(laid) ?? 0) + offset - laid(s)
            return s
        }
    }

    /// Finds where each source (or track) given `--offset NAME=auto` lies against the reference's sound (its first audio
    /// track's), and its clock's drift under `--drift auto`; `placed` turns that into its offset once every source has
    /// its place on the output.
    /// Refused (exit 1, naming the file): the reference itself, a source whose sound does not match clearly.
    func placeBySound(_ sources: inout [AudioSource], inputs: [(label: String, file: MediaFile)],
                      warnings: inout [String]) throws(MixWriteError) {
        guard let reference = syncReference(inputs.map(\.label)), let ref = inputs.first(where: { $0.label == reference }) else { return }
        for name in autoOffsets where name == reference || name.hasPrefix(reference + ":") {
            throw .usage("--offset \(name)=auto: \(reference) is the reference the others are placed against; give it seconds, or --sync-to another source")
        }
        let envelope = try SoundSync.envelope(of: ref.file)
        var found: [String: SoundSync.Match] = [:]
        for i in sources.indices where autoOffsets.contains(sources[i].name) || autoOffsets.contains(sources[i].label) {
            let s = sources[i]
            // A source's every track follows its first; a track named alone is placed by its own sound.
            let stream = autoOffsets.contains(s.name) ? s.streamIndex : nil
            let key = "\(s.path)#\(stream ?? -1)"
            if found[key] == nil {
                guard let file = inputs.first(where: { $0.label == s.label })?.file else { continue }
                let m = try SoundSync.match(file, stream: stream, against: ref.file, envelope: envelope)
                guard let offset = m.offsetSeconds, m.confidence >= SoundSync.confidenceFloor else {
                    throw .usage("\(s.shownPath): its sound does not match \(ref.file.path)'s (confidence "
                                 + "\(NumberText.milliseconds(m.confidence)), under \(SoundSync.confidenceFloor)); give --offset \(s.label)=SECONDS")
                }
                found[key] = m
                warnings.append("\(s.shownPath): placed by its sound at \(String(format: "%+.4f", offset)) s on \(reference)'s timeline"
                                + (drift == .auto ? String(format: ", its clock %+.1f ppm", m.driftPPM ?? 0) : "")
                                + String(format: " (confidence %.2f)", m.confidence))
            }
            guard let m = found[key], let offset = m.offsetSeconds else { continue }
            sources[i].sync = (offset, reference)
            sources[i].driftPPM = drift == .auto ? m.driftPPM ?? 0 : 0
        }
    }
}
