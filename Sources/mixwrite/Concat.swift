import ArgumentParser
import Foundation
@_spi(Tools) import MixWrite
import MixWriteTune

struct Concat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat",
        abstract: "Put clips end to end, video and every audio track of each; one chapter a clip.",
        discussion: "Example: mixwrite concat intro.mov talk.mp4 outro.mov -o show.mp4 --events events.json"
    )

    @Argument(help: "The clips, in order.")
    var clips: [String]

    @Option(name: .shortAndLong, help: "The movie to write (.mov, .mp4, .m4v or .mkv).")
    var output: String

    @Option(help: "How clips of another shape fit the frame: fit (letterbox), fill (crop) or stretch.")
    var fit: Fit = .fit

    @Option(help: "A JSON array of {\"clip\": K, \"time\": SECONDS, \"name\": TEXT} (K from 0) to re-time onto the output.")
    var events: String?

    @Flag(name: .customLong("event-chapters"), help: "Also mark each event as a chapter (its clip's chapter is split there).")
    var eventChapters = false

    @OptionGroup var common: CommonOptions
    @OptionGroup var video: VideoOptions
    @OptionGroup var audio: AudioMixOptions
    @OptionGroup var parts: PartOptions
    @OptionGroup var tuning: TuneFlag

    func run() async throws {
        var job = ConcatJob(clips: clips, output: output)
        try parts.apply(parts: &job.parts, part: &job.part)
        job.overwrite = common.overwrite
        job.strict = common.strict
        job.fit = fit
        job.eventChapters = eventChapters
        try video.apply(width: &job.width, height: &job.height, frameRate: &job.frameRate, crf: &job.crf, preset: &job.preset,
                        codec: &job.codec, proresProfile: &job.proresProfile)
        job.audio = try audio.options()
        if let events {
            guard let data = FileManager.default.contents(atPath: events) else {
                throw MixWriteError.input(file: events, "cannot be read")
            }
            do { job.events = try JSONDecoder().decode([ClipEvent].self, from: data) } catch {
                throw MixWriteError.input(file: events, "is not a JSON array of {\"clip\", \"time\", \"name\"} events")
            }
        }
        if tuning.tune {
            if job.parts != nil { throw MixWriteError.usage("--tune serves the page for the whole job: --parts does not go with it") }
            let tuned = job
            return try await tuning.serve(job.output, quiet: common.quiet) { try await TuneServer(job: tuned, listen: $0, port: $1) }
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report)
    }
}

struct Still: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "still",
        abstract: "A movie of one picture, exactly as long as its audio (several audio files are mixed).",
        discussion: "Example: mixwrite still cover.jpg episode.mp3 -o episode.mp4"
    )

    @Argument(help: "The picture (PNG, JPEG …).")
    var image: String

    @Argument(help: "The sound: one or more audio files or movies, named audio1, audio2 …")
    var sounds: [String]

    @Option(name: .shortAndLong, help: "The movie to write (.mov, .mp4, .m4v or .mkv).")
    var output: String

    @Option(help: "How the picture fits a --size of another shape: fit (bars), fill (crop) or stretch.")
    var fit: Fit = .fit

    @Option(help: "The colour behind transparent pixels and in the bars, RRGGBB (default black).")
    var background: String = "000000"

    @OptionGroup var common: CommonOptions
    @OptionGroup var video: VideoOptions
    @OptionGroup var audio: AudioMixOptions
    @OptionGroup var tuning: TuneFlag

    func run() async throws {
        var job = StillJob(image: image, audioFiles: sounds, output: output)
        job.overwrite = common.overwrite
        job.strict = common.strict
        job.fit = fit
        try video.apply(width: &job.width, height: &job.height, frameRate: &job.frameRate, crf: &job.crf, preset: &job.preset,
                        codec: &job.codec, proresProfile: &job.proresProfile)
        guard let bg = OptionValue.color(background) else {
            throw MixWriteError.usage("--background '\(background)' is not a colour; use RRGGBB")
        }
        job.background = [bg.r, bg.g, bg.b]
        job.audio = try audio.options()
        if tuning.tune {
            let tuned = job
            return try await tuning.serve(job.output, quiet: common.quiet) { try await TuneServer(job: tuned, listen: $0, port: $1) }
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report)
    }
}

extension Fit: ExpressibleByArgument {}
