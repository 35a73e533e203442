import Foundation
@_spi(Tools) import MixWrite

extension StillJob: TunableJob {
    func composition() throws(MixWriteError) -> any Composition { try SequenceComposition(still: self) }
}

extension SequenceComposition where Job == StillJob {
    /// A still: `--fit`, `--size`, `--background`, the mix.
    convenience init(still job: StillJob) throws(MixWriteError) {
        try self.init(kind: "still", parts: ["picture", "frame", "background"], job: job, initial: { job, tracks in
            var s = TuneSettings(audio: job.audio, tracks: tracks)
            s.showFrame(of: job.picture)
            s.background = job.backgroundHex
            return s
        }, tune: { (job, s, tracks) throws(RequestError) in
            try s.applyMix(to: try s.applyPicture(to: job, \.picture), \.audio, tracks: tracks)
        }, cut: { j, start, length in (j.run.start, j.run.length) = (start, length); j.picture.preset = TuneSession.auditionPreset },
           preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           describe: { info, _, _, _ in info.image = job.image })
    }
}
