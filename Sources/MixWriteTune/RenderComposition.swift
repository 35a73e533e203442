import Foundation
@_spi(Tools) import MixWrite

extension RenderJob: TunableJob {
    func composition() throws(MixWriteError) -> any Composition { try SequenceComposition(render: self) }
}

extension SequenceComposition where Job == RenderJob {
    /// A timeline: its picture at any time (every video track composited), its bottom track's clips and its markers
    /// on the page's timeline, `--fit`, `--size`, `--fps`, the mix of every clip's sound (`clip1:1` …).
    convenience init(render job: RenderJob) throws(MixWriteError) {
        try self.init(kind: "render", parts: ["timeline", "frame", "fps"], job: job, initial: { job, tracks in
            var s = TuneSettings(audio: job.audio, tracks: tracks)
            s.showFrame(of: job.picture)
            s.fps = job.picture.frameRate?.description ?? ""
            return s
        }, tune: { (job, s, tracks) throws(RequestError) in
            try s.applyMix(to: try s.applyPicture(to: job, \.picture), \.audio, tracks: tracks)
        }, cut: { j, start, length in (j.run.start, j.run.length) = (start, length); j.picture.preset = TuneSession.auditionPreset },
           preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           describe: { info, _, p, _ in (info.pieces, info.events) = (p.pieces, p.events) })
    }
}
