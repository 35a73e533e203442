import ArgumentParser
import MixWrite
import MixWriteTune

struct Remix: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remix",
        abstract: "Mix every audio track of MOVIE (and of --audio files) into one; the video is copied untouched.",
        discussion: "Example: mixwrite remix phone.mov --audio narration.m4a -o phone-mixed.mov"
    )

    @Argument(help: "The movie (or sound file) whose tracks are mixed. Its source name is 'movie'.")
    var movie: String

    @Option(name: .shortAndLong, help: "The file to write (.mov, .mp4, .mkv; .m4a or .mka for sound only).")
    var output: String

    @OptionGroup var common: CommonOptions
    @OptionGroup var audio: AudioMixOptions
    @OptionGroup var tuning: TuneFlag

    func run() async throws {
        var job = RemixJob(movie: movie, output: output)
        job.overwrite = common.overwrite
        job.strict = common.strict
        job.audio = try audio.options()
        if tuning.tune {
            let tuned = job
            return try await tuning.serve(job.output, quiet: common.quiet) { try await TuneServer(job: tuned, listen: $0, port: $1) }
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report)
    }
}
