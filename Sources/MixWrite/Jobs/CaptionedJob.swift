import FFmpegSupport

extension CaptionedJob {
    /// The subtitle tracks of a whole movie or an excerpt (no part).
    func subtitles(_ placements: [SubtitlePlacement], output: OutputFile, video: inout VideoPlan) throws(MixWriteError) -> SubtitlePlan {
        var none: PartPlan? = nil
        return try subtitles(placements, output: output, video: &video, part: &none)
    }

    /// The output's subtitle tracks: `placements`' inputs' retimed and the caption files', cut to the frames `video`
    /// writes (an excerpt's, a part's); the captions to burn given to `video`, before its stage and smart plan are made.
    /// `part`: the part of `--parts` this render writes, whose record carries its cues to the join.
    func subtitles(_ placements: [SubtitlePlacement], output: OutputFile, video: inout VideoPlan,
                   part: inout PartPlan?) throws(MixWriteError) -> SubtitlePlan {
        let start = video.time(ofFrame: video.firstFrame)
        // A part's tracks are in the final movie's container, whose codecs its record keeps.
        let muxer = part.map { OutputFile.Container.named($0.record.output)?.muxerName ?? "mov" } ?? output.container.muxerName
        var plan = try SubtitlePlan.make(placements: placements, captions: captions, muxer: muxer, duration: video.wholeLength,
                                         window: start..<(start + video.length), inPart: part != nil)
        if part != nil {
            part!.record.subtitles = plan.tracks.map(PartSubtitles.init)
            plan.tracks = []
        }
        video.burned = plan.burn
        return plan
    }
}
