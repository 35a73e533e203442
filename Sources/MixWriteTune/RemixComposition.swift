import Foundation
@_spi(Tools) import MixWrite

extension RemixJob: TunableJob {
    func composition() throws(MixWriteError) -> any Composition { try SequenceComposition(remix: self) }
}

extension SequenceComposition where Job == RemixJob {
    /// A remix: the movie's picture as it is (copied untouched by the render), the mix; the audition is sound only.
    convenience init(remix job: RemixJob) throws(MixWriteError) {
        try self.init(kind: "remix", parts: [], job: job, initial: { job, tracks in TuneSettings(audio: job.audio, tracks: tracks) },
                      auditionType: "m4a", burns: false,
                      tune: { (job, s, tracks) throws(RequestError) in
            try s.applyMix(to: job, \.audio, tracks: tracks)
        }, cut: { j, start, length in j.excerpt = (start, length) },
           preview: { (j) throws(MixWriteError) in try SequencePreview(job: j) },
           describe: { info, _, _, _ in info.movie = job.movie })
    }
}
