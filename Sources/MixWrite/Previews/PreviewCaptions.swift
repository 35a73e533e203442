import FFmpegSupport

/// The caption files a preview draws into the output's pictures (`--burn-captions`), as the render draws them: on
/// output frame n's picture, at that frame's time, by the same burner. The picture is drawn on a copy, since a
/// preview keeps its own pictures to show again. Not thread-safe: its preview's owner uses it.
final class PreviewCaptions {
    private let burner: CaptionBurner?
    private let rate: Rational
    private var copy: Frame?

    init(_ burned: BurnedCaptions?, rate: Rational) {
        (burner, self.rate) = (burned.map(CaptionBurner.init), rate)
    }

    /// `picture` (output frame `n`'s) with the captions showing at its time drawn, on a copy valid until the next
    /// call; `picture` itself when none shows.
    func drawn(on picture: Frame, frame n: Int) throws(MixWriteError) -> Frame {
        let time = MediaTime(frames: Int64(n), rate: rate)
        guard let burner, burner.shows(at: time) else { return picture }
        do { copy = try picture.copied(reusing: copy) } catch {
            throw .processing(file: nil, "the preview's captions: \(error.description)")
        }
        try burner.draw(on: copy!, at: time)
        return copy!
    }
}

extension CaptionSettings {
    /// What of these settings a picture shows: the files drawn into it (their names and encodings), none unless
    /// `burn`. A preview is drawn again when this changes, not when a track's language or title does.
    @_spi(Tools) public var drawn: [Caption] {
        burn ? files.map { var c = Caption(file: $0.file); c.encoding = $0.encoding; return c } : []
    }
}

extension CaptionedJob {
    /// The caption files this job draws into an output of `duration` (`--burn-captions`), as its render plans them;
    /// nil when it draws none.
    func burnedCaptions(duration: MediaTime) throws(MixWriteError) -> BurnedCaptions? {
        guard captions.burn else { return nil }
        return try SubtitlePlan.make(placements: [], captions: captions, muxer: "mov", duration: duration).burn
    }
}
