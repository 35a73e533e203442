import ArgumentParser
#if TuningPage
import MixWriteTune
#endif
@_spi(Tools) import MixWrite

struct Blend: JobCommand {
    typealias Job = BlendJob
    static var configuration: CommandConfiguration { kindConfiguration }

    static var own: [OptionDeclaration] {
        [OptionDeclaration("frame", .number(nil, unit: "seconds"), valueName: "T",
                           help: "Write only the blended picture at this time (seconds) as a PNG, to tune the key.")]
            + TuneFlag.declarations
    }

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []

    func run() async throws {
        let (job, common, words) = try parse()
        MixWriter.setLibraryLogging(common.verbose)
        if words.flag("tune") {
            if words.text("frame") != nil || job.run.start != nil || job.run.length != nil || job.run.parts != nil {
                throw MixWriteError.usage("--tune serves the page for the whole job: --frame, --start, --length and --parts do not go with it")
            }
            let tuned = job
            return try await TuneFlag(words).serve(job.output, quiet: common.quiet) { try await TuneServer(job: tuned, listen: $0, port: $1) }
        }
        if let frame = words.text("frame") {
            if job.run.start != nil || job.run.length != nil { throw MixWriteError.usage("--frame writes one picture: --start and --length do not go with it") }
            guard let t = MediaTime(seconds: frame) else {
                throw MixWriteError.usage("--frame '\(frame)' is not a time in seconds (e.g. 1.5)")
            }
            let report = try job.renderFrame(at: t)
            common.printFrameReport(report)
            return
        }
        if try common.writesTimeline(job) { return }
        let report = try await Runner(common: common).run(job)
        common.printJobReport(report)
    }
}
