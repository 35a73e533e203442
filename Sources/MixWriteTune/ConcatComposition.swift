import Foundation
@_spi(Tools) import MixWrite

extension ConcatJob: TunableJob {
    func composition() throws(MixWriteError) -> any Composition { try SequenceComposition(concat: self) }
}

extension SequenceComposition where Job == ConcatJob {
    /// A concat: clips reordered and removed, `--fit`, `--size`, `--fps`, the mix. A clip's tracks keep the name the
    /// command line gave them (`clip2:1`) on the page; the job gets the names of their new places.
    convenience init(concat job: ConcatJob) throws(MixWriteError) {
        try self.init(kind: "concat", parts: ["timeline", "frame", "fps", "clips"], job: job, initial: { job, tracks in
            var s = TuneSettings(audio: job.audio, tracks: tracks)
            s.clips = Array(job.clips.indices)
            s.transitions = job.clips.indices.dropFirst().map { job.transition(at: $0).description }
            s.retimes = job.clips.map { (try? ConcatJob.clipTime($0).time) ?? "" }
            s.showFrame(of: job.picture)
            s.fps = job.picture.frameRate?.description ?? ""
            return s
        }, tune: { (job, s, tracks) throws(RequestError) in
            var j = job
            let order = s.clips ?? Array(job.clips.indices)
            guard !order.isEmpty else { throw .bad("a concat needs at least one clip") }
            guard Set(order).count == order.count, order.allSatisfy(job.clips.indices.contains) else {
                throw .bad("clips must name each of the clips 0 … \(job.clips.count - 1) at most once")
            }
            j.clips = try Self.retimed(order, s.retimes, of: job.clips)
            try Self.applyTransitions(s.transitions, to: &j)
            j = try s.applyPicture(to: j, \.picture)
            // A clip's source clipN is its place on the command line; in the job, its new place.
            let place = Dictionary(uniqueKeysWithValues: order.enumerated().map { ("clip\($0.element + 1)", "clip\($0.offset + 1)") })
            let kept = tracks.filter { !$0.source.hasPrefix("clip") || place[$0.source] != nil }
            j = try s.applyMix(to: j, \.audio, tracks: kept, renamed: { place[$0] ?? $0 })
            j.events = job.events.compactMap { e in
                order.firstIndex(of: e.clip).map { ClipEvent(clip: $0, time: e.time, name: e.name) }
            }
            return j
        }, cut: { j, start, length in
            (j.run.start, j.run.length) = (start, length)
            j.picture.preset = TuneSession.auditionPreset
            j.hdr = .sdr   // the browser plays H.264: the audition is the SDR picture
        }, preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           describe: { info, settings, p, given in
            // Every clip given, its length as the output has it now (a removed one's as given).
            let order = settings.clips ?? Array(given.indices)
            info.clips = given.enumerated().map { i, piece in
                TuneInfo.Clip(index: i, file: piece.file, name: (piece.file as NSString).lastPathComponent,
                              duration: order.firstIndex(of: i).map { p.pieces[$0].duration } ?? piece.duration)
            }
            (info.pieces, info.events) = (p.pieces, p.events)
            info.transitionKinds = Transition.Kind.allCases.map(\.rawValue)
        })
    }

    /// The clips in the page's order, each with the own time the page gives it (by its place on the command line;
    /// nil: as the command line gave them), checked as the command line's words are: a malformed one is a 400 naming it.
    static func retimed(_ order: [Int], _ times: [String]?, of given: [String]) throws(RequestError) -> [String] {
        guard let times else { return order.map { given[$0] } }
        guard times.count == given.count else { throw .bad("retimes must give each of the \(given.count) clips' own time (\"\" as it is)") }
        do {
            return try order.map { (i: Int) throws(MixWriteError) -> String in
                guard times[i].count <= 4096 else { throw .usage("concat clip \(i + 1): its own time is too long") }
                return try ConcatJob.clipWord(path: try ConcatJob.clipTime(given[i]).path, time: times[i].trimmingCharacters(in: .whitespaces))
            }
        } catch { throw .bad(error.description) }
    }

    /// The page's transition at each boundary of its order (`KIND[:S]` or `cut`; a boundary it does not give keeps the
    /// command line's `--transition`), read as `--transition-at K=…` by the job file's reader, then written as briefly
    /// as it renders the same: one `--transition` when they are all alike, no `--transition-at` that repeats it.
    static func applyTransitions(_ given: [String]?, to j: inout ConcatJob) throws(RequestError) {
        guard let given else { return }
        guard given.count < 4096 else { throw .bad("transitions: too many") }
        let boundaries = max(0, j.clips.count - 1)
        j.transitionsAt = [:]
        let texts = given.prefix(boundaries).enumerated().map { "\($0.offset + 1)=\($0.element)" }
        do { j = try j.applying(["transition-at": texts]) } catch { throw .bad(error.description) }
        let list = (0..<boundaries).map { j.transition(at: $0 + 1) }
        if let first = list.first, list.allSatisfy({ $0 == first }) { (j.transition, j.transitionsAt) = (first, [:]) }
        j.transitionsAt = j.transitionsAt.filter { $0.value != j.transition }   // a boundary as --transition says: not repeated
    }
}
